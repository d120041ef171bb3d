"""Op-table rows (see tests/op_table.py) of the issue-13 reductions, cumulative,
search, BLAS-style, index and shape ops (ops/reduce/stats.py, ops/reduce/cumulative.py, ...).

Kept in their own file so the table's families merge independently; op_table.py adds
them to ROWS. Ties are never asserted: values are continuous draws (distinct with
probability 1), and rows with deliberate repeats compare values only.
"""
import numpy as np
from hypothesis import strategies as st

from op_table import Row, _dim_of, _reduce_dims, _same, _scatter_gen, _varstd, shape_st


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


@st.composite
def _blas_gen(draw, kind, full=False):
    b, n, m, p = (draw(st.integers(1, 4)) for _ in range(4))
    shapes = {"addmv": ([(n,), (1,), ()], (n, m), (m,)),
              "addr": ([(n, m), (m,), (1, m), ()], (n,), (m,)),
              "baddbmm": ([(b, n, p), (n, p), (p,), ()], (b, n, m), (b, m, p)),
              "addbmm": ([(n, p), (p,), (1, 1), ()], (b, n, m), (b, m, p))}[kind]
    inp = shapes[0][0] if full else draw(st.sampled_from(shapes[0]))
    kw = {"beta": draw(st.sampled_from([1, 0.5, 0, -2])),
          "alpha": draw(st.sampled_from([1, 2.0, -0.5]))}
    return (inp, shapes[1], shapes[2]), kw


def _blas(name, inplace=False):
    def fn(T, x, a, b, **kw):
        if inplace:
            return getattr(x.clone(), name + "_")(a, b, **kw)
        return getattr(T, name)(x, a, b, **kw)
    return fn


@st.composite
def _take_gen(draw):
    s = draw(shape_st())
    n = int(np.prod(s))
    ishape = draw(shape_st(max_dims=2))
    k = int(np.prod(ishape))
    idx = draw(st.lists(st.integers(-n, n - 1), min_size=k, max_size=k))
    return (s,), {"index": np.array(idx, np.int64).reshape(ishape)}


@st.composite
def _index_rows(draw, unique, value=False):
    """A shape, a dim, indices along it (distinct when ``unique``: index_copy keeps an
    unspecified one of repeated rows) and the source's shape."""
    s = draw(shape_st(min_dims=1))
    d = draw(st.integers(-len(s), len(s) - 1))
    n = s[d]
    if unique:
        idx = draw(st.permutations(list(range(n))))[:draw(st.integers(0, n))]
    else:
        idx = draw(st.lists(st.integers(0, n - 1), max_size=4))
    src = tuple(len(idx) if i == d % len(s) else m for i, m in enumerate(s))
    kw = {"dim": d, "index": np.array(idx, np.int64)}
    if value:
        return (s, ()), kw
    return (s, src), kw


@st.composite
def _masked_scatter_gen(draw):
    s = draw(shape_st())
    n = int(np.prod(s))
    ms = s[draw(st.integers(0, len(s))):]          # a trailing part: the mask broadcasts
    bits = draw(st.lists(st.booleans(), min_size=int(np.prod(ms)), max_size=int(np.prod(ms))))
    mask = np.array(bits, bool).reshape(ms)
    extra = draw(st.integers(0, 2))
    return (s, (n + extra,)), {"mask": mask}


@st.composite
def _rot90_gen(draw):
    s = draw(shape_st(min_dims=2))
    nd = len(s)
    d0, d1 = draw(st.permutations(list(range(nd))))[:2]
    return (s,), {"k": draw(st.integers(-5, 5)), "dims": [d0 - nd if draw(st.booleans())
                                                          else d0, d1]}


@st.composite
def _unfold_gen(draw):
    s = draw(shape_st())
    nd = max(len(s), 1)
    d = draw(st.integers(-nd, nd - 1))
    n = s[d] if s else 1
    return (s,), {"dimension": d, "size": draw(st.integers(0, n)),
                  "step": draw(st.integers(1, 3))}


