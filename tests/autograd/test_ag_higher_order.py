"""Higher-order gradients (create_graph=True) against real PyTorch."""
import subprocess
import sys

import numpy as np
import pytest

from _diff import compare


def case_cube_derivatives(torch, R):
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 3
    (d1,) = torch.autograd.grad(y, x, create_graph=True)
    R("first", d1)
    R("first_requires_grad", d1.requires_grad)
    R("first_is_leaf", d1.is_leaf)
    (d2,) = torch.autograd.grad(d1, x, create_graph=True)
    R("second", d2)
    (d3,) = torch.autograd.grad(d2, x)
    R("third", d3)
    R("third_requires_grad", d3.requires_grad)
    (g,) = torch.autograd.grad(x ** 3, x)
    R("plain_requires_grad", g.requires_grad)
    R.error("grad_of_constant", lambda: torch.autograd.grad(g, x))


def case_vector_second_derivatives(torch, R):
    v = torch.tensor([0.0, 0.5, 1.0, -2.0], requires_grad=True)
    for name, f in [("sin", torch.sin), ("exp", torch.exp), ("tanh", torch.tanh),
                    ("sigmoid", torch.sigmoid), ("cube", lambda t: t * t * t),
                    ("cos", torch.cos), ("softplus", lambda t: torch.log(1 + torch.exp(t)))]:
        (g,) = torch.autograd.grad(f(v).sum(), v, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), v, create_graph=True)
        (ggg,) = torch.autograd.grad(gg.sum(), v)
        R(name + "_1", g)
        R(name + "_2", gg)
        R(name + "_3", ggg)
    p = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((p.log() + p.sqrt() + 1 / p + p.pow(2.5)).sum(), p,
                               create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), p)
    R("log_sqrt_recip_pow", gg)


def case_backward_create_graph(torch, R):
    w = torch.tensor(3.0, requires_grad=True)
    (w ** 4).backward(create_graph=True)
    R("w_grad", w.grad)
    R("w_grad_has_graph", w.grad.requires_grad)
    R("w_grad_fn_none", w.grad.grad_fn is None)
    g = w.grad
    w.grad = None
    g.backward()
    R("second", w.grad)
    # retain_graph defaults to create_graph: a second backward works
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (a ** 3).sum()
    y.backward(create_graph=True)
    y.backward(create_graph=True)
    R("accumulated", a.grad)
    R("accumulated_requires_grad", a.grad.requires_grad)


def case_backward_create_graph_then_grad(torch, R):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x ** 2 * x.sin()).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    z = (g ** 2).sum()
    z.backward()
    R("x_grad", x.grad)
    R("g_is_leaf", g.is_leaf)


def case_hvp_mlp(torch, R):
    W1 = torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], requires_grad=True)
    b1 = torch.tensor([0.01, -0.02], requires_grad=True)
    W2 = torch.tensor([[0.7, -0.8]], requires_grad=True)
    X = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0], [0.0, 1.0, -1.0], [2.0, -2.0, 0.5]])
    Y = torch.tensor([[1.0], [0.0], [0.5], [-1.0]])

    def loss_fn():
        h = torch.tanh(X @ W1.t() + b1)
        return ((h @ W2.t() - Y) ** 2).mean()

    params = [W1, b1, W2]
    loss = loss_fn()
    grads = torch.autograd.grad(loss, params, create_graph=True)
    R("grads", grads)
    vs = [torch.ones_like(p) * 0.1 for p in params]
    dot = sum((g * v).sum() for g, v in zip(grads, vs))
    hv = torch.autograd.grad(dot, params)
    R("hv", hv)
    R("hv_type", type(hv).__name__)


def case_gradient_penalty(torch, R):
    w = torch.tensor([[0.5, -1.0], [2.0, 0.3]], requires_grad=True)
    b = torch.tensor([0.1, -0.1], requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], requires_grad=True)
    out = torch.sigmoid(x @ w + b).sum()
    g = torch.autograd.grad(out, x, create_graph=True)[0]
    penalty = ((g.norm(2, dim=1) - 1) ** 2).mean()
    total = out + 10 * penalty
    total.backward()
    R("w_grad", w.grad)
    R("b_grad", b.grad)
    R("x_grad", x.grad)
    w.grad = None
    gp = torch.autograd.grad(torch.sigmoid(x @ w).sum(), x, create_graph=True)[0].norm()
    gp.backward()
    R("norm_w_grad", w.grad)


def case_second_order_matmul_reductions(torch, R):
    A = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    y = (A @ x).pow(2).sum() + (A * A).mean() + A.max() + x.norm()
    gA, gx = torch.autograd.grad(y, (A, x), create_graph=True)
    R("gA", gA)
    R("gx", gx)
    (hx,) = torch.autograd.grad(gx.sum(), x, retain_graph=True)
    R("hx", hx)
    (hA,) = torch.autograd.grad(gA.sum(), A, retain_graph=True)
    R("hA", hA)
    (mixed,) = torch.autograd.grad(gA.sum(), x)
    R("mixed", mixed)


