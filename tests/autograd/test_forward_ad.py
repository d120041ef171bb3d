"""torch.autograd.forward_ad (dual_level, make_dual, unpack_dual) against real torch 2.13:
the forward-AD tutorial's steps, tangents of many ops (float64, to rounding), in-place
ops and views, no_grad, custom Functions' jvp, gradcheck(check_forward_ad=True),
forward-over-reverse, repr, errors."""
import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import leafgrad
import leafgrad.autograd.forward_ad as lfw
from _outcome import builtin_name

R = np.random.RandomState(7)
A = R.randn(3, 4)
B = R.randn(3, 4)
TA = R.randn(3, 4)
SQ = R.randn(4, 4) + 4 * np.eye(4)
TSQ = R.randn(4, 4)
V = R.randn(4)
W35 = R.randn(3, 5).astype(np.float32)
B3 = R.randn(3).astype(np.float32)


def _np(t):
    # a copy: PyTorch updates a tangent in place when its tensor is changed in place
    return None if t is None else np.array(t.detach().numpy(), copy=True)


def _jvp(T, fw, fn, primals, tangents):
    with fw.dual_level():
        duals = [fw.make_dual(T.tensor(p), T.tensor(t)) if t is not None else T.tensor(p)
                 for p, t in zip(primals, tangents)]
        out = fn(T, *duals)
        outs = out if isinstance(out, tuple) else (out,)
        return [(_np(fw.unpack_dual(o).primal), _np(fw.unpack_dual(o).tangent)) for o in outs]


