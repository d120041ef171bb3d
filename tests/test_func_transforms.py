"""torch.func (grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap,
functional_call, stack_module_state) against real torch.func: values, structures,
errors, nesting."""
import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import leafgrad
from _outcome import builtin_name


def to_np(v):
    if hasattr(v, "detach") and hasattr(v, "shape"):
        return ("T", tuple(v.shape), str(v.dtype).split(".")[-1], v.detach().numpy().round(5).tolist(),
                v.requires_grad)
    if isinstance(v, dict):
        return {k: to_np(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return (type(v).__name__, [to_np(x) for x in v])
    return v


def run(case, T):
    try:
        return to_np(case(T))
    except Exception as e:     # noqa: BLE001 - compared with torch
        return ("raise", builtin_name(type(e)))


def x(T):
    return T.tensor([1.0, 2.0, 3.0])


def lin(T):
    m = T.nn.Linear(2, 1)
    with T.no_grad():
        m.weight.copy_(T.tensor([[0.5, -1.0]]))
        m.bias.fill_(0.25)
    return m


CASES = {
    "grad": lambda T: T.func.grad(lambda a: (a ** 2).sum())(x(T)),
    "grad nonscalar": lambda T: T.func.grad(lambda a: a ** 2)(x(T)),
    "grad unused": lambda T: T.func.grad(lambda a, b: (b ** 2).sum())(x(T), x(T)),
    "grad constant output": lambda T: T.func.grad(lambda a: T.tensor(1.0))(x(T)),
    "grad float output": lambda T: T.func.grad(lambda a: 3.0)(x(T)),
    "grad argnums": lambda T: T.func.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x(T), x(T) + 1),
    "grad argnums 1": lambda T: T.func.grad(lambda a, b: (a * b).sum(), argnums=1)(x(T), x(T) + 1),
    "grad argnums out of range": lambda T: T.func.grad(lambda a: a.sum(), argnums=2)(x(T)),
    "grad aux": lambda T: T.func.grad(lambda a: ((a ** 2).sum(), a.mean()), has_aux=True)(x(T)),
    "grad aux bad": lambda T: T.func.grad(lambda a: (a ** 2).sum(), has_aux=True)(x(T)),
    "grad int input": lambda T: T.func.grad(lambda a: (a ** 2).sum())(T.tensor([1, 2])),
    "grad float input": lambda T: T.func.grad(lambda a: a ** 2)(2.0),
    "grad dict": lambda T: T.func.grad(lambda d: (d["a"] * d["b"]).sum())({"a": x(T), "b": x(T) + 1}),
    "grad of grad": lambda T: T.func.grad(T.func.grad(lambda a: a ** 3))(T.tensor(2.0)),
    "grad third": lambda T: T.func.grad(T.func.grad(T.func.grad(lambda a: a.sin())))(T.tensor(0.5)),
    "grad requires-grad input": lambda T: T.func.grad(lambda a: (a ** 3).sum())(
        T.tensor([1.0, 2.0], requires_grad=True)),
    "grad kwargs": lambda T: T.func.grad(lambda a, s=1.0: (a * s).sum())(x(T), s=3.0),
    "grad_and_value": lambda T: T.func.grad_and_value(lambda a: (a ** 2).sum())(x(T)),
    "grad_and_value aux": lambda T: T.func.grad_and_value(lambda a: (a.sum(), {"m": a.max()}),
                                                          has_aux=True)(x(T)),
    "vjp": lambda T: (lambda o, f: (o, f(T.ones(3))))(*T.func.vjp(lambda a: a ** 2, x(T))),
    "vjp two": lambda T: (lambda o, f: (o, f(T.ones(3))))(*T.func.vjp(lambda a, b: a * b, x(T), x(T) * 2)),
    "vjp bad shape": lambda T: T.func.vjp(lambda a: a ** 2, x(T))[1](T.ones(2)),
    "vjp tuple out": lambda T: T.func.vjp(lambda a: (a.sin(), a.sum()), x(T))[1]((T.ones(3), T.tensor(2.0))),
    "vjp aux": lambda T: (lambda o, f, aux: (o, f(T.ones(3)), aux))(
        *T.func.vjp(lambda a: (a ** 2, a.sum()), x(T), has_aux=True)),
    "jvp": lambda T: T.func.jvp(lambda a: a ** 2, (x(T),), (T.ones(3),)),
    "jvp two": lambda T: T.func.jvp(lambda a, b: a * b.exp(), (x(T), x(T)), (T.ones(3), T.full((3,), 0.5))),
    "jvp linear": lambda T: T.func.jvp(lambda a: 3 * a, (x(T),), (T.ones(3),)),
    "jvp not tuple": lambda T: T.func.jvp(lambda a: a ** 2, x(T), T.ones(3)),
    "jvp shape mismatch": lambda T: T.func.jvp(lambda a: a ** 2, (x(T),), (T.ones(2),)),
    "jacrev": lambda T: T.func.jacrev(lambda a: a ** 2)(x(T)),
    "jacrev 2d": lambda T: T.func.jacrev(lambda a: a.sum(0))(T.arange(6.0).reshape(2, 3)),
    "jacrev argnums": lambda T: T.func.jacrev(lambda a, b: a * b, argnums=(0, 1))(x(T), x(T)),
    "jacrev tuple out": lambda T: T.func.jacrev(lambda a: (a.sin(), a.sum()))(x(T)),
    "jacrev aux": lambda T: T.func.jacrev(lambda a: (a.exp(), a.sum()), has_aux=True)(x(T)),
    "jacfwd": lambda T: T.func.jacfwd(lambda a: a.sin())(x(T)),
    "jacrev wide output": lambda T: T.func.jacrev(lambda a, b: T.outer(a, b).sin().repeat(2, 2),
                                                  argnums=(0, 1))(x(T), x(T)[:2]),
    "jacfwd wide output of requires-grad input": lambda T: T.func.jacfwd(
        lambda a: T.outer(a, a).exp())(T.tensor([0.1, 0.2], requires_grad=True)),
    "jacrev wide output unused input": lambda T: T.func.jacrev(
        lambda a, b: T.outer(a, a), argnums=(0, 1))(x(T)[:1], x(T)[:1]),
    "hessian": lambda T: T.func.hessian(lambda a: (a ** 3).sum())(x(T)),
    "hessian mixed": lambda T: T.func.hessian(lambda a: (a[0] * a[1].exp() * a[2] ** 2))(x(T)),
    "jacrev of jacrev": lambda T: T.func.jacrev(T.func.jacrev(lambda a: a.sin().sum()))(x(T)),
    "vmap sum": lambda T: T.func.vmap(lambda a: a.sum())(T.arange(6.0).reshape(2, 3)),
    "vmap in_dims": lambda T: T.func.vmap(lambda a, b: a * b, in_dims=(1, None))(
        T.arange(6.0).reshape(2, 3), T.tensor(2.0)),
    "vmap out_dims": lambda T: T.func.vmap(lambda a: a * 2, out_dims=1)(T.arange(6.0).reshape(2, 3)),
    "vmap sizes mismatch": lambda T: T.func.vmap(lambda a, b: a * b)(T.ones(2), T.ones(3)),
    "vmap non-tensor": lambda T: T.func.vmap(lambda a: a)(3.0),
    "vmap returns float": lambda T: T.func.vmap(lambda a: 3.0)(T.ones(2)),
    "vmap tuple out": lambda T: T.func.vmap(lambda a: (a, a * 2))(T.arange(4.0).reshape(2, 2)),
    "vmap nested": lambda T: T.func.vmap(T.func.vmap(lambda a: a.sum()))(T.arange(24.0).reshape(2, 3, 4)),
    "vmap negative in_dim": lambda T: T.func.vmap(lambda a: a, in_dims=-1)(T.arange(6.0).reshape(2, 3)),
    "vmap 0-d": lambda T: T.func.vmap(lambda a: a)(T.tensor(1.0)),
    "vmap of grad": lambda T: T.func.vmap(T.func.grad(lambda a: (a ** 2).sum()))(T.arange(6.0).reshape(2, 3)),
    "vmap kwargs": lambda T: T.func.vmap(lambda a, scale=1: a * scale)(T.ones(2), scale=3),
    "vmap chunk_size": lambda T: T.func.vmap(lambda a: a * 2, chunk_size=1)(T.ones(3)),
    "vmap dict input": lambda T: T.func.vmap(lambda d: d["a"] + d["b"])({"a": T.ones(2, 3), "b": T.arange(6.0).reshape(2, 3)}),
    "vmap matmul": lambda T: T.vmap(lambda m, v: m @ v, in_dims=(None, 0))(
        T.arange(6.0).reshape(2, 3), T.arange(12.0).reshape(4, 3)),
    "vmap in_dims tuple wrong length": lambda T: T.func.vmap(lambda a, b: a, in_dims=(0,))(T.ones(2), T.ones(2)),
    "functional_call": lambda T: T.func.functional_call(lin(T), {"weight": T.ones(1, 2), "bias": T.zeros(1)}, (T.ones(3, 2),)),
    "functional_call partial": lambda T: T.func.functional_call(lin(T), {"weight": T.ones(1, 2)}, T.ones(3, 2)),
    "functional_call strict": lambda T: T.func.functional_call(lin(T), {"weight": T.ones(1, 2)}, T.ones(3, 2), strict=True),
    "functional_call unknown key": lambda T: T.func.functional_call(lin(T), {"wt": T.ones(1, 2)}, T.ones(3, 2)),
    "functional_call restores": lambda T: (lambda m: (T.func.functional_call(m, {"bias": T.zeros(1)}, T.ones(1, 2)), m.bias))(lin(T)),
    "grad through functional_call": lambda T: (lambda m: T.func.grad(
        lambda p: T.func.functional_call(m, p, (T.ones(4, 2),)).pow(2).sum())(
        {k: v.detach() for k, v in m.named_parameters()}))(lin(T)),
    "stack_module_state": lambda T: T.func.stack_module_state([lin(T), lin(T)]),
    "ensemble vmap": lambda T: (lambda base, ps: T.func.vmap(
        lambda p, b, xx: T.func.functional_call(base, (p, b), (xx,)), in_dims=(0, 0, None))(
        ps[0], ps[1], T.ones(3, 2)))(lin(T), T.func.stack_module_state([lin(T), lin(T)])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_like_torch_func(name):
    assert run(CASES[name], leafgrad) == run(CASES[name], torch)


@given(st.lists(st.integers(1, 3), min_size=1, max_size=3), st.integers(0, 2))
def test_vmap_equals_loop_and_grads_flow(shape, dim):
    dim = dim % len(shape)
    rng = np.random.default_rng(0)
    a = rng.normal(size=shape)
    res = []
    for T in (leafgrad, torch):
        t = T.tensor(a, requires_grad=True)
        out = T.vmap(lambda v: (v.exp() * v.sum()).tanh(), in_dims=dim)(t)
        out.sum().backward()
        res.append((out.detach().numpy(), t.grad.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6, atol=1e-7)
