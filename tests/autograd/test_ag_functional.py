"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against real PyTorch."""
import pytest

from _diff import compare


def _f(torch):
    def f(x):
        return torch.stack([x[0] * x[1], torch.sin(x[2]) + x[0] ** 2])
    return f


def case_jacobian_shapes(torch, R):
    F = torch.autograd.functional
    f = _f(torch)
    x = torch.tensor([1.0, 2.0, 0.5])
    J = F.jacobian(f, x)
    R("J", J)
    R("J_rg", J.requires_grad)
    R("x_untouched", (x.requires_grad, x.grad))

    def g(a, b):
        return a * b + a ** 2

    a = torch.tensor([1.0, 2.0])
    b = torch.tensor([3.0, -1.0])
    R("tuple_in", F.jacobian(g, (a, b)))
    R("tuple_out", F.jacobian(lambda t: (t * 2, t.sum()), a))
    R("tuple_both", F.jacobian(lambda p, q: (p * q, (p + q).sum(), q.exp()), (a, b)))
    R("scalar_fn", F.jacobian(lambda t: (t ** 2).sum(), torch.tensor([1.0, -2.0, 3.0])))
    R("scalar_in", F.jacobian(lambda t: t * torch.tensor([1.0, 2.0]), torch.tensor(3.0)))
    R("matrix", F.jacobian(lambda m: m @ m, torch.tensor([[1.0, 2.0], [0.5, -1.0]])))
    R.error("list_in", lambda: F.jacobian(lambda p, q: p * q, [a, b]))
    R("vectorize", F.jacobian(f, x, vectorize=True))
    R("forward_strategy", F.jacobian(f, x, vectorize=True, strategy="forward-mode"))
    R("independent", F.jacobian(lambda p, q: p * 2, (a, b)))
    R.error("strict_independent", lambda: F.jacobian(lambda p, q: p * 2, (a, b), strict=True))
    R("constant_out", F.jacobian(lambda t: torch.ones(2), a))
    R.error("strict_constant", lambda: F.jacobian(lambda t: torch.ones(2), a, strict=True))
    Jc = F.jacobian(lambda t: t ** 3, torch.tensor([1.0, 2.0], requires_grad=True),
                    create_graph=True)
    R("create_graph", (Jc, Jc.requires_grad))
    R.error("non_tensor_out", lambda: F.jacobian(lambda t: 3.0, a))
    R.error("non_tensor_in", lambda: F.jacobian(lambda t: t, 3.0))
    R("int_like", F.jacobian(lambda t: t.double() * 2, torch.tensor([1.0, 2.0],
                                                                    dtype=torch.float64)))


def case_jacobian_create_graph_backprop(torch, R):
    F = torch.autograd.functional
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    J = F.jacobian(lambda t: torch.tanh(t * w), x, create_graph=True)
    R("J", J)
    J.sum().backward()
    R("w_grad", w.grad)
    R("x_grad", x.grad)
    w.grad = None
    J2 = F.jacobian(lambda t: torch.tanh(t * w), x)
    R("J2_rg", J2.requires_grad)


def case_hessian(torch, R):
    F = torch.autograd.functional

    def pow_reducer(t):
        return t.pow(3).sum()

    x = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
    H = F.hessian(pow_reducer, x)
    R("H", H)
    R("H_shape", tuple(H.shape))

    def two(a, b):
        return (a * b.exp()).sum() + (a ** 2).sum()

    a = torch.tensor([1.0, 2.0])
    b = torch.tensor([0.5, -0.5, 0.1])
    R("tuple", F.hessian(lambda p, q: (p ** 2 * q[:2]).sum() + q.sum() ** 2,
                         (a, b)))
    R("vectorized", F.hessian(pow_reducer, x, vectorize=True))
    R("linear", F.hessian(lambda t: (t * 3).sum(), a))
    R.error("strict_linear", lambda: F.hessian(lambda t: (t * 3).sum(), a, strict=True))
    R.error("not_scalar", lambda: F.hessian(lambda t: t ** 2, a))
    Hc = F.hessian(lambda t: (t ** 4).sum(), a, create_graph=True)
    R("create_graph_rg", Hc.requires_grad)
    R("rosen", F.hessian(lambda t: (1 - t[0]) ** 2 + 100 * (t[1] - t[0] ** 2) ** 2,
                         torch.tensor([1.0, 1.0])))


