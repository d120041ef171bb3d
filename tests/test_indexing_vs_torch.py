"""Issue 10 item 2: PyTorch's indexing rule (ops/shape/_index_rule.py) against real torch.

Hypothesis draws keys mixing every kind of entry PyTorch takes (ints, slices with steps,
None, ``...``, Python bools, lists of ints and of bools, int and bool tensors of 0, 1 and 2
dims) and some it refuses (out-of-range ints, zero/negative steps, floats, masks of the
wrong shape, too many entries), on shapes with 0-d and size-0/1 dims; each key is used in
getitem and setitem, with gradients, and the two libraries must agree on shapes, values,
view-or-copy, grad_fn names, gradients, versions and exception classes.
"""
import builtins
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import leafgrad

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _cls(e):
    """The built-in exception class an error is (leafgrad's subclass RuntimeError etc.)."""
    for c in type(e).__mro__:
        if getattr(builtins, c.__name__, None) is c:
            return c.__name__
    return type(e).__name__


@st.composite
def _shapes(draw):
    return tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=3)))


@st.composite
def _entry(draw, shape, c):
    """One key entry as a spec (built into torch/leafgrad objects by _build), and the
    number of x's dims it takes."""
    size = shape[c] if c < len(shape) else 2
    kind = draw(st.sampled_from(
        ["int", "int", "slice", "slice", "none", "ell", "list", "blist", "itensor", "btensor",
         "i0d", "b0d", "bool", "bad"]))
    ints = st.integers(-size, size - 1) if size else st.just(0)
    if draw(st.integers(0, 15)) == 0:       # now and then out of range
        ints = st.integers(-size - 2, size + 2)
    if kind == "int":
        return ("int", draw(ints)), 1
    if kind == "slice":
        bound = st.one_of(st.none(), st.integers(-4, 4))
        step = draw(st.sampled_from([None, 1, 2, 3, None, 1, 2, 3, -1, 0]))
        return ("slice", draw(bound), draw(bound), step), 1
    if kind == "none":
        return ("none",), 0
    if kind == "ell":
        return ("ell",), 0
    if kind == "list":
        return ("list", draw(st.lists(ints, max_size=3))), 1
    if kind == "blist":
        n = size if draw(st.integers(0, 7)) else size + 1
        return ("blist", draw(st.lists(st.booleans(), min_size=n, max_size=n))), 1
    if kind == "itensor":
        ishape = draw(st.sampled_from([(1,), (2,), (3,), (0,), (2, 1), (1, 2), (2, 2)]))
        n = int(np.prod(ishape))
        return ("itensor", draw(st.lists(ints, min_size=n, max_size=n)), ishape), 1
    if kind == "btensor":
        d = draw(st.integers(1, max(1, min(2, len(shape) - c))))
        mshape = tuple(shape[c:c + d]) or (1,)
        if draw(st.integers(0, 7)) == 0:
            mshape = mshape[:-1] + (mshape[-1] + 1,)
        n = int(np.prod(mshape))
        return ("btensor", draw(st.lists(st.booleans(), min_size=n, max_size=n)), mshape), d
    if kind == "i0d":
        return ("i0d", draw(ints)), 1
    if kind == "b0d":
        return ("b0d", draw(st.booleans())), 0
    if kind == "bool":
        return ("bool", draw(st.booleans())), 0
    return ("bad", draw(st.sampled_from(["float", "ftensor"]))), 1


@st.composite
def _keys(draw):
    shape = draw(_shapes())
    entries, c = [], 0
    for _ in range(draw(st.integers(1, 4))):
        spec, d = draw(_entry(shape, c))
        entries.append(spec)
        c += d
    form = draw(st.sampled_from(["tuple", "tuple", "single", "list"]))
    if form == "single" or len(entries) == 1:
        form = "single" if form != "tuple" else "tuple"
        entries = entries[:1] if form == "single" else entries
    return shape, form, entries


