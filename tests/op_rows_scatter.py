"""Op-table rows (see tests/op_table.py) of the view scatters (ops/shape/view_scatters.py):
slice_scatter, select_scatter, diagonal_scatter; both operands differentiated."""
import numpy as np
from hypothesis import strategies as st

from op_table import Row, _index_add_gen, shape_st


@st.composite
def _slice_gen(draw):
    s = draw(shape_st(min_dims=1))
    d = draw(st.integers(-len(s), len(s) - 1))
    n = s[d]
    start = draw(st.one_of(st.none(), st.integers(-n - 1, n)))
    end = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
    step = draw(st.integers(1, 3))
    src = np.zeros(s)[(slice(None),) * (d % len(s)) + (slice(start, end, step),)].shape
    return (s, src), {"dim": d, "start": start, "end": end, "step": step}


@st.composite
def _select_gen(draw):
    s = draw(shape_st(min_dims=1))
    d = draw(st.integers(-len(s), len(s) - 1))
    i = draw(st.integers(-s[d], s[d] - 1))
    return (s, np.zeros(s).take(i, axis=d).shape), {"dim": d, "index": i}


@st.composite
def _diagonal_gen(draw):
    s = draw(shape_st(min_dims=2))
    d1, d2 = draw(st.lists(st.integers(-len(s), len(s) - 1), min_size=2, max_size=2,
                           unique_by=lambda v: v % len(s)))
    off = draw(st.integers(-3, 3))
    src = np.diagonal(np.zeros(s), off, d1 % len(s), d2 % len(s)).shape
    return (s, src), {"offset": off, "dim1": d1, "dim2": d2}


ROWS = [
    Row("slice_scatter", lambda T, x, src, **kw: T.slice_scatter(x, src, **kw), ("real", "real"),
        gen=_slice_gen()),
    Row("select_scatter", lambda T, x, src, **kw: x.select_scatter(src, **kw), ("real", "real"),
        gen=_select_gen()),
    Row("diagonal_scatter", lambda T, x, src, **kw: T.diagonal_scatter(x, src, **kw),
        ("real", "real"), gen=_diagonal_gen()),
]


# ------------------------------- index_put / index_reduce / put / fill_diagonal_
@st.composite
def _index_reduce_gen(draw):
    (s, src), kw = draw(_index_add_gen())   # shapes, dim and a 1-D index as index_add's
    kw.pop("alpha", None)
    return (s, src), dict(kw, reduce=draw(st.sampled_from(["prod", "mean", "amax", "amin"])),
                          include_self=draw(st.booleans()))


@st.composite
def _put_gen(draw):
    s = draw(shape_st())
    n = int(np.prod(s))
    acc = draw(st.booleans())
    pos = st.integers(-n, n - 1)
    idx = draw(st.lists(pos, min_size=1, max_size=5) if acc else
                st.lists(pos, min_size=1, max_size=min(n, 5), unique_by=lambda v: v % n))
    ishape = draw(st.sampled_from([(len(idx),), (1, len(idx))]))
    return (s, (len(idx),)), {"index": np.array(idx, np.int64).reshape(ishape),
                              "accumulate": acc}


@st.composite
def _index_put_gen(draw):
    s = draw(shape_st(min_dims=1))
    idx = draw(st.lists(st.integers(-s[0], s[0] - 1), min_size=1, max_size=4,
                        unique_by=lambda v: v % s[0]))
    return (s, (len(idx),) + s[1:]), {"index": np.array(idx, np.int64)}


@st.composite
def _fill_diagonal_gen(draw):
    if draw(st.booleans()):
        s = (draw(st.integers(1, 7)), draw(st.integers(1, 4)))
    else:
        s = (draw(st.integers(1, 3)),) * draw(st.integers(3, 4))
    return (s,), {"value": draw(st.sampled_from([0.0, -1.5])), "wrap": draw(st.booleans())}


ROWS += [
    Row("index_reduce", lambda T, x, src, dim, index, **kw: T.index_reduce(
        x, dim, T.tensor(index), src, **kw), ("nonzero", "nonzero"), gen=_index_reduce_gen()),
    Row("index_reduce_", lambda T, x, src, dim, index, **kw: (x * 1).index_reduce_(
        dim, T.tensor(index), src, **kw), ("nonzero", "nonzero"), gen=_index_reduce_gen(),
        covers=("shape.index_reduce_",)),
    Row("put", lambda T, x, src, index, accumulate: T.put(x, T.tensor(index), src, accumulate),
        ("real", "real"), gen=_put_gen()),
    Row("put_", lambda T, x, src, index, accumulate: (x * 1).put_(T.tensor(index), src,
                                                                  accumulate=accumulate),
        ("real", "real"), gen=_put_gen(), covers=("shape.put_",)),
    Row("index_put:function", lambda T, x, v, index: T.index_put(x, (T.tensor(index),), v),
        ("real", "real"), gen=_index_put_gen(), covers=("shape.index_put",)),
    Row("fill_diagonal_", lambda T, x, value, wrap: (x * 1).fill_diagonal_(value, wrap=wrap),
        gen=_fill_diagonal_gen(), covers=("shape.fill_diagonal_",)),
]
