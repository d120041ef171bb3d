"""In-place ops: leaf checks, version counters, views, recorded in-place ops."""
import pytest

import leafgrad
import torch
from _diff import compare

OPS = {
    "add_": lambda t: t.add_(1.0),
    "sub_": lambda t: t.sub_(0.5),
    "mul_": lambda t: t.mul_(2.0),
    "div_": lambda t: t.div_(2.0),
    "clamp_": lambda t: t.clamp_(min=0.5),
    "zero_": lambda t: t.zero_(),
    "fill_": lambda t: t.fill_(0.25),
    "relu_": lambda t: t.relu_(),
    "sigmoid_": lambda t: t.sigmoid_(),
    "tanh_": lambda t: t.tanh_(),
    "exp_": lambda t: t.exp_(),
    "neg_": lambda t: t.neg_(),
    "pow_": lambda t: t.pow_(2),
    "add_tensor_alpha": lambda t: t.add_(t.detach() * 0 + 1, alpha=3),
}


def case_inplace_on_leaf_raises(torch, R):
    for name, op in OPS.items():
        w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
        R.error(name, lambda: op(w))
        R("unchanged_" + name, w)
        R("version_" + name, w._version)
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    R.error("copy_", lambda: w.copy_(torch.tensor([0.0, 0.0, 0.0])))
    R("unchanged_copy_", w)

    def setitem():
        w[0] = 5.0

    def setitem_slice():
        w[1:] = torch.tensor([0.0, 0.0])

    def plus_equals():
        v = w
        v += 1

    def times_equals():
        v = w
        v *= 2

    for name, fn in [("setitem", setitem), ("setitem_slice", setitem_slice),
                     ("plus_equals", plus_equals), ("times_equals", times_equals)]:
        R.error(name, fn)
        R("unchanged_" + name, w)
    R.error("view_of_leaf", lambda: w[0:2].mul_(2))
    R.error("view_of_leaf2", lambda: w.view(3, 1).add_(1))
    R("unchanged_views", w)


def case_inplace_allowed(torch, R):
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        for name, op in OPS.items():
            op(w)
            R("no_grad_" + name, w)
        w[0] = 0.5
        w += 1
        w.copy_(torch.tensor([0.1, 0.2, 0.3]))
        w[1:].mul_(10)
    R("after_no_grad", w)
    R("still_leaf", (w.is_leaf, w.requires_grad, w.grad_fn))
    w.data.mul_(2)
    R("data_update", w)
    (w * w).sum().backward()
    R("grad", w.grad)
    w.requires_grad_(False)
    w.add_(1)
    R("after_requires_grad_false", w)
    plain = torch.tensor([1.0, 2.0])
    plain.add_(1).mul_(3)
    R("plain_chain", plain)
    with torch.no_grad():
        p = torch.tensor([1.0, 2.0], requires_grad=True)
        p -= 0.1 * torch.tensor([1.0, 1.0])
    R("sgd_step", (p, p.requires_grad, p.is_leaf))