def _build(T, form, entries):
    def one(e):
        k = e[0]
        if k == "int":
            return e[1]
        if k == "slice":
            return slice(*e[1:])
        if k == "none":
            return None
        if k == "ell":
            return Ellipsis
        if k in ("list", "blist"):
            return list(e[1])
        if k == "itensor":
            return T.tensor(e[1], dtype=T.int64).reshape(e[2])
        if k == "btensor":
            return T.tensor(e[1], dtype=T.bool).reshape(e[2])
        if k == "i0d":
            return T.tensor(e[1])
        if k == "b0d":
            return T.tensor(e[1])
        if k == "bool":
            return e[1]
        return 0.5 if e[1] == "float" else T.tensor([0.0])
    keys = [one(e) for e in entries]
    if form == "single":
        return keys[0]
    return tuple(keys) if form == "tuple" else keys


def _x(T, shape):
    n = int(np.prod(shape)) if shape else 1
    return (T.arange(n, dtype=T.float64) + 1).reshape(shape)


def _get(T, shape, form, entries):
    x = _x(T, shape).requires_grad_()
    try:
        out = x[_build(T, form, entries)]
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return ("raise", _cls(e))
    w = (T.arange(out.numel(), dtype=T.float64) * 3 - 2).reshape(out.shape)
    (out * w).sum().backward()
    return ("ok", tuple(out.shape), out.detach().numpy().copy(), out._base is not None,
            type(out.grad_fn).__name__, x.grad.numpy().copy())


def _compare(a, b):
    assert a[0] == b[0], (a, b)
    if a[0] == "raise":
        assert a[1] == b[1], (a, b)
        return
    assert len(a) == len(b)
    for u, v in zip(a[1:], b[1:]):
        if isinstance(u, np.ndarray):
            np.testing.assert_array_equal(v, u)
        else:
            assert u == v, (a, b)


@settings(max_examples=600, deadline=None)
@given(_keys())
def test_getitem_matches_torch(case):
    shape, form, entries = case
    _compare(_get(torch, shape, form, entries), _get(leafgrad, shape, form, entries))


def _unique_writes(shape, form, entries):
    n = int(np.prod(shape)) if shape else 1
    try:
        pos = torch.arange(n).reshape(shape)[_build(torch, form, entries)]
    except Exception:  # noqa: BLE001
        return True
    return pos.unique().numel() == pos.numel()


def _set(T, shape, form, entries, value_form, unique):
    x = _x(T, shape).requires_grad_()
    y = x * 1
    key = _build(T, form, entries)
    try:
        target = tuple(y.detach()[key].shape)
    except Exception:  # noqa: BLE001
        target = (1,)
    if value_form == "scalar" or not unique:
        v = T.tensor(7.0, dtype=T.float64, requires_grad=True)
    else:
        vshape = target if value_form == "full" else target[1:]
        if value_form == "lead1":
            vshape = (1,) + target
        v = (T.arange(int(np.prod(vshape)) if vshape else 1, dtype=T.float64) * 10 - 5
             ).reshape(vshape).requires_grad_()
    before = y._version
    try:
        y[key] = v
    except Exception as e:  # noqa: BLE001
        return ("raise", _cls(e), y._version - before)
    w = (T.arange(y.numel(), dtype=T.float64) * 3 - 2).reshape(y.shape)
    (y * w).sum().backward()
    return ("ok", y.detach().numpy().copy(), y._version - before, x.grad.numpy().copy(),
            "no grad" if v.grad is None else v.grad.numpy().copy())


@settings(max_examples=400, deadline=None)
@given(_keys(), st.sampled_from(["full", "scalar", "trailing", "lead1"]))
def test_setitem_matches_torch(case, value_form):
    shape, form, entries = case
    unique = _unique_writes(shape, form, entries)
    _compare(_set(torch, shape, form, entries, value_form, unique),
             _set(leafgrad, shape, form, entries, value_form, unique))


