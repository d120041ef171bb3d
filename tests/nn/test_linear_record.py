"""``ops.linalg._linear_record.record_linear`` (linear's node set in one step) leaves the state
the generic path left: ``record`` over (bias, input, weight) and the weight's edge
swapped for a ``TBackward0`` node, field by field; gradients as PyTorch's."""
import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.ops import _dispatch as D
from leafgrad.ops.linalg import products as L
from leafgrad.ops.linalg._linear_record import weight_edge

NODE_FIELDS = ("_e0", "_n0", "needs_input_grad", "_metas", "_versions_saved", "_out",
               "_out_version", "args", "_released", "_extra", "_saved")


def _generic(x, w, b):
    """linear's recording before record_linear: record, then the weight's edge replaced."""
    out = np.matmul(x._data, w._data.T)
    if b is not None:
        out += b._data
    cls = (L.LinearAddmm if b is not None else L.LinearMm) if x.dim() == 2 else \
        (L.LinearView if b is not None else L.LinearUnsafeView)
    res = D.record(cls, out, (x, w) if b is None else (b, x, w), saved=(x, w))
    node = res._grad_fn
    node._edges = node._edges[:-2] + weight_edge(w)
    node._metas = node._metas[:-1] + (None,)
    return res


def _state(res):
    node = res._grad_fn
    st = {f: getattr(node, f, "<unset>") for f in NODE_FIELDS}
    st["type"] = type(node)
    edges = node._edges
    st["edges"] = edges[:-2]
    tn = edges[-2]
    st["t"] = (type(tn), tn._edges, tn.needs_input_grad, tn._metas, tn._saved, tn.args,
               tn._seq > node._seq)
    st["saved"] = node._raw_saved()
    st["metas_none"] = all(m is None for m in node._metas)
    st.pop("_metas")
    st["metas"] = tuple(node._metas)
    return st


def _cases():
    lf = leafgrad.tensor
    for xrg in (False, True):
        for brg in (None, False, True):
            for nonleaf in (False, True):
                for xshape in ((4, 3), (2, 4, 3)):
                    yield xrg, brg, nonleaf, xshape


@pytest.mark.parametrize("xrg,brg,nonleaf,xshape", list(_cases()))
def test_same_state_as_generic_record(xrg, brg, nonleaf, xshape):
    rng = np.random.default_rng(0)
    x = leafgrad.tensor(rng.standard_normal(xshape).astype(np.float32), requires_grad=xrg)
    w = leafgrad.tensor(rng.standard_normal((5, 3)).astype(np.float32), requires_grad=True)
    if nonleaf:
        w = w * 1.0
        if xrg:
            x = x * 1.0
    b = None if brg is None else leafgrad.tensor(rng.standard_normal(5).astype(np.float32),
                                                   requires_grad=brg)
    fast = leafgrad.nn.functional.linear(x, w, b)
    slow = _generic(x, w, b)
    a, s = _state(fast), _state(slow)
    assert a == s
    np.testing.assert_array_equal(fast._data, slow._data)
    assert fast.grad_fn.name() == slow.grad_fn.name()


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("xshape", [(6, 3), (2, 6, 3), (3,)])
def test_grads_as_torch(bias, xshape):
    rng = np.random.default_rng(1)
    xs = rng.standard_normal(xshape).astype(np.float32)
    ws = rng.standard_normal((4, 3)).astype(np.float32)
    bs = rng.standard_normal(4).astype(np.float32)
    res = []
    for m in (leafgrad, torch):
        x = m.tensor(xs, requires_grad=True)
        w = m.tensor(ws, requires_grad=True)
        b = m.tensor(bs, requires_grad=True) if bias else None
        y = m.nn.functional.linear(x, w, b)
        fn = y.grad_fn
        names = (fn.name(), [f.name() if f is not None else None
                             for f, _ in fn.next_functions])
        (y * y).sum().backward()
        res.append((names, y.detach().numpy(), x.grad.numpy(), w.grad.numpy(),
                    None if b is None else b.grad.numpy()))
    (n1, *a1), (n2, *a2) = res
    if len(xshape) == 2:    # (3-D inputs: one fused node named as PyTorch's first)
        assert n1 == n2
    for p, q in zip(a1, a2):
        if p is not None:
            np.testing.assert_allclose(p, q, rtol=1e-5, atol=1e-6)


def test_frozen_weight_and_no_grad():
    x = leafgrad.randn(4, 3, requires_grad=True)
    lin = leafgrad.nn.Linear(3, 2)
    lin.weight.requires_grad_(False)
    y = lin(x)
    assert [f.name() if f is not None else None for f, _ in y.grad_fn.next_functions] == \
        ["torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad", None]
    with leafgrad.no_grad():
        assert lin(x).grad_fn is None