@st.composite
def _diag_embed_gen(draw):
    s = draw(shape_st(min_dims=1, max_dims=2))
    nd = len(s) + 1
    d1, d2 = draw(st.permutations(list(range(nd))))[:2]
    return (s,), {"offset": draw(st.integers(-2, 2)), "dim1": d1, "dim2": d2 - nd}


@st.composite
def _stack_shapes(draw, kind):
    n = draw(st.integers(1, 3))
    base = draw(shape_st(max_dims=3))
    shapes = []
    for _ in range(n):
        s = list(base)
        if kind == "column" and len(s) >= 2:
            s[1] = draw(st.integers(1, 3))
        elif kind == "column":
            s = list(base)
        elif kind == "dstack" and len(s) >= 3:
            s[2] = draw(st.integers(1, 3))
        shapes.append(tuple(s))
    return tuple(shapes), {}


@st.composite
def _tensor_split_gen(draw, how="tensor_split"):
    need = {"tensor_split": 1, "hsplit": 1, "vsplit": 2, "dsplit": 3}[how]
    s = draw(shape_st(min_dims=need))
    nd = len(s)
    d = draw(st.integers(-nd, nd - 1)) if how == "tensor_split" else \
        {"hsplit": 1 if nd > 1 else 0, "vsplit": 0, "dsplit": 2}[how]
    n = s[d]
    if draw(st.booleans()):
        if how == "tensor_split":
            arg = draw(st.integers(1, n + 2))
        else:
            arg = draw(st.sampled_from([k for k in range(1, n + 1) if n % k == 0]))
    else:
        arg = draw(st.lists(st.integers(-n - 1, n + 1), max_size=3))
    kw = {"ios": arg}
    if how == "tensor_split":
        kw["dim"] = d
    return (s,), kw


@st.composite
def _sizes_gen(draw):
    (s,), kw = draw(_dim_of())
    n = s[kw["dim"]]
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    pts = [0] + cuts + [n]
    kw["split_sizes"] = [b - a for a, b in zip(pts, pts[1:])]
    return (s,), kw


@st.composite
def _vander_gen(draw):
    n = draw(st.integers(1, 4))
    kw = {"increasing": draw(st.booleans())}
    if draw(st.booleans()):
        kw["N"] = draw(st.integers(0, 5))
    return ((n,),), kw


@st.composite
def _renorm_gen(draw):
    (s,), kw = draw(_dim_of())
    kw["p"] = draw(st.sampled_from([1, 2, 3.0]))
    kw["maxnorm"] = draw(st.sampled_from([0.5, 1.0, 2.0]))
    return (s,), kw


def _unfold_write(T, x):
    y = x * 1
    y.unfold(0, 1, 2).mul_(2)
    return y


@st.composite
def _quantile_gen(draw):
    (s,), kw = draw(_reduce_dims(allow_tuple=False))
    if draw(st.booleans()):
        kw["q"] = draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))
    else:
        kw["qs"] = np.array(draw(st.lists(st.sampled_from([0.0, 0.1, 0.45, 0.8, 1.0]),
                                          min_size=1, max_size=3)))
    kw["interpolation"] = draw(st.sampled_from(["linear", "lower", "higher", "midpoint",
                                                "nearest"]))
    return (s,), kw


def _quantile(name, nan=False):
    def fn(T, x, qs=None, q=None, mask=None, **kw):
        if mask is not None:
            x = _nanned(T, x, mask)
        q = T.tensor(qs, dtype=x.dtype) if qs is not None else q
        return getattr(T, name)(x, q, **kw)
    return fn