def _set_plain(T, shape, form, entries):
    x = _x(T, shape)
    try:
        x[_build(T, form, entries)] = -1.0
    except Exception as e:  # noqa: BLE001
        return ("raise", _cls(e), x._version, x.numpy().copy())
    return ("ok", x._version, x.numpy().copy())


@settings(max_examples=300, deadline=None)
@given(_keys())
def test_setitem_without_graph_matches_torch(case):
    # bad keys change nothing; x[False] = v leaves the version alone
    shape, form, entries = case
    _compare(_set_plain(torch, shape, form, entries), _set_plain(leafgrad, shape, form, entries))


@pytest.mark.parametrize("key", [
    (0, slice(None), [1, 2]), (slice(None), 0, [1, 2]), ([0, 1], slice(None), 0),
    (0, Ellipsis, [1, 2]), ([0, 1], None, [1, 2]), (True, 1, [1, 2]), (1, True),
    (slice(None), [[0], [2]], [1, 3]), (0, [[1, 2]], slice(None, None, 2))])
def test_mixed_int_slice_list_placement(key):
    # the reproducer and its relatives: ints are applied first (PyTorch)
    t = torch.arange(24.0).reshape(2, 3, 4)[key]
    lg = leafgrad.arange(24.0).reshape(2, 3, 4)[key]
    assert tuple(lg.shape) == tuple(t.shape)
    np.testing.assert_array_equal(lg.numpy(), t.numpy())


def test_false_setitem_keeps_version():
    for T in (torch, leafgrad):
        x = T.zeros(3)
        x[False] = 1.0
        x[False] = T.ones(5)        # any value: nothing is written
        assert x._version == 0 and x.sum().item() == 0


def test_empty_list_setitem():
    for T in (torch, leafgrad):
        x = T.zeros(2, 3)
        x[[]] = 1.0
        assert x.sum().item() == 0 and x._version == 1


def test_uint8_and_sequence_warnings():
    for T in (torch, leafgrad):
        x = T.arange(6.0).reshape(2, 3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            x[T.tensor([1, 0], dtype=T.uint8)]
            x[[[0, 1], [1, 2]]]
        assert len(w) == 2 and all(issubclass(i.category, UserWarning) for i in w)


def test_negative_step_message():
    with pytest.raises(ValueError, match="step must be greater than zero.*Fix: "):
        leafgrad.arange(3.0)[::-1]


@pytest.mark.parametrize("key", [
    lambda c: range(2), lambda c: (range(3), [0, 1, 2]), lambda c: range(2, -1, -1),
    lambda c: range(0), lambda c: (range(2), range(1, 3)), lambda c: [range(2), [1, 2]],
    lambda c: c.deque([0, 2]), lambda c: c.deque([[0, 1], [1, 2]]), lambda c: [range(2)],
    lambda c: (slice(None), range(1, 4, 2)),
], ids=["range", "range_list", "range_neg_step", "range_empty", "two_ranges", "list_range",
        "deque", "deque_of_lists", "list_of_range", "slice_range"])
def test_sequence_indices_as_torch(key):
    """Any Python sequence (range, deque) indexes as a list does (makemore's
    ``logprobs[range(n), Yb]``): values, gradient and setitem as PyTorch."""
    import collections
    out = {}
    for T in (torch, leafgrad):
        x = T.arange(12.0).reshape(3, 4).requires_grad_()
        y = x[key(collections)]
        y.sum().backward()
        z = T.zeros(3, 4)
        z[key(collections)] = -1.0
        out[T] = (y.detach().numpy(), x.grad.numpy(), z.numpy())
    for a, b in zip(out[torch], out[leafgrad]):
        np.testing.assert_array_equal(a, b)
        assert a.shape == b.shape


def test_bytes_index_is_type_error():
    with pytest.raises(TypeError):
        torch.arange(3.0)[b"a"]
    with pytest.raises(TypeError, match="bytes"):
        leafgrad.arange(3.0)[b"a"]