def case_inplace_on_intermediate(torch, R):
    for name, op in OPS.items():
        if name in ("zero_", "fill_"):
            continue
        x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x * 3
        op(y)
        R("fn_" + name, y.grad_fn.name())
        (y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
        R("grad_" + name, x.grad)
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * 3
    y.zero_()
    R("zero_fn", y.grad_fn.name())
    y.sum().backward()
    R("zero_grad", x.grad)
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * 3
    y += x
    R("iadd_fn", y.grad_fn.name())
    y.sum().backward()
    R("iadd_grad", x.grad)
    x.grad = None
    y = x * 1
    y[0] = x[1] * 10
    R("setitem_fn", y.grad_fn.name())
    y.sum().backward()
    R("setitem_grad", x.grad)
    x.grad = None
    a = torch.zeros(3)
    a.add_(x)
    R("plain_becomes_nonleaf", (a.requires_grad, a.is_leaf, a.grad_fn.name()))
    (a * a).sum().backward()
    R("plain_add_grad", x.grad)
    x.grad = None
    b = torch.zeros(3)
    b[1] = x[0]
    R("plain_setitem", (b.requires_grad, b.grad_fn.name()))
    b.sum().backward()
    R("plain_setitem_grad", x.grad)
    x.grad = None
    c = torch.zeros(3)
    c.copy_(x * 2)
    c.sum().backward()
    R("copy_grad", x.grad)


def case_saved_tensor_modified(torch, R):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    R.error("sigmoid_result", lambda: y.sum().backward())
    m = x * 1
    z = m * m
    m.add_(1)
    R.error("mul_input", lambda: z.sum().backward())
    e = x.exp()
    e.exp_()
    R.error("exp_exp_", lambda: e.sum().backward())
    t = x.tanh()
    t.relu_()
    R.error("tanh_then_relu_", lambda: t.sum().backward())
    m2 = x * 1
    p = m2 ** 2
    m2[0] = 0.0
    R.error("setitem_saved", lambda: p.sum().backward())
    m3 = x * 1
    q = m3.pow(3)
    m3[1:].zero_()
    R.error("view_modifies_base", lambda: q.sum().backward())
    m4 = x * 1
    v = m4[0:2]
    r = (v * v).sum()
    m4.mul_(2)
    R.error("base_modifies_view", lambda: r.backward())
    # not saved: fine
    m5 = x * 1
    s = m5 + 1
    m5.mul_(5)
    s.sum().backward()
    R("unsaved_ok", x.grad)
    # saved then restored by another in-place: still an error (versions only grow)
    x.grad = None
    m6 = x * 1
    u = m6 * m6
    m6.add_(1)
    m6.sub_(1)
    R.error("restored_still_error", lambda: u.sum().backward())
    # relu_ on its own output saved by relu: ok
    m7 = x * 1
    m7.relu_()
    m7.sum().backward()
    R("relu_inplace_ok", x.grad)
    # weight modified after forward (optimizer step before backward)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    out = (w * torch.tensor([3.0, 4.0])).sum() + (w ** 2).sum()
    with torch.no_grad():
        w.add_(1)
    R.error("leaf_modified_under_no_grad", lambda: out.backward())


def case_versions_shared_with_views(torch, R):
    def ver(t):
        v = t._version
        return v if isinstance(v, int) else v[0]

    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    v = x[0]
    vv = x.view(4)
    t = x.t()
    d = x.detach()
    R("start", [ver(x), ver(v), ver(vv), ver(t), ver(d)])
    v.add_(1)
    R("after_view_add", [ver(x), ver(v), ver(vv), ver(t), ver(d)])
    x.mul_(2)
    R("after_base_mul", [ver(x), ver(v), ver(vv), ver(t), ver(d)])
    x[1, 1] = 0.0
    R("after_setitem", [ver(x), ver(v), ver(vv), ver(t), ver(d)])
    R("values", (x, v, vv, t, d))
    c = x.clone()
    c.add_(1)
    R("clone_independent", [ver(x), ver(c)])
    y = x + 1
    R("new_tensor_version", ver(y))
    y += 1
    y.zero_()
    y.fill_(2.0)
    y.copy_(x)
    y.clamp_(max=3.0)
    R("counted", ver(y))


def case_inplace_errors_other(torch, R):
    x = torch.tensor([1.0, 2.0, 3.0])
    R.error("shape_change", lambda: x.add_(torch.ones(2, 3)))
    i = torch.tensor([1, 2, 3])
    R.error("int_div_", lambda: i.div_(2))
    R.error("int_mul_float", lambda: i.mul_(1.5))
    e = torch.tensor([1.0]).expand(3)
    R.error("expanded", lambda: e.add_(1))


CASES = [v for k, v in sorted(globals().items()) if k.startswith("case_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_matches_torch(case):
    compare(case)


def test_saved_modified_message_names_shape_op_and_versions():
    x = leafgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    with pytest.raises(RuntimeError) as ei:
        y.sum().backward()
    msg = str(ei.value)
    assert isinstance(ei.value, leafgrad.SavedTensorModifiedError)
    for part in ("[torch.FloatTensor [3]]", "SigmoidBackward0", "is at version 1",
                 "expected version 0", "clone()"):
        assert part in msg, (part, msg)


def test_inplace_leaf_message_names_fix():
    w = leafgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError) as ei:
        w.add_(1)
    assert isinstance(ei.value, leafgrad.InplaceLeafError)
    assert "torch.no_grad()" in str(ei.value)


@pytest.mark.parametrize("case", ["saved_nonleaf", "saved_constant"])
def test_saved_modified_first_sentence_is_torch_text(case):
    # PyTorch names the op that now makes the tensor ("which is output 0 of Add,")
    msgs = []
    for T in (leafgrad, torch):
        w = T.ones(3, requires_grad=True)
        if case == "saved_nonleaf":
            y = w.sigmoid()
            z = y * y
            y.add_(1)
        else:
            c = T.ones(3)
            z = w * c
            c.add_(1)
        with pytest.raises(RuntimeError) as ei:
            z.sum().backward()
        msgs.append(str(ei.value).split(" instead.")[0])
    assert msgs[0] == msgs[1]