OPS = {
    "pow_add": (lambda T, x, y: x ** 2 + y ** 2, (A, B), (TA, None)),
    "mul_both": (lambda T, x, y: x * y, (A, B), (TA, B)),
    "div": (lambda T, x, y: x / (y.abs() + 1), (A, B), (TA, TA)),
    "exp_log": (lambda T, x, y: (x.exp() + 1).log(), (A, B), (TA, None)),
    "tanh_sigmoid": (lambda T, x, y: x.tanh() * y.sigmoid(), (A, B), (TA, B)),
    "sum_dim": (lambda T, x, y: x.sum(1), (A, B), (TA, None)),
    "mean_all": (lambda T, x, y: x.mean(), (A, B), (TA, None)),
    "softmax": (lambda T, x, y: T.softmax(x, 1), (A, B), (TA, None)),
    "log_softmax": (lambda T, x, y: T.log_softmax(x, 0), (A, B), (TA, None)),
    "matmul": (lambda T, x, y: x @ y.T, (A, B), (TA, B)),
    "broadcast": (lambda T, x, v: x * v, (A, V), (TA, V)),
    "reshape_t": (lambda T, x, y: x.reshape(4, 3).t().contiguous(), (A, B), (TA, None)),
    "index": (lambda T, x, y: x[1:, ::2] * 3, (A, B), (TA, None)),
    "cat_stack": (lambda T, x, y: (T.cat([x, y]), T.stack([x, y], 1)), (A, B), (TA, B)),
    "max_dim": (lambda T, x, y: x.max(1).values, (A, B), (TA, None)),
    "where": (lambda T, x, y: T.where(y > 0, x, 2 * x), (A, B), (TA, None)),
    "norm": (lambda T, x, y: T.linalg.vector_norm(x, dim=1), (A, B), (TA, None)),
    "cumsum": (lambda T, x, y: x.cumsum(1), (A, B), (TA, None)),
    "inv_det": (lambda T, x: (T.linalg.inv(x), T.linalg.det(x)), (SQ,), (TSQ,)),
    "solve": (lambda T, x, v: T.linalg.solve(x, v), (SQ, V), (TSQ, V)),
    "unbind": (lambda T, x, y: x.unbind(0), (A, B), (TA, None)),
    "relu_gelu": (lambda T, x, y: T.nn.functional.gelu(T.relu(x)), (A, B), (TA, None)),
    "layer_norm": (lambda T, x, y: T.nn.functional.layer_norm(x, (4,)), (A, B), (TA, None)),
    "to_float": (lambda T, x, y: x.float() * 2, (A, B), (TA, None)),
    "mse": (lambda T, x, y: T.nn.functional.mse_loss(x, y), (A, B), (TA, TA)),
    "solve_triangular": (lambda T, x, v: T.linalg.solve_triangular(x, v[:, None], upper=True),
                         (SQ, V), (TSQ, V)),
    "lu_solve": (lambda T, x, v: T.linalg.lu_solve(*T.linalg.lu_factor(x), v[:, None]),
                 (SQ, V), (TSQ, V)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_tangents_match_torch(name):
    fn, primals, tangents = OPS[name]
    got = _jvp(leafgrad, lfw, fn, primals, tangents)
    want = _jvp(torch, tfw, fn, primals, tangents)
    assert len(got) == len(want)
    for (gp, gt), (wp, wt) in zip(got, want):
        np.testing.assert_allclose(gp, wp, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(gt, wt, rtol=1e-6, atol=1e-9)


def test_tangents_are_finite_differences():
    """The tangent is the directional derivative (central differences, float64)."""
    def f(T, x):
        return (x.sin() * x.cumsum(0)).sum(0) / (1 + x.pow(2).mean())
    (_, tan), = _jvp(leafgrad, lfw, f, (A,), (TA,))
    eps = 1e-6
    plus = f(leafgrad, leafgrad.tensor(A + eps * TA)).numpy()
    minus = f(leafgrad, leafgrad.tensor(A - eps * TA)).numpy()
    np.testing.assert_allclose(tan, (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-8)


def _tutorial_basic(T, fw):
    primal = T.tensor(A.astype(np.float32))
    tangent = T.tensor(TA.astype(np.float32))
    res = {}
    with fw.dual_level():
        dual_input = fw.make_dual(primal, tangent)
        res["same"] = fw.unpack_dual(dual_input).tangent is tangent
        dual_alt = fw.make_dual(primal, tangent.T.contiguous().T)
        res["alt_copied"] = fw.unpack_dual(dual_alt).tangent is not tangent
        res["alt_value"] = _np(fw.unpack_dual(dual_alt).tangent)
        plain = T.tensor(B.astype(np.float32))
        out = dual_input ** 2 + plain ** 2
        u = fw.unpack_dual(out)
        res["type"] = (type(u).__name__, u._fields, u.primal is out, u.primal._base is not None)
        res["jvp"] = _np(u.tangent)
        res["rg"] = (dual_input.requires_grad, dual_input.grad_fn is None, out.requires_grad,
                     dual_input._base is primal)
        # exact in float32 (a sum's last bit depends on the summation order)
        small = fw.make_dual(T.tensor([[1.5, -2.0], [0.25, 3.0]]), T.tensor([[1.0, 2.0],
                                                                            [3.0, -4.0]]))
        res["repr"] = repr((small * 2).sum())
        res["repr2"] = repr(small[0] * 3)
    res["after"] = fw.unpack_dual(out).tangent
    res["repr_after"] = repr(small.sum())
    return res


def test_tutorial_basic_usage():
    got, want = _tutorial_basic(leafgrad, lfw), _tutorial_basic(torch, tfw)
    assert got["same"] and got["alt_copied"] and got["after"] is None
    for k in ("type", "rg", "repr", "repr2", "repr_after", "same", "alt_copied"):
        assert got[k] == want[k], k
    np.testing.assert_allclose(got["jvp"], want["jvp"], rtol=1e-6)
    np.testing.assert_allclose(got["alt_value"], want["alt_value"])


def _tutorial_modules(T, fw, functional_call):
    model = T.nn.Linear(5, 3)
    with T.no_grad():
        model.weight.copy_(T.tensor(W35))
        model.bias.copy_(T.tensor(B3))
    inp = T.tensor(np.linspace(-1, 1, 20, dtype=np.float32).reshape(4, 5))
    params = {name: p for name, p in model.named_parameters()}
    tangents = {name: T.ones_like(p) * (i + 1) for i, (name, p) in enumerate(params.items())}
    with fw.dual_level():
        for name, p in params.items():
            delattr(model, name)
            setattr(model, name, fw.make_dual(p, tangents[name]))
        out = model(inp)
        jvp = fw.unpack_dual(out).tangent
    model = T.nn.Linear(5, 3)
    with fw.dual_level():
        dual_params = {name: fw.make_dual(p, tangents[name]) for name, p in params.items()}
        out2 = functional_call(model, dual_params, inp)
        jvp2 = fw.unpack_dual(out2).tangent
    return _np(out), _np(jvp), _np(jvp2), out.grad_fn.name()


def test_tutorial_modules_and_functional_call():
    got = _tutorial_modules(leafgrad, lfw, leafgrad.func.functional_call)
    want = _tutorial_modules(torch, tfw, torch.func.functional_call)
    for g, w in zip(got[:3], want[:3]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], got[2])
    assert got[3] == want[3] == "AddmmBackward0"


def _custom_function(T, fw):
    calls = []

    class Fn(T.autograd.Function):
        @staticmethod
        def forward(ctx, foo, k):
            calls.append(("fwd", fw.unpack_dual(foo).tangent is None, T.is_grad_enabled()))
            result = T.exp(foo) * k
            ctx.result = result
            return result

        @staticmethod
        def jvp(ctx, g_foo, g_k):
            calls.append(("jvp", g_k, T.is_grad_enabled()))
            out = g_foo * ctx.result
            del ctx.result
            return out

    primal = T.tensor(A, requires_grad=True)
    with fw.dual_level():
        dual = fw.make_dual(primal, T.tensor(TA))
        out = Fn.apply(dual, 2.0)
        jvp = fw.unpack_dual(out).tangent
        out_plain = Fn.apply(T.tensor(A), 2.0)    # no tangent: jvp not called
        plain_tan = fw.unpack_dual(out_plain).tangent
    ok = T.autograd.gradcheck(lambda x: Fn.apply(x, 2.0), (primal,), check_forward_ad=True,
                              check_backward_ad=False, check_undefined_grad=False,
                              check_batched_grad=False)

    class NoJvp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with fw.dual_level():
        try:
            NoJvp.apply(fw.make_dual(T.tensor(A), T.tensor(TA)))
            err = None
        except Exception as e:      # noqa: BLE001 - compared with torch
            err = (builtin_name(type(e)), str(e))
    return _np(jvp), plain_tan, ok, calls[:2], out.grad_fn.name(), err


def test_custom_function_jvp():
    got, want = _custom_function(leafgrad, lfw), _custom_function(torch, tfw)
    np.testing.assert_allclose(got[0], want[0])
    assert got[1] is None and want[1] is None
    assert got[2] is True and want[2] is True
    assert got[3] == want[3]
    assert got[4] == want[4] == "FnBackward"
    assert got[5] == want[5]


def _inplace(T, fw):
    a = T.tensor(A[0])
    out = {}
    with fw.dual_level():
        d = fw.make_dual(a, T.ones(4, dtype=T.float64))
        with T.no_grad():
            out["no_grad"] = _np(fw.unpack_dual(T.exp(d)).tangent)
        x = T.zeros(4, dtype=T.float64)
        x[1] = d[0] * 3
        out["setitem"] = _np(fw.unpack_dual(x).tangent)
        x = T.zeros(4, dtype=T.float64)
        x += d
        out["iadd"] = _np(fw.unpack_dual(x).tangent)
        x = T.zeros(4, dtype=T.float64)
        x.copy_(d * 2)
        out["copy"] = _np(fw.unpack_dual(x).tangent)
        v = x[1:]
        v.mul_(d[1:])
        out["view_base"] = _np(fw.unpack_dual(x).tangent)
        out["view"] = _np(fw.unpack_dual(v).tangent)
        x = d.clone()
        x.mul_(d)
        out["mul_self"] = _np(fw.unpack_dual(x).tangent)
        x = d.clone()
        x.zero_()
        out["zero_"] = _np(fw.unpack_dual(x).tangent)
        x = d.clone()
        x.unsqueeze_(0)
        out["unsqueeze_"] = _np(fw.unpack_dual(x).tangent)
        x = d.clone()
        x.sin_()
        out["sin_"] = _np(fw.unpack_dual(x).tangent)
        x = d.clone()
        x.fill_(2.0)
        out["fill_"] = _np(fw.unpack_dual(x).tangent)
        out["detach"] = _np(fw.unpack_dual(d.detach()).tangent)
        out["compare"] = _np(fw.unpack_dual((d > 0).double()).tangent)
        out["argmax"] = _np(fw.unpack_dual(d.argmax()).tangent)
    return out


def test_inplace_views_no_grad():
    got, want = _inplace(leafgrad, lfw), _inplace(torch, tfw)
    assert set(got) == set(want)
    for k in want:
        if want[k] is None:
            assert got[k] is None, k
        else:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-12, err_msg=k)


def _over_reverse(T, fw):
    """The tangent is differentiable: d/dx of <J(x) t, w> in reverse mode."""
    x = T.tensor(A, requires_grad=True)
    with fw.dual_level():
        d = fw.make_dual(x, T.tensor(TA))
        y = (d.sin() * d).sum(1)
        tan = fw.unpack_dual(y).tangent
    (g,) = T.autograd.grad(tan.sum(), x)
    return _np(tan), _np(g)


def test_forward_over_reverse():
    got, want = _over_reverse(leafgrad, lfw), _over_reverse(torch, tfw)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10)


def test_reverse_mode_through_dual():
    def run(T, fw):
        x = T.tensor(A, requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(x, T.tensor(TA))
            (d.exp() * 2).sum().backward()
        return _np(x.grad)
    np.testing.assert_allclose(run(leafgrad, lfw), run(torch, tfw))


def _errors(T, fw):
    out = []

    def attempt(f):
        try:
            r = f()
            out.append(("ok", None if r is None else type(r).__name__))
        except Exception as e:      # noqa: BLE001 - compared with torch
            out.append((builtin_name(type(e)), str(e).split(" Fix:")[0]))
    p = T.tensor(A)
    attempt(lambda: fw.make_dual(p, T.tensor(TA)))           # no level
    attempt(lambda: fw.unpack_dual(p).tangent)               # no level: (p, None)
    attempt(lambda: fw.exit_dual_level())
    with fw.dual_level() as level:
        out.append(level)
        attempt(lambda: fw.make_dual(p, T.tensor(V)))
        attempt(lambda: fw.make_dual(T.arange(3), T.arange(3)))
        attempt(lambda: fw.make_dual(p, T.ones(3, 4, dtype=T.int64)))
        attempt(lambda: fw.make_dual(fw.make_dual(p, T.tensor(TA)), T.tensor(TA)))
        attempt(lambda: fw.unpack_dual(3.0))
        attempt(lambda: fw.enter_dual_level())
        out.append(fw.unpack_dual(fw.make_dual(p, T.tensor(TA).float())).tangent.dtype
                   == T.float32)
    with fw.dual_level() as level:
        out.append(level)
    return out


def test_errors_and_levels():
    assert _errors(leafgrad, lfw) == _errors(torch, tfw)


def test_names():
    assert set(lfw.__all__) == set(tfw.__all__)
    assert lfw.UnpackedDualTensor._fields == ("primal", "tangent")
    assert leafgrad.autograd.forward_ad is lfw

    @lfw.dual_level()
    def f():
        return lfw.make_dual(leafgrad.tensor(A), leafgrad.tensor(TA))
    assert lfw.unpack_dual(f()).tangent is None
