"""Op-table rows (see tests/op_table.py) of the issue-13 reductions, cumulative,
search, BLAS-style, index and shape ops (ops/stats.py, ops/cumulative.py, ...).

Kept in their own file so the table's families merge independently; op_table.py adds
them to ROWS. Ties are never asserted: values are continuous draws (distinct with
probability 1), and rows with deliberate repeats compare values only.
"""
import numpy as np
from hypothesis import strategies as st

from op_table import Row, _dim_of, _reduce_dims, _same, _varstd, shape_st


@st.composite
def _nan_mask(draw, gen):
    """``gen``'s shapes plus a boolean mask (where NaN is put), never all True."""
    (s,), kw = draw(gen)
    n = int(np.prod(s))
    bits = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if n:
        bits[draw(st.integers(0, n - 1))] = False
    kw["mask"] = np.array(bits, bool).reshape(s)
    return (s,), kw


def _nanned(T, x, mask):
    return x.masked_fill(T.tensor(mask), float("nan"))


@st.composite
def _dim0(draw, keepdim=False):
    """A shape of 0 to 3 dims and a dim of it (0 or -1 for a 0-d shape)."""
    s = draw(shape_st())
    kw = {"dim": draw(st.integers(-max(len(s), 1), max(len(s), 1) - 1))}
    if keepdim:
        kw["keepdim"] = draw(st.booleans())
    return (s,), kw


@st.composite
def _kth_gen(draw):
    (s,), kw = draw(_dim0(keepdim=True))
    n = s[kw["dim"]] if s else 1
    kw["k"] = draw(st.integers(1, n))
    return (s,), kw


@st.composite
def _aminmax_gen(draw):
    s = draw(shape_st())
    kw = {}
    if s and draw(st.booleans()):
        kw["dim"] = draw(st.integers(-len(s), len(s) - 1))
        kw["keepdim"] = draw(st.booleans())
    return (s,), kw


@st.composite
def _trap_gen(draw):
    """y's shape and x's: the full shape, a 1-D run of sample points along dim, or
    (unused) y's shape with dx or nothing."""
    s = draw(shape_st(min_dims=1, min_side=1))
    nd = len(s)
    d = draw(st.integers(-nd, nd - 1))
    kind = draw(st.sampled_from(["none", "dx", "x1", "xfull"]))
    kw = {"dim": d, "kind": kind}
    if kind == "dx":
        kw["dx"] = draw(st.sampled_from([0.5, 2.0, -1.0]))
    return (s, (s[d],) if kind == "x1" else s), kw


def _trap(name):
    def fn(T, y, x, dim, kind, dx=None):
        f = getattr(T, name)
        if kind == "none":
            return f(y, dim=dim)
        if kind == "dx":
            return f(y, dx=dx, dim=dim)
        return f(y, x, dim=dim)
    return fn


ROWS = [
    Row("std_mean", lambda T, x, **kw: T.std_mean(x, **kw), gen=_varstd()),
    Row("var_mean", lambda T, x, **kw: T.var_mean(x, **kw), gen=_varstd()),
    Row("var_mean:unbiased_positional", lambda T, x: T.var_mean(x, 0, False),
        gen=_same(1, min_dims=1, min_side=2), covers=("var_mean",)),
    Row("aminmax", lambda T, x, **kw: tuple(T.aminmax(x, **kw)), gen=_aminmax_gen()),
    Row("aminmax:ties", lambda T, x: tuple(x.round().aminmax()), ("frac",), fd=False,
        covers=("aminmax",)),
    # NaN rows: no finite differences (an all-NaN slice gives NaN); the plain rows do them
    Row("nansum", lambda T, x, mask, **kw: T.nansum(_nanned(T, x, mask), **kw),
        gen=_nan_mask(_reduce_dims())),
    Row("nanmean", lambda T, x, mask, **kw: T.nanmean(_nanned(T, x, mask), **kw),
        gen=_nan_mask(_reduce_dims()), fd=False),
    Row("nanmean:plain", lambda T, x, **kw: T.nanmean(x, **kw) + x.nansum(**kw),
        gen=_reduce_dims(), covers=("nanmean", "nansum")),
    Row("nanmedian:full", lambda T, x, mask: T.nanmedian(_nanned(T, x, mask)),
        gen=_nan_mask(_same(1)), fd=False, covers=("nanmedian",)),
    Row("nanmedian:plain", lambda T, x: x.nanmedian(), covers=("nanmedian",)),
    Row("nanmedian:dim", lambda T, x, **kw: tuple(T.nanmedian(x, **kw)),
        gen=_dim0(keepdim=True), covers=("nanmedian",)),
    Row("nanmedian:dim_nan", lambda T, x, mask, **kw: T.nanmedian(_nanned(T, x, mask),
                                                                  **kw).values,
        gen=_nan_mask(_dim_of(min_dims=1, keepdim=True)), fd=False,
        covers=("nanmedian",)),
    Row("kthvalue", lambda T, x, **kw: tuple(T.kthvalue(x, **kw)), gen=_kth_gen()),
    Row("kthvalue:method", lambda T, x, **kw: tuple(x.kthvalue(**kw)), gen=_kth_gen(),
        covers=("kthvalue",)),
    Row("mode", lambda T, x, **kw: tuple(T.mode(x, **kw)), gen=_dim0(keepdim=True)),
    Row("mode:ties", lambda T, x, **kw: T.mode((x * 1.5).round(), **kw).values.detach(),
        gen=_dim_of(min_dims=1), fd=False, covers=("mode",)),
    Row("msort", lambda T, x: T.msort(x), gen=_same(1, min_dims=1)),
    Row("cummax", lambda T, x, **kw: tuple(T.cummax(x, **kw)), gen=_dim0()),
    Row("cummin", lambda T, x, **kw: tuple(x.cummin(**kw)), gen=_dim0()),
    Row("logcumsumexp", lambda T, x, **kw: T.logcumsumexp(x * 3, **kw),
        gen=_dim0()),
    Row("trapezoid", _trap("trapezoid"), ("real", "real"),
        gen=_trap_gen()),
    Row("trapezoid:trapz", lambda T, y: T.trapz(y) + T.trapz(y, dx=0.5),
        gen=_same(1, min_dims=1), covers=("trapezoid",)),
    Row("cumulative_trapezoid", _trap("cumulative_trapezoid"), ("real", "real"),
        gen=_trap_gen()),
]

# implementation-defined results, deliberately not compared above: the index chosen
# among equal values (kthvalue, mode, nanmedian), and nanmedian's index of an all-NaN
# slice.