@st.composite
def _cov_gen(draw):
    v, n = draw(st.integers(1, 3)), draw(st.integers(1, 5))
    s = draw(st.sampled_from([(v, n), (n,)]))
    kw = {"correction": draw(st.sampled_from([0, 1, 2]))}
    if draw(st.booleans()):
        kw["fw"] = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    if draw(st.booleans()):
        kw["aw"] = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.5]), min_size=n,
                                          max_size=n)))
    if n == 1 and ("fw" in kw) != ("aw" in kw):
        # PyTorch 2.13 raises "a leaf Variable ... in-place operation" here (one
        # observation, one weight vector, input requiring grad): its quirk, not a rule.
        kw.pop("fw", None) if "fw" in kw else kw.pop("aw")
    return (s,), kw


def _cov(T, x, fw=None, aw=None, **kw):
    return T.cov(x, fweights=None if fw is None else T.tensor(fw),
                 aweights=None if aw is None else T.tensor(aw, dtype=x.dtype), **kw)


@st.composite
def _scatter_reduce_gen(draw):
    shapes, kw = draw(_scatter_gen(distinct=False))
    kw["reduce"] = draw(st.sampled_from(["sum", "prod", "mean", "amax", "amin"]))
    kw["include_self"] = draw(st.booleans())
    return shapes, kw


def _scatter_reduce(inplace):
    def fn(T, x, src, dim, index, reduce, include_self):
        if inplace:
            return (x * 1).scatter_reduce_(dim, T.tensor(index), src, reduce,
                                           include_self=include_self)
        return T.scatter_reduce(x, dim, T.tensor(index), src, reduce, include_self=include_self)
    return fn



@st.composite
def _gradient_gen(draw, coords=False):
    """torch.gradient's arguments: each dim >= 3 (edge_order 2 needs 3 samples), spacing a
    number or one per dim, dim an int, a list or None; ``coords``: one dim and its
    coordinate input (positive steps, cumulated in the row)."""
    nd = draw(st.integers(1, 3))
    s = tuple(draw(st.lists(st.integers(3, 5), min_size=nd, max_size=nd)))
    kw = {"edge_order": draw(st.sampled_from([1, 2]))}
    if coords:
        kw["dim"] = draw(st.integers(-nd, nd - 1))
        return (s, (s[kw["dim"]],)), kw
    how = draw(st.sampled_from(["none", "int", "list"]))
    dims = list(range(nd))
    if how == "int":
        kw["dim"] = draw(st.integers(-nd, nd - 1))
        dims = [kw["dim"]]
    elif how == "list":
        dims = draw(st.permutations(range(nd)))[:draw(st.integers(1, nd))]
        kw["dim"] = list(dims)
    step = st.sampled_from([0.5, 1, 2.5, -1.5])
    if draw(st.booleans()):
        kw["spacing"] = draw(step)
    elif draw(st.booleans()):
        kw["spacing"] = [draw(step) for _ in dims]
    return (s,), kw