def case_vjp_jvp(torch, R):
    F = torch.autograd.functional
    f = _f(torch)
    x = torch.tensor([1.0, 2.0, 0.5])
    out, v = F.vjp(f, x, torch.tensor([1.0, -1.0]))
    R("vjp_out", out)
    R("vjp", v)
    R("vjp_rg", (out.requires_grad, v.requires_grad))
    R("vjp_scalar_v_none", F.vjp(lambda t: (t ** 2).sum(), x))
    R.error("vjp_v_none_nonscalar", lambda: F.vjp(f, x))
    R.error("vjp_v_wrong_shape", lambda: F.vjp(f, x, torch.ones(3)))
    out2, jv = F.jvp(f, x, torch.tensor([0.0, 1.0, 1.0]))
    R("jvp_out", out2)
    R("jvp", jv)
    R("jvp_scalar_in", F.jvp(lambda t: t * torch.tensor([1.0, 2.0]), torch.tensor(2.0)))
    R("jvp_v_none_scalar_in", F.jvp(lambda t: t ** 2, torch.tensor(3.0)))
    R.error("jvp_v_none_vec_in", lambda: F.jvp(f, x))
    a = torch.tensor([1.0, 2.0])
    b = torch.tensor([3.0, -1.0])
    R("vjp_tuple", F.vjp(lambda p, q: (p * q, p + q), (a, b),
                         (torch.ones(2), torch.tensor([1.0, 0.0]))))
    R("jvp_tuple", F.jvp(lambda p, q: (p * q, p.sum()), (a, b),
                         (torch.ones(2), torch.tensor([1.0, 0.0]))))
    R("vjp_independent", F.vjp(lambda p, q: p * 2, (a, b), torch.ones(2)))
    R.error("vjp_strict", lambda: F.vjp(lambda p, q: p * 2, (a, b), torch.ones(2), strict=True))
    R("jvp_independent", F.jvp(lambda p, q: p * 2, (a, b), (torch.ones(2), torch.ones(2))))
    oc, vc = F.vjp(lambda t: t ** 3, torch.tensor([1.0, 2.0], requires_grad=True),
                   torch.ones(2), create_graph=True)
    R("vjp_create_graph", (vc, vc.requires_grad, oc.requires_grad))
    R("jvp_linear", F.jvp(lambda t: t * 3, a, torch.tensor([1.0, -1.0])))


def case_hvp_vhp(torch, R):
    F = torch.autograd.functional

    def fn(x):
        return (x ** 3).sum() + (x[0] * x[1])

    x = torch.tensor([1.0, 2.0])
    v = torch.tensor([1.0, -1.0])
    R("hvp", F.hvp(fn, x, v))
    R("vhp", F.vhp(fn, x, v))

    def two(a, b):
        return (a ** 2 * b).sum()

    a = torch.tensor([1.0, 2.0])
    b = torch.tensor([3.0, 4.0])
    R("hvp_tuple", F.hvp(two, (a, b), (torch.ones(2), torch.tensor([0.5, 0.0]))))
    R("vhp_tuple", F.vhp(two, (a, b), (torch.ones(2), torch.tensor([0.5, 0.0]))))
    R("hvp_linear", F.hvp(lambda t: (t * 2).sum(), a, torch.ones(2)))
    R.error("hvp_strict", lambda: F.hvp(lambda t: (t * 2).sum(), a, torch.ones(2), strict=True))
    R.error("hvp_nonscalar", lambda: F.hvp(lambda t: t ** 2, a, torch.ones(2)))
    R("hvp_scalar_in_v_none", F.hvp(lambda t: t ** 3, torch.tensor(2.0)))
    R.error("hvp_v_none", lambda: F.hvp(fn, x))
    o, h = F.hvp(fn, torch.tensor([1.0, 2.0], requires_grad=True), v, create_graph=True)
    R("hvp_create_graph", (h.requires_grad, o.requires_grad))


def case_functional_mlp_hessian(torch, R):
    F = torch.autograd.functional
    X = torch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.0, 1.0]])
    Y = torch.tensor([1.0, 0.0, 0.5])

    def loss(w, b):
        return ((torch.tanh(X @ w + b) - Y) ** 2).mean()

    w = torch.tensor([0.3, -0.2])
    b = torch.tensor(0.1)
    R("H", F.hessian(loss, (w, b)))
    R("hvp", F.hvp(loss, (w, b), (torch.tensor([1.0, 0.0]), torch.tensor(1.0))))
    R("J", F.jacobian(loss, (w, b)))


CASES = [v for k, v in sorted(globals().items()) if k.startswith("case_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_matches_torch(case):
    compare(case)
