"""retain_grad, tensor and node hooks, grad_fn introspection, .grad assignment."""
import pytest

from _diff import compare


def case_retain_grad(torch, R):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    m = x * 2
    R("retains_before", m.retains_grad)
    m.retain_grad()
    m.retain_grad()
    R("retains_after", m.retains_grad)
    R("leaf_retains", x.retains_grad)
    x.retain_grad()
    R("leaf_retains_after", x.retains_grad)
    n = m ** 2
    n.retain_grad()
    n.sum().backward(retain_graph=True)
    R("m_grad", m.grad)
    R("n_grad", n.grad)
    R("x_grad", x.grad)
    n.sum().backward()
    R("m_grad_accumulates", m.grad)
    c = torch.tensor([1.0])
    R.error("retain_no_grad", lambda: c.retain_grad())


def case_nonleaf_grad_warns(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    m = x * 2
    (m * m).sum().backward()
    R("nonleaf_grad", m.grad)


def case_no_warning_with_retain(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    m = x * 2
    m.retain_grad()
    R("before", m.grad)
    (m * m).sum().backward()
    R("after", m.grad)
    c = torch.tensor([1.0]) * 2
    R("plain_result_grad", c.grad)
    R("plain_is_leaf", c.is_leaf)


def case_retain_grad_sees_hooked_grad(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    m = x * 3
    m.retain_grad()
    m.register_hook(lambda g: g * 100)
    m.sum().backward()
    R("m_grad", m.grad)
    R("x_grad", x.grad)


def case_tensor_hooks(torch, R):
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    seen = []
    h = x.register_hook(lambda g: seen.append(g.clone()))
    (x * 4).sum().backward()
    R("observed", seen)
    R("x_grad", x.grad)
    h.remove()
    h.remove()
    x.grad = None
    h2 = x.register_hook(lambda g: g * 10)
    (x ** 2).sum().backward()
    R("scaled", x.grad)
    h2.remove()
    x.grad = None
    (x ** 2).sum().backward()
    R("after_remove", x.grad)
    x.grad = None
    order = []
    y = x.clone()
    y.register_hook(lambda g: order.append("first") or g + 1)
    y.register_hook(lambda g: order.append("second") or g * 2)
    y.register_hook(lambda g: order.append("third"))
    y.sum().backward()
    R("order", order)
    R("chained", x.grad)
    x.grad = None
    mid = x * 3
    mid.register_hook(lambda g: torch.zeros_like(g) + 1.0)
    (mid * torch.tensor([5.0, 6.0, 7.0])).sum().backward()
    R("intermediate_hook", x.grad)
    c = torch.tensor([1.0])
    R.error("hook_on_no_grad", lambda: c.register_hook(lambda g: g))


def case_hooks_with_autograd_grad(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    m = x * x
    m.register_hook(lambda g: g + 1)
    R("grad_leaf", torch.autograd.grad(m.sum(), x, retain_graph=True))
    R("grad_mid", torch.autograd.grad(m.sum(), m))
    R("x_grad", x.grad)


def case_hook_wrong_shape(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g.sum())
    R.error("wrong_shape", lambda: y.sum().backward())


def case_hook_used_twice_fanout(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    m = x * 2
    m.register_hook(lambda g: calls.append(g.clone()))
    (m * m + m).sum().backward()
    R("calls", calls)
    R("x_grad", x.grad)


def case_post_accumulate_hook(torch, R):
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    log = []

    def hook(p):
        log.append(p.grad.clone())
        with torch.no_grad():
            p.add_(p.grad, alpha=-0.1)

    h = w.register_post_accumulate_grad_hook(hook)
    (w * w).sum().backward()
    R("log", log)
    R("w_after", w)
    R("grad", w.grad)
    h.remove()
    (w * w).sum().backward()
    R("log_len", len(log))
    m = w * 2
    R.error("nonleaf", lambda: m.register_post_accumulate_grad_hook(hook))


def case_grad_fn_introspection(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0])
    y = (x * c + 1).sum()
    R("name", y.grad_fn.name())
    R("type_name", type(y.grad_fn).__name__)
    nf = y.grad_fn.next_functions
    R("nf_len", len(nf))
    R("nf0_name", nf[0][0].name())
    R("nf0_nr", nf[0][1])
    add = nf[0][0]
    R("add_nf", [(None if n is None else n.name(), i) for n, i in add.next_functions])
    mul = add.next_functions[0][0]
    R("mul_nf", [(None if n is None else n.name(), i) for n, i in mul.next_functions])
    acc = mul.next_functions[0][0]
    R("acc_var_is_x", acc.variable is x)
    R("acc_nf", acc.next_functions)
    R("leaf_grad_fn", x.grad_fn)
    R("no_grad_grad_fn", (c * 2).grad_fn)
    z = x.sum()
    R("same_node", z.grad_fn is z.grad_fn)
    m = x.exp()
    R("exp_name", m.grad_fn.name())
    R("pow_name", (x ** 2).grad_fn.name())
    R("pow_tensor_name", (x ** x).grad_fn.name())
    R("mean_name", x.mean().grad_fn.name())
    R("matmul_name", (x @ c).grad_fn.name())
    R("sub_name", (x - 1).grad_fn.name())
    R("div_name", (x / 2).grad_fn.name())
    R("neg_name", (-x).grad_fn.name())
    R("view_name", x.view(2, 1).grad_fn.name())
    R("t_name", x.view(2, 1).t().grad_fn.name())
    R("clone_name", x.clone().grad_fn.name())
    R("relu_name", x.relu().grad_fn.name())
    R("sigmoid_name", x.sigmoid().grad_fn.name())
    R("tanh_name", x.tanh().grad_fn.name())
    R("idx_name", x[0].grad_fn.name())
    R("slice_name", x[0:1].grad_fn.name())


def case_node_hooks(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = y.sum()
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append((gi, go)))
    y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    z.backward()
    R("x_grad", x.grad)
    R("seen", seen)


def case_grad_assignment(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.grad = torch.tensor([0.5, 0.5])
    (x * 2).sum().backward()
    R("accumulates_into_assigned", x.grad)
    R.error("wrong_shape", lambda: setattr(x, "grad", torch.tensor([1.0, 2.0, 3.0])))
    R.error("wrong_dtype", lambda: setattr(x, "grad", torch.tensor([1, 2])))
    R.error("wrong_dtype_double", lambda: setattr(x, "grad",
                                                  torch.tensor([1.0, 2.0], dtype=torch.float64)))
    R.error("not_tensor", lambda: setattr(x, "grad", [1.0, 2.0]))
    x.grad = None
    R("none", x.grad)
    del x.grad
    R("deleted", x.grad)
    x.grad = torch.zeros(2)
    x.grad.zero_()
    R("zeroed", x.grad)


def case_autograd_backward_fn(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = x ** 2
    torch.autograd.backward([a, b], [torch.ones(2), torch.tensor([1.0, 0.5])])
    R("two_roots", x.grad)
    x.grad = None
    torch.autograd.backward((x * 3).sum())
    R("scalar_root", x.grad)
    x.grad = None
    torch.autograd.backward(x * 3, grad_tensors=torch.tensor([1.0, -1.0]))
    R("grad_tensors_kw", x.grad)
    R.error("nonscalar", lambda: torch.autograd.backward(x * 3))
    R.error("mismatch_len", lambda: torch.autograd.backward([x * 3, x * 2], [torch.ones(2)]))
    R.error("bad_shape", lambda: (x * 3).backward(torch.ones(3)))
    u = torch.tensor([1.0, 2.0], requires_grad=True)
    x.grad = None
    (x * u).sum().backward(inputs=[u])
    R("inputs_only_u", (x.grad, u.grad))
    R.error("empty_inputs", lambda: (x * u).sum().backward(inputs=[]))


def case_grad_accumulation(torch, R):
    w = torch.tensor([1.0, -1.0], requires_grad=True)
    for i in range(3):
        (w * (i + 1)).sum().backward()
    R("accumulated", w.grad)
    g = w.grad
    (w * 1).sum().backward()
    R("same_object", w.grad is g)
    w.grad.zero_()
    R("zeroed", w.grad)
    w.grad = None
    (w ** 2).sum().backward()
    R("fresh", w.grad)


def case_leafness_and_requires_grad(torch, R):
    a = torch.tensor([1.0, 2.0])
    R("plain_leaf", a.is_leaf)
    b = a.requires_grad_()
    R("same_obj", b is a)
    R("leaf_rg", a.is_leaf)
    c = a * 2
    R("c_leaf", c.is_leaf)
    R("c_rg", c.requires_grad)
    d = c.detach()
    R("d", (d.is_leaf, d.requires_grad, d.grad_fn))
    R.error("nonleaf_off", lambda: c.requires_grad_(False))
    R("nonleaf_on", c.requires_grad_(True) is c)
    e = torch.tensor([1, 2])
    R.error("int_rg", lambda: e.requires_grad_())
    R.error("int_ctor", lambda: torch.tensor([1, 2], requires_grad=True))
    R.error("int_setattr", lambda: setattr(e, "requires_grad", True))
    R.error("numpy_rg", lambda: a.numpy())
    R("numpy_detach", a.detach().numpy().tolist())
    R("zeros_rg", torch.zeros(2, requires_grad=True).requires_grad)
    R("ones_like_rg", torch.ones_like(a).requires_grad)
    R("float_ok", torch.tensor([1.0], dtype=torch.float64, requires_grad=True).requires_grad)
    R("item", (a * 2).sum().item())
    R("tolist", (a * 2).tolist())


def case_detach_shares_version(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    d.add_(1)
    R("y_changed", y)
    x2 = torch.tensor([1.0, 2.0], requires_grad=True)
    s = x2.sigmoid()
    s.detach().zero_()
    R.error("saved_changed_via_detach", lambda: s.sum().backward())




def case_leaf_hook_runs_once_with_inputs(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    x.register_hook(lambda g: calls.append(1) or g * 2)
    (x * x).sum().backward(inputs=[x])
    R("grad", x.grad)
    R("calls", len(calls))
    y = x * 1
    y.register_hook(lambda g: g.double())
    R.error("dtype_change", lambda: y.sum().backward())


CASES = [v for k, v in sorted(globals().items()) if k.startswith("case_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_matches_torch(case):
    compare(case)
