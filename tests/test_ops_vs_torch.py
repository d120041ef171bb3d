"""Differential tests: every row of tests/op_table.py against real PyTorch.

For each row, hypothesis draws shapes (broadcasting pairs, 0-d and
1-element shapes included) and parameters; values come from NumPy with a
drawn seed. Checked against torch: forward values, dtype, shape and
requires_grad of every output; the gradient w.r.t. every input of a random
weighted sum of the outputs; and (where the row says so) the gradient of a
random weighted sum of those gradients (create_graph=True). Separately,
leafgrad's float64 gradients are checked against central differences.
"""
import inspect
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import leafgrad
from leafgrad.nn import functional as F_lg
from leafgrad.ops.nn import padding as functional_pad
from leafgrad.ops.nn import activation, conv, distance, embedding, loss, normalization, pooling
from leafgrad.ops.elementwise import (binary, comparison, complex as complex_ops, pointwise, special,
                                      bessel as special_bessel, special_binary,
                                      polynomials as special_poly, unary)
from leafgrad.ops.linalg import (blas, products as linalg, inverse_det as linalg_fns, norms,
                                 vander)
from leafgrad.ops.fft import spectral as fft_spectral, transforms as fft_transforms
from leafgrad.ops.reduce import (cumulative, gradient as reduce_gradient, quantile, reduction,
                                 stats, variance)
from leafgrad.ops import elementwise
from leafgrad.ops.shape import (indexed_writes as index_extra, indexing, joins, views as shape,
                                rearrange, sorting, splits, diagonals, combinations,
                                view_scatters, indexed_reduce)
from leafgrad.ops.inplace import arithmetic as inplace, writes as inplace_write
from leafgrad.ops.nn import (activation_inplace, grid_sample, channel_shuffle, dropout,
                             pooling_lp_unpool as pool_extra,
                             pooling_fractional as pool_fractional)

from op_table import DOMAINS, EXEMPT, FAMILIES, ROWS, _bcast, _same

FWD_TOL = dict(rtol=1e-5, atol=1e-6)
GRAD_TOL = dict(rtol=1e-4, atol=1e-5)
GRAD2_TOL = dict(rtol=1e-4, atol=1e-4)
F64_TOL = dict(rtol=1e-7, atol=1e-9)


def _gen(row):
    if row.gen is not None:
        return row.gen
    return _bcast(row.arity) if row.broadcasts else _same(row.arity)


def _draw(data, row):
    shapes, kw = data.draw(_gen(row), label="shapes, params")
    assert row.variadic or len(shapes) == row.arity, (row.name, shapes)
    seed = data.draw(st.integers(0, 2 ** 32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(DOMAINS[d](rng, s), dtype=np.float64)
              for d, s in zip(row.domains_for(len(shapes)), shapes)]
    return arrays, kw, rng


def _flat(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flat(o))
        return res
    return [out]


def _run(T, row, arrays, kw, npdtype):
    xs = [T.tensor(a.astype(npdtype), requires_grad=True) for a in arrays]
    return xs, _flat(row.fn(T, *xs, **kw))


def _np(t):
    if t is None:
        return None
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True)
    return np.asarray(t._data)


def _close(a, b, tol, what):
    a, b = _np(a), _np(b)
    if a is None and b is None:
        return
    # an unused input: None on one side is a zero gradient
    if a is None:
        a = np.zeros_like(b)
    if b is None:
        b = np.zeros_like(a)
    assert a.shape == b.shape, "%s: shape %s vs torch %s" % (what, a.shape, b.shape)
    if a.dtype == np.bool_ or a.dtype.kind in "iu":
        np.testing.assert_array_equal(a, b, err_msg=what)
    else:
        np.testing.assert_allclose(a, b, equal_nan=True, err_msg=what, **tol)


def _weights(outs, rng):
    return [rng.uniform(0.5, 1.5, tuple(o.shape)).astype(np.float32) for o in outs]


def _wsum(T, ts, ws):
    """sum_k (t_k * w_k).sum() over the tensors that require grad (None if none)."""
    total = None
    for t, w in zip(ts, ws):
        if t is None or not t.requires_grad:
            continue
        term = (t * T.tensor(w).to(t.dtype)).sum()
        total = term if total is None else total + term
    return total


def _grads(T, loss, xs, create_graph):
    if loss is None:
        return [None] * len(xs)
    return list(T.autograd.grad(loss, xs, create_graph=create_graph, allow_unused=True))


