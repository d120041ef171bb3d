"""General graph behaviour (the tutorials' scripts and their mistakes) against real PyTorch."""
import pytest

import leafgrad

from _diff import compare


def case_tutorial_grad_function(torch, R):
    x1 = torch.tensor(2.0)
    y = torch.tensor(1.0)
    w1 = torch.tensor(0.8, requires_grad=True)
    b = torch.tensor(0.1, requires_grad=True)
    z = x1 * w1 + b
    a = torch.sigmoid(z)
    loss = -(y * torch.log(a) + (1 - y) * torch.log(1 - a))
    R("before", (w1.grad, b.grad))
    grad_L_w1 = torch.autograd.grad(loss, w1, retain_graph=True)
    grad_L_b = torch.autograd.grad(loss, b, retain_graph=True)
    R("tuple_w1", grad_L_w1)
    R("tuple_b", grad_L_b)
    R("grads_untouched", (w1.grad, b.grad))
    loss.backward()
    R("after", (w1.grad, b.grad))
    R.error("backward_again", lambda: loss.backward())
    loss2 = torch.sigmoid(x1 * w1 + b)
    torch.autograd.grad(loss2, w1)
    R.error("grad_again", lambda: torch.autograd.grad(loss2, b))
    R("z_grad", z.grad)
    R("z_leaf", (z.is_leaf, a.is_leaf, w1.is_leaf, x1.is_leaf))


def case_tutorial_gradients(torch, R):
    w = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    x = torch.tensor(2.0)
    y = torch.tensor(6.0)
    loss = (w * x + b - y) ** 2
    loss.backward()
    R("w", w.grad)
    R("b", b.grad)
    W = torch.tensor([0.5, -0.3, 0.8], requires_grad=True)
    xv = torch.tensor([1.0, 2.0, 3.0])
    ((W * xv).sum() ** 2).backward()
    R("W", W.grad)
    x = torch.tensor(3.0, requires_grad=True)
    y = x ** 3
    y.backward(retain_graph=True)
    R("first", x.grad)
    x.grad.zero_()
    y.backward()
    R("second", x.grad)
    R.error("third", lambda: y.backward())
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x ** 2
    y.sum().backward(retain_graph=True)
    R("sum", x.grad)
    x.grad.zero_()
    y.backward(torch.ones_like(x))
    R("ones_like", x.grad)
    R.error("vector", lambda: y.backward())