ROWS = [
    Row("std_mean", lambda T, x, **kw: T.std_mean(x, **kw), gen=_varstd()),
    Row("var_mean", lambda T, x, **kw: T.var_mean(x, **kw), gen=_varstd()),
    Row("var_mean:unbiased_positional", lambda T, x: T.var_mean(x, 0, False),
        gen=_same(1, min_dims=1, min_side=2), covers=("var_mean",)),
    Row("aminmax", lambda T, x, **kw: tuple(T.aminmax(x, **kw)), gen=_aminmax_gen()),
    Row("gradient", lambda T, x, **kw: T.gradient(x, **kw), gen=_gradient_gen()),
    Row("gradient:coordinates", lambda T, x, c, dim, edge_order: T.gradient(
        x, spacing=[T.cumsum(c, 0)], dim=dim, edge_order=edge_order), ("real", "positive"),
        gen=_gradient_gen(coords=True), covers=("gradient",)),
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
] + [Row(n, _blas(n), ("real",) * 3, gen=_blas_gen(n)) for n in ("addmv", "addr", "baddbmm",
                                                                 "addbmm")] + [
    Row(n + "_", _blas(n, True), ("real",) * 3, gen=_blas_gen(n, full=True),
        covers=(n,))
    for n in ("addmv", "addr", "baddbmm", "addbmm")] + [
    Row("take", lambda T, x, index: T.take(x, T.tensor(index)), gen=_take_gen()),
    Row("take:method", lambda T, x, index: x.take(T.tensor(index)), gen=_take_gen(),
        covers=("take",)),
    Row("index_fill", lambda T, x, dim, index: T.index_fill(x, dim, T.tensor(index), -1.5),
        gen=_index_rows(False).map(lambda a: (a[0][:1], a[1]))),
    Row("index_fill:tensor_value", lambda T, x, v, dim, index: x.index_fill(
        dim, T.tensor(index), v), ("real", "real"), gen=_index_rows(False, value=True),
        covers=("index_fill",)),
    Row("index_fill_", lambda T, x, v, dim, index: (x * 1).index_fill_(
        dim, T.tensor(index), v), ("real", "real"), gen=_index_rows(False, value=True),
        covers=("index_fill",)),
    Row("index_copy", lambda T, x, src, dim, index: T.index_copy(x, dim, T.tensor(index), src),
        ("real", "real"), gen=_index_rows(True)),
    Row("index_copy_", lambda T, x, src, dim, index: x.clone().index_copy_(
        dim, T.tensor(index), src), ("real", "real"), gen=_index_rows(True),
        covers=("index_copy",)),
    Row("masked_scatter", lambda T, x, src, mask: x.masked_scatter(T.tensor(mask), src),
        ("real", "real"), gen=_masked_scatter_gen()),
    Row("masked_scatter_", lambda T, x, src, mask: x.clone().masked_scatter_(
        T.tensor(mask), src), ("real", "real"), gen=_masked_scatter_gen(),
        covers=("masked_scatter",)),
    Row("rot90", lambda T, x, **kw: T.rot90(x, **kw), gen=_rot90_gen()),
    Row("rot90:default", lambda T, x: x.rot90(), gen=_same(1, min_dims=2), covers=("rot90",)),
    Row("fliplr", lambda T, x: T.fliplr(x) * 2 + x.fliplr(), gen=_same(1, min_dims=2)),
    Row("flipud", lambda T, x: T.flipud(x) * 2 + x.flipud(), gen=_same(1, min_dims=1)),
    Row("unfold", lambda T, x, **kw: x.unfold(**kw), gen=_unfold_gen()),
    # a write through the view reaches the base (windows apart: overlapping ones are
    # implementation-defined)
    Row("unfold:view", _unfold_write, gen=_same(1, min_dims=1, min_side=2), covers=("unfold",)),
    Row("diag_embed", lambda T, x, **kw: T.diag_embed(x, **kw), gen=_diag_embed_gen()),
    Row("diag_embed:default", lambda T, x: x.diag_embed(), gen=_same(1, min_dims=1),
        covers=("diag_embed",)),
    Row("diagflat", lambda T, x, offset: T.diagflat(x, offset),
        gen=_same(1).map(lambda a: (a[0], {"offset": 1}))),
    Row("diagflat:method", lambda T, x: x.diagflat(-2), covers=("diagflat",)),
    Row("column_stack", lambda T, *xs: T.column_stack(xs), ("real",),
        gen=_stack_shapes("column"), variadic=True),
    Row("row_stack", lambda T, *xs: T.row_stack(xs), ("real",),
        gen=_stack_shapes("row"), variadic=True),
    Row("dstack", lambda T, *xs: T.dstack(xs), ("real",),
        gen=_stack_shapes("dstack"), variadic=True),
    Row("tensor_split", lambda T, x, ios, dim: x.tensor_split(ios, dim),
        gen=_tensor_split_gen()),
    Row("tensor_split:tensor", lambda T, x, ios, dim: T.tensor_split(
        x, T.tensor(ios, dtype=T.int64), dim=dim), gen=_tensor_split_gen(),
        covers=("tensor_split",)),
    Row("hsplit", lambda T, x, ios: T.hsplit(x, ios), gen=_tensor_split_gen("hsplit")),
    Row("vsplit", lambda T, x, ios: x.vsplit(ios), gen=_tensor_split_gen("vsplit")),
    Row("dsplit", lambda T, x, ios: T.dsplit(x, ios), gen=_tensor_split_gen("dsplit")),
    Row("split_with_sizes", lambda T, x, **kw: T.split_with_sizes(x, **kw),
        gen=_sizes_gen()),
    Row("split_with_sizes:method", lambda T, x, **kw: x.split_with_sizes(**kw),
        gen=_sizes_gen(), covers=("split_with_sizes",)),
    # values only: torch 2.13's vander backward raises (an in-place cumprod in its graph);
    # the gradient is checked against torch's powers in tests/test_reduce_ops.py
    Row("vander", lambda T, x, **kw: T.vander(x.detach(), **kw), gen=_vander_gen(),
        fd=False),
    Row("combinations", lambda T, x, **kw: T.combinations(x, **kw),
        gen=st.tuples(st.integers(1, 4), st.integers(0, 4), st.booleans()).map(
            lambda a: (((a[0],),), {"r": a[1], "with_replacement": a[2]}))),
    Row("renorm", lambda T, x, **kw: T.renorm(x, **kw), gen=_renorm_gen()),
    Row("renorm_", lambda T, x, **kw: (x * 1).renorm_(**kw), gen=_renorm_gen(),
        covers=("renorm",)),
    # torch: "the derivative for '_pdist_backward' is not implemented" (no second order)
    Row("pdist", lambda T, x, p: T.pdist(x, p), gen=st.tuples(
        st.integers(1, 4), st.integers(1, 3), st.sampled_from([1, 2, 3, float("inf")])).map(
            lambda a: (((a[0], a[1]),), {"p": a[2]})), second_order=False),
    Row("quantile", _quantile("quantile"), gen=_quantile_gen()),
    Row("quantile:method", lambda T, x: x.quantile(0.25, -1, True) + x.nanquantile(0.5),
        gen=_same(1, min_dims=1), covers=("quantile", "nanquantile")),
    Row("quantile:nan", _quantile("quantile"), gen=_nan_mask(_quantile_gen()), fd=False,
        covers=("quantile",)),
    Row("nanquantile", _quantile("nanquantile"), gen=_nan_mask(_quantile_gen()), fd=False),
    Row("nanquantile:plain", _quantile("nanquantile"), gen=_quantile_gen(),
        covers=("nanquantile",)),
    # degrees of freedom <= 0 (inf/nan entries) are drawn too: values compared, fd skipped
    Row("cov", _cov, gen=_cov_gen(), fd=False),
    Row("cov:fd", lambda T, x: T.cov(x) + x.cov(correction=0), gen=st.tuples(
        st.integers(1, 3), st.integers(2, 5)).map(lambda a: (((a[0], a[1]),), {})),
        covers=("cov",)),
    Row("corrcoef", lambda T, x: T.corrcoef(x) * 2 + x.corrcoef(), gen=st.tuples(
        st.integers(1, 3), st.integers(2, 5)).map(lambda a: (((a[0], a[1]),), {}))),
    # continuous draws: no ties for amax/amin and no zeros for prod (both have their own
    # exact rules, split evenly / the one-zero case, checked in tests/test_reduce_ops.py)
    Row("scatter_reduce", _scatter_reduce(False), ("real", "real"), gen=_scatter_reduce_gen()),
    Row("scatter_reduce_", _scatter_reduce(True), ("real", "real"), gen=_scatter_reduce_gen(),
        covers=("scatter_reduce",)),
    Row("addmv:method", lambda T, x, a, b: x.addmv(a, b, alpha=2), ("real",) * 3,
        gen=_blas_gen("addmv").map(lambda a: (a[0], {})), covers=("addmv",)),
]

# implementation-defined results, deliberately not compared above: the index chosen
# among equal values (kthvalue, mode, nanmedian), and nanmedian's index of an all-NaN
# slice.