class _Raised:
    def __init__(self, exc):
        self.exc = exc


def _both(f_torch, f_leafgrad):
    """(torch result, leafgrad result); when torch raises, leafgrad must raise the same
    exception class, and the pair (None, _Raised) is returned."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            t = f_torch()
    except Exception as e:
        with pytest.raises(type(e)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                f_leafgrad()
        return None, _Raised(e)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return t, f_leafgrad()


def _kw_as(kw, npdtype):
    """Float arrays among the parameters (class weights, running stats) in ``npdtype``."""
    def conv(v):
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            return v.astype(npdtype)
        if isinstance(v, tuple):
            return tuple(conv(e) for e in v)
        return v
    return {k: conv(v) for k, v in kw.items()}


def _compare(row, arrays, kw, seed, npdtype, second_order, fwd_tol, grad_tol, grad2_tol):
    rng = np.random.default_rng(seed)
    kw = _kw_as(kw, npdtype)
    t, lres = _both(lambda: _run(torch, row, arrays, kw, npdtype),
                    lambda: _run(leafgrad, row, arrays, kw, npdtype))
    if t is None:   # an invalid case: leafgrad raised the same class
        return
    (txs, touts), (lxs, louts) = t, lres

    # forward: count, dtype, shape, values, requires_grad
    assert len(louts) == len(touts)
    for i, (lo, to) in enumerate(zip(louts, touts)):
        assert str(lo.dtype) == str(to.dtype), "output %d dtype %s vs torch %s" % (
            i, lo.dtype, to.dtype)
        assert tuple(lo.shape) == tuple(to.shape), "output %d shape" % i
        _close(lo, to, fwd_tol, "output %d" % i)
        assert lo.requires_grad == to.requires_grad, "output %d requires_grad" % i

    # first order
    ws = _weights(touts, rng)
    tloss, lloss = _wsum(torch, touts, ws), _wsum(leafgrad, louts, ws)
    if tloss is None:
        return
    tg, lg = _both(lambda: _grads(torch, tloss, txs, second_order),
                   lambda: _grads(leafgrad, lloss, lxs, second_order))
    if tg is None:   # e.g. a saved tensor modified in place: same error class
        return
    for i, (a, b) in enumerate(zip(lg, tg)):
        _close(a, b, grad_tol, "grad of input %d" % i)
    if not second_order:
        return

    # second order: d/dx of a weighted sum of the gradients
    vs = _weights([x for x in txs], rng)
    tgg, lgg = _both(lambda: _grads(torch, _wsum(torch, tg, vs), txs, False),
                     lambda: _grads(leafgrad, _wsum(leafgrad, lg, vs), lxs, False))
    if tgg is None:
        return
    for i, (a, b) in enumerate(zip(lgg, tgg)):
        _close(a, b, grad2_tol, "second-order grad of input %d" % i)


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
@given(data=st.data())
def test_matches_torch(row, data):
    """float32: forward and first-order gradients; float64: the same plus second order
    (in float32, second derivatives of ill-conditioned ops such as batch_norm over two
    elements are round-off in both libraries)."""
    arrays, kw, _ = _draw(data, row)
    seed = data.draw(st.integers(0, 2 ** 32 - 1), label="weights seed")
    _compare(row, arrays, kw, seed, np.float32, False, FWD_TOL, GRAD_TOL, None)
    if row.second_order:
        _compare(row, arrays, kw, seed, np.float64, True, F64_TOL, F64_TOL, F64_TOL)


FD_ROWS = [r for r in ROWS if r.fd]


@pytest.mark.parametrize("row", FD_ROWS, ids=[r.name for r in FD_ROWS])
@given(data=st.data())
def test_float64_finite_differences(row, data):
    arrays, kw, rng = _draw(data, row)
    kw = _kw_as(kw, np.float64)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            xs, outs = _run(leafgrad, row, arrays, kw, np.float64)
    except Exception:
        return   # invalid case; the torch comparison checks the exception
    ws = [w.astype(np.float64) for w in _weights(outs, rng)]
    loss = _wsum(leafgrad, outs, ws)
    if loss is None:
        return
    grads = _grads(leafgrad, loss, xs, False)
    diff = [o.requires_grad for o in outs]   # e.g. batch_norm's running stats are not

    def f(vals):
        with leafgrad.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            outs = _flat(row.fn(leafgrad, *[leafgrad.tensor(v) for v in vals], **kw))
            return sum(float((np.asarray(o._data, np.float64) * w).sum())
                       for o, w, d in zip(outs, ws, diff) if d)

    eps = 1e-6
    for i, a in enumerate(arrays):
        num = np.zeros(a.shape)
        for j in range(a.size):
            plus = [v.copy() for v in arrays]
            minus = [v.copy() for v in arrays]
            plus[i].reshape(-1)[j] += eps
            minus[i].reshape(-1)[j] -= eps
            num.reshape(-1)[j] = (f(plus) - f(minus)) / (2 * eps)
        g = grads[i]
        ana = np.zeros(a.shape) if g is None else np.asarray(g._data, np.float64)
        assert str(g.dtype if g is not None else "torch.float64") == "torch.float64"
        np.testing.assert_allclose(ana, num, rtol=1e-4, atol=1e-5,
                                   err_msg="input %d: autograd vs central differences" % i)


# --------------------------------------------------------------- coverage
# each family's ops live in these modules (ops/ files split by family)
_MODULES = {"elementwise": (elementwise, unary, binary, comparison, pointwise, complex_ops),
            "reduction": (reduction, sorting, stats, cumulative, quantile, variance,
                          reduce_gradient),
            "shape": (shape, joins, splits, rearrange, diagonals, combinations, vander,
                      view_scatters, indexed_reduce),
            "indexing": (indexing, index_extra),
            "linalg": (linalg, linalg_fns, norms, blas),
            "inplace": (inplace, inplace_write), "functional": (F_lg, activation, loss, distance, normalization,
                                         embedding, functional_pad, activation_inplace, channel_shuffle, dropout,
                                         grid_sample),
            "conv": (conv, pooling, pool_extra, pool_fractional), "special": (special, special_binary,
                                                             special_bessel, special_poly),
            "fft": (fft_transforms, fft_spectral)}


def _public_ops():
    ops = set()
    for fam in FAMILIES:
        mods = _MODULES[fam]
        homes = {m.__name__ for m in mods}
        for mod in mods:
            for name, v in vars(mod).items():
                if name.startswith("_") or isinstance(v, type) or not callable(v):
                    continue
                if getattr(v, "__module__", None) not in homes:
                    continue      # imported from elsewhere (covered in its own family)
                ops.add("%s.%s" % (fam, name))
    return ops


def _covered():
    public = _public_ops()
    by_name = {}
    for q in public:
        by_name.setdefault(q.split(".", 1)[1], []).append(q)
    covered, unknown = set(), []
    for row in ROWS:
        for c in row.covers or (row.name.split(":")[0],):
            if "." in c:
                (covered.add(c) if c in public else unknown.append((row.name, c)))
            elif c in by_name:
                covered.update(by_name[c])
            else:
                unknown.append((row.name, c))
    return public, covered, unknown


def test_every_public_op_has_a_row():
    public, covered, unknown = _covered()
    assert not unknown, "rows naming ops that do not exist: %s" % unknown
    missing = sorted(public - covered - set(EXEMPT))
    assert not missing, "public ops with no row and not exempt: %s" % missing
    stale = sorted(set(EXEMPT) - public)
    assert not stale, "exempt entries that are not public ops: %s" % stale
    both = sorted(set(EXEMPT) & covered)
    assert not both, "exempt entries that do have a row: %s" % both


def test_public_op_discovery_is_not_empty():
    # guards the meta-test: it must see the op families
    public = _public_ops()
    for q in ("elementwise.exp", "reduction.sum", "shape.cat", "indexing.gather",
              "linalg.matmul", "functional.cross_entropy", "inplace.add_"):
        assert q in public
    assert len(public) > 150


def test_row_table_is_well_formed():
    names = [r.name for r in ROWS]
    assert len(names) == len(set(names)), "duplicate row names"
    for r in ROWS:
        assert all(d in DOMAINS for d in r.domains), r.name
        assert callable(r.fn)
        assert isinstance(r.second_order, bool) and isinstance(r.fd, bool)


@pytest.mark.xfail(strict=True, reason="prod's backward with zeros in the input is computed in "
                   "NumPy (products of the other elements), so it is not twice differentiable")
def test_prod_second_order_with_zeros():
    x = np.array([0.0, 2.0, 3.0], np.float32)
    res = []
    for T in (torch, leafgrad):
        t = T.tensor(x, requires_grad=True)
        (g,) = T.autograd.grad(T.prod(t), t, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), t, allow_unused=True)
        res.append(_np(gg))
    _close(res[1], res[0], GRAD2_TOL, "second-order grad of prod with a zero")