def case_diamond_and_shared(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = a.exp()
    c = a.sin()
    d = (b * c + a).sum()
    d.backward()
    R("diamond", x.grad)
    x.grad = None
    y = x * x * x + x
    y.sum().backward()
    R("reuse", x.grad)
    x.grad = None
    s = sum(x[i] * (i + 1) for i in range(2))
    s.backward()
    R("sum_builtin", x.grad)
    u = torch.tensor(2.0, requires_grad=True)
    v = u
    for _ in range(50):
        v = v * 1.01 + 0.001
    v.backward()
    R("chain", u.grad)


def case_detach_and_requires_grad_flow(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.detach() * x
    z.sum().backward()
    R("detached_branch", x.grad)
    R("flags", (y.detach().requires_grad, (y.detach() * 2).requires_grad,
                (x + torch.ones(2)).requires_grad, (torch.ones(2) * 2).requires_grad))
    R("data_flag", (x.data.requires_grad, x.data.is_leaf))
    x.grad = None
    w = x.clone()
    w.sum().backward()
    R("clone_grad", x.grad)
    R("clone_fn", w.grad_fn.name())
    R("item", (x * 2).sum().item())
    R("int_ops", ((x > 1).requires_grad, x.argmax().requires_grad, x.round().requires_grad))


def case_zero_and_none_grads(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u = torch.tensor([3.0], requires_grad=True)
    (x * 2).sum().backward()
    R("u_none", u.grad)
    R("x", x.grad)
    (x.detach() * 0 + u).sum().backward()
    R("u", u.grad)
    y = (x * 0).sum()
    y.backward()
    R("zero_grad_accumulates", x.grad)
    m = x.relu() * torch.tensor([0.0, 1.0])
    x.grad = None
    m.sum().backward()
    R("relu_mask", x.grad)
    r = torch.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    (r.relu() + r.abs() + r.clamp(min=0.0) + torch.maximum(r, torch.zeros(3))).sum().backward()
    R("kinks", r.grad)


def case_backward_inputs_and_grad_outputs(torch, R):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    out = a * b
    out.backward(torch.tensor([1.0, 0.5]), inputs=[a], retain_graph=True)
    R("only_a", (a.grad, b.grad))
    out.backward(torch.tensor([1.0, 0.5]), inputs=b, retain_graph=True)
    R("only_b", (a.grad, b.grad))
    m = a * 2
    loss = (m * b).sum()
    loss.backward(inputs=[m], retain_graph=True)
    R("nonleaf_input", m.grad)
    R("a_after", a.grad)
    g = torch.autograd.grad(loss, [a, b], grad_outputs=torch.tensor(2.0))
    R("scalar_grad_output", g)


def case_dtype_of_grads(torch, R):
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    f = torch.tensor([0.5, 0.5], requires_grad=True)
    (x * f).sum().backward()
    R("x_grad", x.grad)
    R("f_grad", f.grad)
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    (y.double() ** 2).sum().backward()
    R("cast_back", y.grad)
    z = torch.tensor([[1.0, 2.0]], requires_grad=True)
    (z + torch.tensor([[1.0], [2.0]])).sum().backward()
    R("broadcast", z.grad)


def case_grad_tuple_used_as_tensor(torch, R):
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    g = torch.autograd.grad((w ** 2).sum(), w)
    lr = torch.tensor(0.1)
    p = w.detach().clone()
    R("type", type(g).__name__)
    for name, fn in [("tuple_mul_tensor", lambda: g * lr), ("tensor_mul_tuple", lambda: lr * g),
                     ("tensor_sub_tuple", lambda: p - g), ("tuple_sub_tensor", lambda: g - p),
                     ("tensor_div_tuple", lambda: p / g), ("tuple_plus_int", lambda: g + 1),
                     ("tuple_mul_float", lambda: g * 0.1), ("inplace_sub_", lambda: p.sub_(g)),
                     ("tuple_norm", lambda: g.norm())]:
        R.error(name, fn)
    R("indexed", g[0] * lr)


CASES = [v for k, v in sorted(globals().items()) if k.startswith("case_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_matches_torch(case):
    compare(case)


def _gf_names(T, expr):
    F = T.nn.functional
    T.manual_seed(0)
    x = T.tensor([0.5, -1.0, 2.0], requires_grad=True)
    v = T.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True)
    w = T.ones(2, 3, 4, requires_grad=True)
    out = eval(expr, {"T": T, "F": F, "x": x, "v": v, "w": w, "_setitem": _setitem})
    return out.grad_fn.name(), type(out.grad_fn).__name__, repr(out).split("grad_fn=")[1]


def _setitem(t, key, value):
    c = t.clone()
    c[key] = value
    return c


@pytest.mark.parametrize("expr", [
    "_setitem(x, 0, 10.0)", "_setitem(x, x > 0, 1.0)", "_setitem(x, [0, 2], 1.0)",
    "_setitem(v, (0, slice(1, None)), 7.0)",
    "x.topk(2).values", "x.topk(2, largest=False).values", "x.sort().values",
    "v.sort(dim=0, descending=True).values", "x.roll(1)", "v.roll((1, -1), (0, 1))",
    "v.roll(2)", "x.split([1, 2])[0]", "x.split(1)[1]", "T.split(v, (1, 2), 1)[1]",
    "v[0, 1:]", "v[0]", "v[:, 0]", "v[0:1, 1]", "v[0, :]", "v[:]", "v[0:2]", "v[0, None]",
    "w[0, ..., 1]", "w[..., 1:3]", "w[..., 0:4]", "w[None, 0]", "w[0, 1:2, :]",
    "F.soft_margin_loss(x, T.tensor([1.0, -1.0, 1.0]))",
    "F.soft_margin_loss(v, T.ones(2, 3), reduction='none')",
    "F.soft_margin_loss(v, T.ones(2, 3), reduction='sum')",
    "F.cross_entropy(v, T.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]))",
    "F.cross_entropy(v, T.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]), reduction='sum')",
    "F.cross_entropy(v, T.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]]), reduction='none')",
    "F.cross_entropy(x, T.tensor([0.2, 0.3, 0.5]), label_smoothing=0.1)",
])
def test_grad_fn_names_and_repr_match_torch(expr):
    import torch
    assert _gf_names(leafgrad, expr) == _gf_names(torch, expr)
