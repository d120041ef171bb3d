"""In-place ops on views of tensors in the graph, and views whose base changed in place.

PyTorch's rules, compared against real torch (gradients, grad_fn names, error classes):
an in-place op on a view gives the base a CopySlices grad_fn (the view's region from the
op, the rest from the base's previous graph); a view whose base (or another view of it)
was changed in place gets its grad_fn regenerated (AsStridedBackward0) when next used.
"""
import pytest

import leafgrad
from _diff import compare


def _x(torch, vals=(1.0, 2.0, 3.0, 4.0)):
    return torch.tensor(list(vals), requires_grad=True)


def _grad_fn_name(t):
    return None if t.grad_fn is None else t.grad_fn.name()


def case_view_mul_(torch, R):
    x = torch.ones(3, requires_grad=True)
    y = x * 2
    y.view(3).mul_(3)
    R("base_fn", _grad_fn_name(y))
    y.sum().backward()
    R("grad", x.grad)


def case_slice_exp_(torch, R):
    x = torch.ones(3, requires_grad=True)
    y = x.clone()
    y[0:2].exp_()
    R("y", y)
    y.sum().backward()
    R("grad", x.grad)


def case_t_sigmoid_(torch, R):
    x = torch.tensor([[0.0, 1.0], [2.0, 3.0]], requires_grad=True)
    y = x * 1
    y.t().sigmoid_()
    (y * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    R("grad", x.grad)


def case_view_row_pow_(torch, R):
    x = _x(torch)
    y = x * 1
    v = y.view(2, 2)
    v[0].pow_(2)
    R("base_fn", _grad_fn_name(y))
    R("view_fn", _grad_fn_name(v))
    y.sum().backward()
    R("grad", x.grad)


def case_select_relu_(torch, R):
    x = torch.tensor([-1.0, 2.0, -3.0, 4.0], requires_grad=True)
    y = x * 1
    torch.nn.functional.relu_(y[0])
    R("y", y)
    (y * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    R("grad", x.grad)


def case_saved_result_of_view_op_then_base_changed(torch, R):
    # relu_ saved its result (the view); changing another element of the base moves
    # the shared version: backward refuses, as in PyTorch
    x = torch.tensor([-1.0, 2.0, -3.0, 4.0], requires_grad=True)
    y = x * 1
    torch.nn.functional.relu_(y[1])
    e = y[3]
    e.mul_(5)
    R("elem_fn", _grad_fn_name(e))
    R.error("backward", lambda: y.sum().backward())


def case_view_ops(torch, R):
    # every kind of view, modified in place, then the base's gradient
    makers = {
        "narrow": lambda y: y.narrow(1, 1, 2),
        "transpose": lambda y: y.transpose(0, 1)[1:],
        "permute": lambda y: y.permute(1, 0)[:, 0],
        "unsqueeze": lambda y: y.unsqueeze(0)[:, 1],
        "squeeze": lambda y: y[1:2].squeeze(0),
        "reshape": lambda y: y.reshape(9)[::4],
        "step": lambda y: y[::2, ::2],
        "neg_step_col": lambda y: y[:, 2],
    }
    for name, make in makers.items():
        x = torch.arange(9.0).reshape(3, 3).requires_grad_()
        y = x * 1
        v = make(y)
        v.mul_(torch.arange(1.0, v.numel() + 1).reshape(v.shape))
        R(name + "_y", y)
        (y * y).sum().backward()
        R(name + "_grad", x.grad)


def case_base_changed_after_view(torch, R):
    x = _x(torch)
    y = x * 1
    a = y[:2]
    y.mul_(10)
    R("a_repr_fn", repr(a).split("grad_fn=")[1])
    R("a_fn", _grad_fn_name(a))
    (a * a).sum().backward()
    R("grad", x.grad)


def case_stale_view_as_root_hook_function_input(torch, R):
    x = _x(torch)
    y = x * 1
    v = y[:2]
    y.mul_(3)
    v.backward(torch.ones(2))               # a stale view as the backward root
    R("root", x.grad)
    x.grad = None
    y = x * 1
    v = y[:2]
    y.mul_(3)
    v.retain_grad()
    (v * v).sum().backward()
    R("retained", v.grad)
    R("grad", x.grad)

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x.grad = None
    y = x * 1
    v = y[:2]
    y.mul_(3)
    Double.apply(v).sum().backward()        # a stale view into a custom Function
    R("function", x.grad)


def case_other_view_changed(torch, R):
    x = _x(torch)
    y = x * 1
    a, b = y[:3], y[1:]
    b.mul_(2)
    R("a", a)
    R("a_fn", _grad_fn_name(a))
    (a * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    R("grad", x.grad)


def case_base_without_grad_gets_grad(torch, R):
    y = torch.ones(4)
    a, v = y[2:], y[:2]
    w = torch.tensor([2.0, 3.0], requires_grad=True)
    v.mul_(w)
    R("base_fn", _grad_fn_name(y))
    R("a_requires_grad", a.requires_grad)
    R("stale_view_fn", _grad_fn_name(a))
    (y * y).sum().backward()
    R("w_grad", w.grad)


def case_two_overlapping_views_chain(torch, R):
    x = _x(torch)
    y = x * 1
    y[:3].mul_(2)
    y[1:].exp_()
    R("y", y)
    (y * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    R("grad", x.grad)


def case_view_of_view(torch, R):
    x = torch.arange(1.0, 7.0).requires_grad_()
    y = x * 1
    v = y.view(2, 3)
    w = v[1]
    u = w[1:]
    u.pow_(2)
    R("fns", [_grad_fn_name(t) for t in (y, v, w, u)])
    (y * y).sum().backward()
    R("grad", x.grad)


def case_non_contiguous_base(torch, R):
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    y = x.t() * 1          # the result keeps the transposed strides
    R("contiguous", y.is_contiguous())
    y[1].mul_(3)
    y[:, 0].sigmoid_()
    (y * torch.arange(6.0).reshape(3, 2)).sum().backward()
    R("grad", x.grad)


def case_setitem_and_augmented(torch, R):
    x = _x(torch)
    y = x * 1
    y[1:3] *= 2
    y[0] += y[3]
    R("fn", _grad_fn_name(y))
    R("repr_fn", repr(y).split("grad_fn=")[1])
    (y * y).sum().backward()
    R("grad", x.grad)


def case_more_inplace_ops_on_views(torch, R):
    W = torch.tensor([1.0, 2.0, 3.0, 4.0])
    x = _x(torch)
    y = x * 1
    v = y[:3]
    w = torch.tensor(5.0, requires_grad=True)
    v[1] = w                                  # setitem on a view
    R("setitem_fns", [_grad_fn_name(y), _grad_fn_name(v)])
    (y * W).sum().backward()
    R("setitem", [x.grad, w.grad])
    x = _x(torch)
    y = x * 1
    w = torch.tensor([7.0, 8.0], requires_grad=True)
    y[:2].copy_(w)
    y[2:].fill_(3.0)
    y[3:].zero_()
    y[1:].clamp_(max=2.5)
    y[:2].add_(y[2:].detach() * 0 + 1, alpha=2)
    (y * W * y).sum().backward()
    R("copy_fill_zero_clamp_add", [y, x.grad, w.grad])
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    y = x * 1
    y[0, 1].mul_(3)
    y[1][0].div_(2)
    (y * y).sum().backward()
    R("float64_select", x.grad)
    x = _x(torch)
    y = x.unsqueeze(0) * 1
    y.squeeze(0)[1:3].neg_()
    y.view(2, 2).t()[0].mul_(torch.tensor([2.0, 3.0]))
    (y * W).sum().backward()
    R("squeeze_t", x.grad)


def case_create_graph_through_copyslices(torch, R):
    x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
    y = x * x
    y[:2].exp_()
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    R("g", g)
    R("g_fn", g.requires_grad)
    g.sum().backward()
    R("grad2", x.grad)


def case_retain_graph_double_backward(torch, R):
    x = _x(torch)
    y = x * 2
    y.view(2, 2)[1].mul_(y.view(2, 2)[0].detach() + 1)
    s = (y * y).sum()
    s.backward(retain_graph=True)
    R("grad1", x.grad.clone())
    s.backward()
    R("grad2", x.grad)


def case_inplace_uses_its_own_detached_view(torch, R):
    x = torch.ones(3, requires_grad=True)
    y = x * 1
    y[1:].mul_(y[1:].detach())
    R.error("backward", lambda: y.sum().backward())


def case_view_of_leaf_raises(torch, R):
    x = torch.ones(3, requires_grad=True)
    R.error("slice", lambda: x[0:2].mul_(2))
    R.error("view", lambda: x.view(3).exp_())
    R("unchanged", x)
    with torch.no_grad():
        x[0:2].mul_(2)
    R("no_grad_ok", x)


def case_no_grad_views(torch, R):
    x = torch.ones(3, requires_grad=True)
    y = x * 1
    with torch.no_grad():
        v = y[:2]
    R.error("inplace_on_no_grad_view", lambda: v.mul_(2))
    with torch.no_grad():
        v2 = y[1:]
        v2.mul_(2)          # both in no_grad: allowed, not recorded
    R("y", y)
    with torch.no_grad():
        v3 = y[:1]
    y.mul_(2)
    R.error("stale_no_grad_view", lambda: v3.grad_fn)
    z = torch.ones(3)
    with torch.no_grad():
        zv = z[:2]
    zv.mul_(2)              # nothing requires grad: allowed
    R("z", z)
    R.error("no_grad_view_other_requires_grad",
            lambda: zv.mul_(torch.ones(2, requires_grad=True)))


def case_multi_output_views_raise(torch, R):
    x = _x(torch)
    y = x * 1
    a, _ = y.split(2)
    R.error("split", lambda: a.mul_(2))
    b = y.unbind(0)[1]
    R.error("unbind", lambda: b.mul_(2))


def case_expand_view_raises(torch, R):
    x = _x(torch)
    y = x * 1
    R.error("expand", lambda: y.expand(2, 4).mul_(2))


def case_leaf_view_after_no_grad_update(torch, R):
    p = _x(torch)
    v = p[1:3]
    with torch.no_grad():
        p.mul_(2)
    R("fn", _grad_fn_name(v))
    (v * v).sum().backward()
    R("grad", p.grad)


def case_no_views_fast_path_unchanged(torch, R):
    x = _x(torch)
    y = x * 3
    y.mul_(2)
    y.add_(1)
    R("fn", _grad_fn_name(y))
    z = y.view(2, 2)       # a view made after the in-place ops is an ordinary view
    R("view_fn", _grad_fn_name(z))
    (z * z).sum().backward()
    R("grad", x.grad)


def case_0d_view1_mul_(torch, R):
    # an in-place op on a (1,) view of a 0-d tensor in the graph
    x = torch.tensor(2.0, requires_grad=True)
    y = x * 1
    v = y.view(1)
    v.mul_(3)
    R("y", y)
    R("base_fn", _grad_fn_name(y))
    R("view_fn", _grad_fn_name(v))
    (y * 5).backward()
    R("grad", x.grad)


def case_0d_views_readable_after_inplace(torch, R):
    # 0-d views (x[...], x.view(())) of a 0-d tensor changed in place are regenerated
    x = torch.tensor(2.0, requires_grad=True)
    y = x * 1
    a, b, c = y[...], y.view(()), y[None]
    y.mul_(3)
    R("a", a * 1)
    R("b", b + 0)
    R("c", c * 1)
    R("fns", [_grad_fn_name(t) for t in (a, b, c)])
    (a * b * c.sum()).backward()
    R("grad", x.grad)


def case_0d_view_changed_base_sees_it(torch, R):
    x = torch.tensor(2.0, requires_grad=True)
    y = x * 1
    y[...].add_(1)
    y.view(1)[0].mul_(4)
    R("y", y)
    (y ** 2).backward()
    R("grad", x.grad)


def case_unbind_outputs_are_views(torch, R):
    x = torch.zeros(3)
    a, b, c = x.unbind()
    b.add_(5)
    R("x", x)
    R("versions", [x._version, a._version, b._version])
    y = torch.zeros(2, 3)
    r0, r1 = y.unbind(0)
    r1.mul_(0).add_(2)
    y[0, 1] = 7
    R("y", y)
    R("r0", r0)
    R("version", r0._version)


def case_unbind_inplace_in_graph_refused(torch, R):
    # PyTorch: an output of a multi-view op that requires grad cannot be changed in place
    x = torch.ones(2, 3, requires_grad=True)
    a, b = (x * 2).unbind()
    try:
        a.mul_(2)
        R("raised", None)
    except RuntimeError as e:
        R("raised", type(e).__name__)
    with torch.no_grad():
        c, d = (x * 2).unbind()
    d.zero_()
    R("d", d)


def case_unbind_base_change_seen(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    a, b = y.unbind()
    y.mul_(2)
    try:        # PyTorch refuses a multi-output view whose base changed in place
        a * 1
        R("raised", None)
    except RuntimeError as e:
        R("raised", type(e).__name__)
    y.sum().backward()
    R("grad", x.grad)


CASES = [f for n, f in sorted(globals().items()) if n.startswith("case_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_matches_torch(case):
    compare(case)


def test_hot_path_keeps_views_unmarked_when_not_stale():
    x = leafgrad.ones(4, requires_grad=True)
    y = x * 1
    v = y[:2]
    fn = v._grad_fn
    (v * 2).sum()          # using a fresh view does not regenerate its grad_fn
    assert v._grad_fn is fn and v.grad_fn.name() == "SliceBackward0"



def _stale_split_view_answers(T):
    x = T.ones(2, 2, requires_grad=True).clone()
    a, _ = x.split([1, 1])
    x.mul_(2)
    out = {"requires_grad": a.requires_grad, "repr": repr(a), "values": a.detach().tolist()}
    for name, f in (("is_leaf", lambda: a.is_leaf), ("grad_fn", lambda: a.grad_fn),
                    ("use", lambda: a * 2)):
        try:
            f()
            out[name] = None
        except RuntimeError as e:
            out[name] = str(e).split(". ")[0]
    return out


def test_stale_multi_output_view_answers_requires_grad_and_repr_as_torch():
    # PyTorch answers requires_grad from the stored flag and prints grad_fn=<Invalid>;
    # grad_fn, is_leaf and any use raise (found by the fuzzer's index_reduce_ row)
    import torch
    lg, t = _stale_split_view_answers(leafgrad), _stale_split_view_answers(torch)
    assert lg == t


def _derived_view_refusals(T):
    x = T.ones(3, 3, requires_grad=True).clone()
    a, b = x.split([1, 2])
    with T.no_grad():
        h = a.view(3)
    calls = [lambda: a.diagonal().zero_(), lambda: a.view(3).mul_(2), lambda: a[0].add_(1),
             lambda: b.t()[0].add_(1), lambda: h.add_(1),
             lambda: x.unbind(0)[0].unsqueeze(0).mul_(2)]
    out = []
    for f in calls:
        try:
            f()
            out.append(None)
        except RuntimeError as e:
            out.append(str(e).split(". ")[0])
    return out


def test_views_of_multi_output_views_refuse_inplace_as_torch():
    # PyTorch's CreationMeta carries MULTI_OUTPUT_NODE to views of such views, named after
    # the new view's own op (found by the fuzzer: split_with_sizes, then diagonal().zero_())
    import torch
    assert _derived_view_refusals(leafgrad) == _derived_view_refusals(torch)
