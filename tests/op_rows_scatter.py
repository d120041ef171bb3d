"""Op-table rows (see tests/op_table.py) of the view scatters (ops/shape/view_scatters.py):
slice_scatter, select_scatter, diagonal_scatter; both operands differentiated."""
import numpy as np
from hypothesis import strategies as st

from op_table import Row, shape_st


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
