"""torch.gradient against PyTorch 2.13: every overload (spacing a number, a list of
numbers, a list of 1-D coordinate tensors; dim an int, a list or None; edge_order 1 and 2)
on hypothesis-drawn shapes, float32/float64/int64 inputs: values, dtypes, first- and
second-order gradients (w.r.t. the input and the coordinates), and PyTorch's errors."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad


@st.composite
def _case(draw):
    nd = draw(st.integers(1, 3))
    edge = draw(st.sampled_from([1, 2]))
    shape = tuple(draw(st.lists(st.integers(edge + 1, 6), min_size=nd, max_size=nd)))
    kw = {"edge_order": edge} if draw(st.booleans()) or edge == 2 else {}
    how = draw(st.sampled_from(["none", "int", "list"]))
    dims = list(range(nd))
    if how == "int":
        kw["dim"] = draw(st.integers(-nd, nd - 1))
        dims = [kw["dim"] % nd]
    elif how == "list":
        dims = draw(st.permutations(range(nd)))[:draw(st.integers(0, nd))]
        kw["dim"] = [d - nd if draw(st.booleans()) else d for d in dims]
    spacing = draw(st.sampled_from(["none", "number", "numbers", "coords"]))
    step = st.one_of(st.integers(1, 3), st.floats(0.1, 4.0), st.floats(-4.0, -0.1))
    if spacing == "number":
        kw["spacing"] = draw(step)
    elif spacing == "numbers":
        kw["spacing"] = [draw(step) for _ in dims]
    elif spacing == "coords":
        kw["spacing"] = [("coords", shape[d]) for d in dims]
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64]))
    return shape, kw, dtype, draw(st.integers(0, 2 ** 31))


def _run(T, x, kw, coords, second):
    grad = x.dtype.kind == "f"
    xi = T.tensor(x, requires_grad=grad)
    cs = [T.tensor(c, requires_grad=True) for c in coords]
    if coords:
        kw = dict(kw, spacing=[c.cumsum(0) for c in cs])
    out = T.gradient(xi * xi if grad else xi, **kw)     # a square: nonzero second order
    if not grad:
        return out, ()
    rng = np.random.default_rng(7)
    loss = sum((o * T.tensor(rng.uniform(0.5, 1.5, tuple(o.shape)), dtype=o.dtype)).sum()
               for o in out)
    if not out:
        return out, ()
    gs = T.autograd.grad(loss, [xi] + cs, create_graph=second, allow_unused=True)
    if not second:
        return out, gs
    gg = T.autograd.grad(sum((g * g).sum() for g in gs if g is not None), [xi] + cs,
                         allow_unused=True)
    return out, tuple(gs) + tuple(gg)


def _np(t):
    return None if t is None else t.detach().numpy()


@settings(max_examples=200, deadline=None)
@given(case=_case())
def test_gradient_matches_torch(case):
    shape, kw, dtype, seed = case
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=shape) * 3).astype(dtype)
    sp = kw.get("spacing")
    coords = []
    if isinstance(sp, list) and sp and isinstance(sp[0], tuple):
        coords = [rng.uniform(0.3, 2.0, n) for _, n in sp]
        kw = {k: v for k, v in kw.items() if k != "spacing"}
    second = dtype == np.float64
    want = _run(torch, x, kw, coords, second)
    got = _run(leafgrad, x, kw, coords, second)
    tol = 1e-10 if dtype != np.float32 else 1e-5
    assert len(got[0]) == len(want[0]) and len(got[1]) == len(want[1])
    for g, t in zip(got[0] + tuple(got[1]), want[0] + tuple(want[1])):
        assert (g is None) == (t is None)
        if t is not None:
            assert str(g.dtype) == str(t.dtype) and tuple(g.shape) == tuple(t.shape)
            # sums of terms of opposite signs: the rounding is relative to the array's scale
            scale = max(1.0, float(np.abs(_np(t)).max(initial=0)))
            np.testing.assert_allclose(_np(g), _np(t), rtol=tol, atol=tol * scale)


def test_coordinates_broadcast_as_torch():
    """Coordinates longer than the dim broadcast in PyTorch's formula (a (n-1, 1) weight
    against (1, m) slices): the same shapes and values here."""
    t = np.arange(12.0).reshape(3, 4) ** 2
    for c in ([0.0, 1, 3, 5], [0.0, 1, 1]):
        want = torch.gradient(torch.tensor(t), spacing=[torch.tensor(c)], dim=0)
        got = leafgrad.gradient(leafgrad.tensor(t), spacing=[leafgrad.tensor(c)], dim=0)
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())


def test_degenerate_inputs_match_torch():
    for T in (torch, leafgrad):
        assert T.gradient(T.tensor(3.0)) == ()
        assert T.gradient(T.ones(3, 4), dim=[]) == ()
    got = leafgrad.gradient(leafgrad.arange(6.0) ** 2, spacing=0)
    want = torch.gradient(torch.arange(6.0) ** 2, spacing=0)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    c = leafgrad.gradient(leafgrad.tensor([1 + 2j, 3 - 1j, 0.5j]))
    w = torch.gradient(torch.tensor([1 + 2j, 3 - 1j, 0.5j]))
    np.testing.assert_allclose(c[0].numpy(), w[0].numpy())
    assert str(leafgrad.gradient(leafgrad.ones(3, dtype=leafgrad.float16))[0].dtype) == \
        str(torch.gradient(torch.ones(3, dtype=torch.float16))[0].dtype)


_ERRORS = [
    ("positional spacing", lambda T, t: T.gradient(t, 2.0)),
    ("short spacing list", lambda T, t: T.gradient(t, spacing=(2.0,))),
    ("spacing vs dim", lambda T, t: T.gradient(t, spacing=[1.0, 2.0], dim=1)),
    ("spacing vs dims", lambda T, t: T.gradient(t, spacing=[1.0], dim=[0, 1])),
    ("repeated dim", lambda T, t: T.gradient(t, dim=[0, 0])),
    ("dim out of range", lambda T, t: T.gradient(t, dim=2)),
    ("dims out of range", lambda T, t: T.gradient(t, dim=[2])),
    ("edge_order 3", lambda T, t: T.gradient(t, edge_order=3)),
    ("edge_order 0", lambda T, t: T.gradient(t, edge_order=0)),
    ("too short for edge_order 2", lambda T, t: T.gradient(t[:2], edge_order=2)),
    ("too short", lambda T, t: T.gradient(t[:1])),
    ("2-D coordinates", lambda T, t: T.gradient(t, spacing=[T.ones(1, 3)], dim=0)),
    ("0-d coordinates", lambda T, t: T.gradient(t, spacing=[T.tensor(1.0), T.tensor(2.0)])),
    ("mixed spacing", lambda T, t: T.gradient(t, spacing=[T.tensor([0.0, 1, 3]), 2.0])),
    ("uint8", lambda T, t: T.gradient(t.to(T.uint8))),
    ("bool", lambda T, t: T.gradient(t.bool())),
    ("no method", lambda T, t: t.gradient()),
]


@pytest.mark.parametrize("name,call", _ERRORS, ids=[n for n, _ in _ERRORS])
def test_errors_match_torch(name, call):
    with pytest.raises(Exception) as want:
        call(torch, torch.arange(12.0).reshape(3, 4))
    with pytest.raises(want.type) as got:
        call(leafgrad, leafgrad.arange(12.0).reshape(3, 4))
    if want.type is RuntimeError and "torch.gradient" in str(want.value):
        assert str(got.value).startswith(str(want.value).split(". Fix")[0][:60])