def case_second_order_shapes(torch, R):
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = (x.reshape(3, 2).t() ** 2).sum(0).exp().sum() * 1e-3
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (gg,) = torch.autograd.grad((g * x).sum(), x)
    R("g", g)
    R("gg", gg)
    z = torch.tensor([1.0, 2.0], requires_grad=True)
    s = torch.stack([z[0] * z[1], z[1] ** 3]).softmax(0)[0]
    (g,) = torch.autograd.grad(s, z, create_graph=True)
    (gg,) = torch.autograd.grad(g[0], z)
    R("softmax_g", g)
    R("softmax_gg", gg)


def case_grad_grad_outputs(torch, R):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x ** 2
    v = torch.tensor([1.0, 0.5, -1.0], requires_grad=True)
    (g,) = torch.autograd.grad(y, x, grad_outputs=v, create_graph=True)
    R("g", g)
    gx, gv = torch.autograd.grad(g.sum(), (x, v))
    R("gx", gx)
    R("gv", gv)


def case_grad_flags(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (x * 2).sum()
    R.error("unused", lambda: torch.autograd.grad(y, [x, u], retain_graph=True))
    R("allow_unused", torch.autograd.grad(y, [x, u], allow_unused=True, retain_graph=True))
    R("materialize", torch.autograd.grad(y, [x, u], materialize_grads=True, retain_graph=True))
    R("single_tensor_input", torch.autograd.grad(y, x, retain_graph=True))
    R("list_input", torch.autograd.grad([y], [x], retain_graph=True))
    R("two_outputs", torch.autograd.grad([y, (x ** 2).sum()], x))
    R.error("freed", lambda: torch.autograd.grad(y, x))
    R.error("nonscalar", lambda: torch.autograd.grad(x * 2, x))
    R("nonscalar_ones", torch.autograd.grad(x * 2, x, torch.ones(2)))
    R.error("bad_go_shape", lambda: torch.autograd.grad(x * 2, x, torch.ones(3)))
    c = torch.tensor([1.0, 2.0])
    R.error("input_no_grad", lambda: torch.autograd.grad((x * c).sum(), c))
    R.error("output_no_grad", lambda: torch.autograd.grad(c.sum(), x))
    R("leaf_wrt_itself", torch.autograd.grad(x, x, torch.ones(2)))
    m = x * 3
    out = (m ** 2).sum()
    R("wrt_intermediate", torch.autograd.grad(out, m, retain_graph=True))
    R("wrt_both", torch.autograd.grad(out, [m, x]))


def case_grad_does_not_touch_dot_grad(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.autograd.grad((x * x).sum(), x)
    R("grad_none", x.grad)
    x.grad = torch.tensor([5.0, 5.0])
    torch.autograd.grad((x * x).sum(), x)
    R("unchanged", x.grad)


def case_grad_create_graph_constant_result(torch, R):
    # the gradient of a linear function is constant: no graph even with create_graph
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((3 * x).sum(), x, create_graph=True)
    R("g", g)
    R("g_requires_grad", g.requires_grad)
    R.error("second", lambda: torch.autograd.grad(g.sum(), x))
    R("allow_unused_second", torch.autograd.grad((x * x).sum(), x, create_graph=True)[0]
      .requires_grad)


def case_double_backward_freed(torch, R):
    x = torch.tensor(2.0, requires_grad=True)
    y = x.exp() * x
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    g.backward()
    R("x_grad", x.grad)
    R.error("again", lambda: g.backward())


CASES = [v for k, v in sorted(globals().items()) if k.startswith("case_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_matches_torch(case):
    compare(case)


def test_backward_create_graph_warns_once_like_torch():
    code = """
import warnings, sys
warnings.simplefilter('always')
import %s as torch
w = torch.tensor(3.0, requires_grad=True)
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter('always')
    (w ** 4).backward(create_graph=True)
    (w ** 4).backward(create_graph=True)
    torch.autograd.grad(w ** 2, w, create_graph=True)
print([(c.category.__name__, str(c.message)[:60]) for c in ws])
"""
    outs = [subprocess.run([sys.executable, "-c", code % m], capture_output=True, text=True,
                           check=True).stdout for m in ("torch", "leafgrad")]
    assert outs[0] == outs[1]
    assert "reference cycle" in subprocess.run(
        [sys.executable, "-c", code.replace("[:60]", "") % "leafgrad"],
        capture_output=True, text=True).stdout


def test_third_derivative_value():
    import leafgrad as lg
    x = lg.tensor(1.5, requires_grad=True)
    (d1,) = lg.autograd.grad(x ** 3, x, create_graph=True)
    (d2,) = lg.autograd.grad(d1, x, create_graph=True)
    (d3,) = lg.autograd.grad(d2, x)
    assert np.isclose(d1.item(), 6.75) and np.isclose(d2.item(), 9.0) and d3.item() == 6.0
