"""The op table for the differential tests against PyTorch (tests/test_ops_vs_torch.py).

One ``Row`` per op (or per interesting variant of an op):

* ``fn(T, *xs, **kw)``: runs the op with ``T`` = ``leafgrad`` or ``torch``;
  ``xs`` are the differentiable float inputs, ``kw`` the drawn parameters
  (dims, index lists, masks, targets as NumPy arrays / Python values).
* ``domains``: one per input, the value range drawn (see ``DOMAINS``).
* ``gen``: a hypothesis strategy of ``(shapes, kw)``; by default shapes of
  0 to 3 dims (sizes 1..4), with broadcasting pairs for binary ops.
* ``broadcasts``: the inputs' shapes are drawn as a broadcasting tuple.
* ``second_order``: compare grad-of-grad (create_graph=True) with torch.
* ``fd``: run the float64 central-difference check (off for ops whose
  derivative is not defined where values are drawn, e.g. floor).
* ``covers``: the public op functions this row exercises
  (``family.name``; by default the row name before ``:``).
"""
import dataclasses
from typing import Callable, Optional, Tuple

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes


@dataclasses.dataclass
class Row:
    name: str
    fn: Callable
    domains: Tuple[str, ...] = ("real",)
    gen: Optional[object] = None
    broadcasts: bool = False
    second_order: bool = True
    fd: bool = True
    covers: Tuple[str, ...] = ()
    variadic: bool = False    # any number of inputs, all drawn from domains[0]

    @property
    def arity(self):
        return len(self.domains)

    def domains_for(self, n):
        return (self.domains[0],) * n if self.variadic else self.domains


def _sample_real(rng, shape):
    return rng.uniform(-2.0, 2.0, shape)


def _away(lo, hi):
    # |x| in [lo, hi] with a random sign: keeps clear of kinks at 0
    def f(rng, shape):
        return rng.choice([-1.0, 1.0], shape) * rng.uniform(lo, hi, shape)
    return f


DOMAINS = {
    "real": _sample_real,
    "nonzero": _away(0.2, 2.0),          # kinks / poles at 0
    "positive": lambda rng, s: rng.uniform(0.2, 3.0, s),
    "unit": lambda rng, s: rng.uniform(-0.9, 0.9, s),   # asin, atanh
    "prob": lambda rng, s: rng.uniform(0.05, 0.95, s),  # probabilities
    "frac": lambda rng, s: rng.uniform(0.1, 0.4, s) + rng.integers(-2, 3, s),  # away from integers
    "above1": lambda rng, s: rng.uniform(1.2, 3.0, s),  # acosh
}


# ------------------------------------------------------------------ shapes
def shape_st(min_dims=0, max_dims=3, min_side=1, max_side=4):
    return st.lists(st.integers(min_side, max_side), min_size=min_dims,
                    max_size=max_dims).map(tuple)


def _same(n, **k):
    return shape_st(**k).map(lambda s: ((s,) * n, {}))


def _bcast(n):
    return mutually_broadcastable_shapes(num_shapes=n, max_dims=3, max_side=4).map(
        lambda b: (tuple(b.input_shapes), {}))


@st.composite
def _reduce_dims(draw, allow_tuple=True, allow_none=True, min_dims=0, min_side=1, keepdim=True):
    s = draw(shape_st(min_dims=min_dims, min_side=min_side))
    nd = len(s)
    choices = []
    if allow_none:
        choices.append(None)
    if nd:
        choices.append("int")
        if allow_tuple:
            choices.append("tuple")
    elif not allow_none:
        choices.append("int0")
    kind = draw(st.sampled_from(choices))
    kw = {}
    if kind == "int":
        kw["dim"] = draw(st.integers(-nd, nd - 1))
    elif kind == "int0":
        kw["dim"] = draw(st.sampled_from([0, -1]))
    elif kind == "tuple":
        dims = draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
        kw["dim"] = tuple(d - nd if draw(st.booleans()) else d for d in dims)
    if keepdim and kind != "none" and "dim" in kw:
        kw["keepdim"] = draw(st.booleans())
    return (s,), kw


@st.composite
def _varstd(draw):
    (s,), kw = draw(_reduce_dims(min_side=2, min_dims=1))
    if draw(st.booleans()):
        kw["correction"] = draw(st.sampled_from([0, 1]))
    return (s,), kw


@st.composite
def _norm_gen(draw):
    (s,), kw = draw(_reduce_dims(min_dims=0))
    kw["p"] = draw(st.sampled_from([2, 1, 3, float("inf"), 1.5]))
    return (s,), kw


@st.composite
def _dim_of(draw, min_dims=1, keepdim=False, min_side=1):
    s = draw(shape_st(min_dims=min_dims, min_side=min_side))
    kw = {"dim": draw(st.integers(-len(s), len(s) - 1))}
    if keepdim:
        kw["keepdim"] = draw(st.booleans())
    return (s,), kw


@st.composite
def _matmul_gen(draw):
    kind = draw(st.sampled_from(["1x1", "2x1", "1x2", "2x2", "batched", "1xb", "bx1"]))
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    if kind == "1x1":
        return ((k,), (k,)), {}
    if kind == "2x1":
        return ((m, k), (k,)), {}
    if kind == "1x2":
        return ((k,), (k, n)), {}
    if kind == "2x2":
        return ((m, k), (k, n)), {}
    if kind == "1xb":
        return ((k,), (draw(st.integers(1, 3)), k, n)), {}
    if kind == "bx1":
        return ((draw(st.integers(1, 3)), m, k), (k,)), {}
    b = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3))
    sa, sb = b.input_shapes
    return (sa + (m, k), sb + (k, n)), {}


@st.composite
def _mm_gen(draw, kind):
    m, k, n, b = (draw(st.integers(1, 4)) for _ in range(4))
    return {"mm": ((m, k), (k, n)), "mv": ((m, k), (k,)), "dot": ((k,), (k,)),
            "bmm": ((b, m, k), (b, k, n)), "outer": ((m,), (n,)),
            "addmm": ((draw(st.sampled_from([(m, n), (n,), (1, n), ()])), (m, k), (k, n)))}[kind], {}


@st.composite
def _square_gen(draw, rhs=False):
    """A batch of square matrices (the rows shift them to be well conditioned); with
    ``rhs``, also a right-hand side: a vector, a batch of vectors, or matrices whose
    batch dims broadcast against A's."""
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    n = draw(st.integers(1, 4))
    if not rhs:
        return ((batch + (n, n)),), {}
    kind = draw(st.sampled_from(["vector", "batch_vector", "matrix"]))
    if kind == "vector":
        return (batch + (n, n), (n,)), {}
    if kind == "batch_vector":
        return (batch + (n, n), batch + (n,)), {}
    bb = draw(mutually_broadcastable_shapes(num_shapes=2, base_shape=batch, max_dims=2,
                                            max_side=3)).input_shapes[0]
    return (batch + (n, n), bb + (n, draw(st.integers(1, 3)))), {"left": draw(st.booleans())}


def _well_conditioned(T, x):
    """x / 4 + 3 I: every Gershgorin disc stays clear of 0 (for x in [-2, 2], n <= 4)."""
    return x / 4 + 3 * T.eye(x.shape[-1], dtype=x.dtype)


def _solve(T, a, b, left=True):
    a = _well_conditioned(T, a)
    if not left:   # X A = B: B's last dim is A's size
        return T.linalg.solve(a, b.mT, left=False)
    return T.linalg.solve(a, b)


@st.composite
def _matrix_norm_gen(draw, ords):
    s = draw(shape_st(min_dims=2))
    nd = len(s)
    d0, d1 = draw(st.permutations(list(range(nd))))[:2]
    kw = {"ord": draw(st.sampled_from(ords)), "keepdim": draw(st.booleans())}
    if (d0, d1) != (nd - 2, nd - 1) or draw(st.booleans()):
        kw["dim"] = (d0 - nd if draw(st.booleans()) else d0, d1)
    return (s,), kw


@st.composite
def _linalg_norm_gen(draw):
    s = draw(shape_st(min_dims=1))
    kind = draw(st.sampled_from(["default", "ord", "dim", "dims", "fro"]))
    if kind == "ord":    # no dim: a 1-D or 2-D input
        s = s[:2]
        return (s,), {"ord": draw(st.sampled_from([1, 2, float("inf")] + (
            [-1, "nuc"] if len(s) == 2 else [3, 0.5])))}
    if kind == "dim":
        return (s,), {"dim": draw(st.integers(-len(s), len(s) - 1)), "ord": draw(
            st.sampled_from([None, 1, 3])), "keepdim": draw(st.booleans())}
    if kind in ("dims", "fro") and len(s) >= 2:
        return (s,), {"dim": (0, len(s) - 1), "ord": None if kind == "dims" else "fro"}
    return (s,), {"keepdim": draw(st.booleans())}


@st.composite
def _reshape_gen(draw, fn_kind):
    s = draw(shape_st())
    n = int(np.prod(s))
    # a random factorisation of n, possibly with one -1
    fac = []
    rest = n
    for p in (2, 3):
        while rest % p == 0 and draw(st.booleans()):
            fac.append(p)
            rest //= p
    fac.append(rest)
    fac = [f for f in fac if f != 1] or [1]
    if draw(st.booleans()):
        fac.insert(draw(st.integers(0, len(fac))), 1)
    if draw(st.booleans()):
        fac[draw(st.integers(0, len(fac) - 1))] = -1
    if fn_kind == "flat" and draw(st.booleans()):
        fac = []
        if n != 1:
            fac = [-1]
    return (s,), {"shape": tuple(fac)}


@st.composite
def _two_dims(draw, min_dims=1):
    s = draw(shape_st(min_dims=min_dims))
    nd = len(s)
    return (s,), {"d0": draw(st.integers(-nd, nd - 1)), "d1": draw(st.integers(-nd, nd - 1))}


@st.composite
def _permute_gen(draw):
    s = draw(shape_st())
    perm = draw(st.permutations(list(range(len(s)))))
    return (s,), {"dims": tuple(perm)}


@st.composite
def _unsqueeze_gen(draw):
    s = draw(shape_st())
    return (s,), {"dim": draw(st.integers(-len(s) - 1, len(s)))}


@st.composite
def _squeeze_gen(draw):
    s = draw(st.lists(st.sampled_from([1, 1, 2, 3]), max_size=4).map(tuple))
    kw = {}
    if s and draw(st.booleans()):
        kw["dim"] = draw(st.integers(-len(s), len(s) - 1))
    return (s,), kw


@st.composite
def _expand_gen(draw):
    s = draw(st.lists(st.sampled_from([1, 1, 2, 3]), max_size=3).map(tuple))
    lead = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    target = lead + tuple(draw(st.integers(1, 3)) if d == 1 else (d if draw(st.booleans()) else -1)
                          for d in s)
    return (s,), {"size": target}


@st.composite
def _flatten_gen(draw):
    s = draw(shape_st())
    nd = max(len(s), 1)
    a, b = sorted(draw(st.lists(st.integers(0, nd - 1), min_size=2, max_size=2)))
    return (s,), {"start_dim": a, "end_dim": b - nd if draw(st.booleans()) else b}


@st.composite
def _cat_gen(draw, stack=False):
    n = draw(st.integers(1, 3))
    base = list(draw(shape_st(min_dims=1)))
    nd = len(base)
    d = draw(st.integers(-nd, nd - 1))
    shapes = []
    for _ in range(n):
        s = list(base)
        if not stack:
            s[d] = draw(st.integers(1, 3))
        shapes.append(tuple(s))
    if stack:
        d = draw(st.integers(-nd - 1, nd))
    return tuple(shapes), {"dim": d}


@st.composite
def _split_gen(draw):
    s = draw(shape_st(min_dims=1))
    nd = len(s)
    d = draw(st.integers(-nd, nd - 1))
    n = s[d]
    if draw(st.booleans()):
        arg = draw(st.integers(1, n + 1))
    else:
        cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
        pts = [0] + cuts + [n]
        arg = [b - a for a, b in zip(pts, pts[1:])]
    return (s,), {"split": arg, "dim": d}


@st.composite
def _flip_gen(draw):
    s = draw(shape_st(min_dims=1))
    nd = len(s)
    dims = draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
    return (s,), {"dims": tuple(dims)}


@st.composite
def _repeat_gen(draw):
    s = draw(shape_st(max_dims=2))
    reps = tuple(draw(st.lists(st.integers(1, 3), min_size=len(s), max_size=len(s) + 1)))
    return (s,), {"reps": reps}


@st.composite
def _narrow_gen(draw):
    s = draw(shape_st(min_dims=1))
    nd = len(s)
    d = draw(st.integers(-nd, nd - 1))
    start = draw(st.integers(0, s[d] - 1))
    length = draw(st.integers(0, s[d] - start))
    return (s,), {"dim": d, "start": start, "length": length}


@st.composite
def _select_gen(draw):
    s = draw(shape_st(min_dims=1))
    d = draw(st.integers(-len(s), len(s) - 1))
    return (s,), {"dim": d, "index": draw(st.integers(-s[d], s[d] - 1))}


@st.composite
def _diagonal_gen(draw):
    s = draw(shape_st(min_dims=2))
    nd = len(s)
    d1, d2 = draw(st.lists(st.integers(-nd, nd - 1), min_size=2, max_size=2).filter(
        lambda p: p[0] % nd != p[1] % nd))
    return (s,), {"offset": draw(st.integers(-3, 3)), "dim1": d1, "dim2": d2}


@st.composite
def _index_list(draw, n, size=None, min_size=1):
    return draw(st.lists(st.integers(-n, n - 1), min_size=min_size, max_size=5 if size is None else size))


@st.composite
def _basic_index_gen(draw):
    s = draw(shape_st(min_dims=1))
    key = []
    for d in s[:draw(st.integers(1, len(s)))]:
        kind = draw(st.sampled_from(["int", "slice", "full", "none"]))
        if kind == "int":
            key.append(draw(st.integers(-d, d - 1)))
        elif kind == "slice":
            a = draw(st.integers(-d, d))
            key.append(slice(a, draw(st.integers(-d, d)), draw(st.integers(1, 2))))
        elif kind == "none":
            key.append(None)
            key.append(slice(None))
        else:
            key.append(slice(None))
    if draw(st.booleans()):
        key.insert(0, Ellipsis) if len(key) < len(s) and draw(st.booleans()) else key.append(Ellipsis)
    return (s,), {"key": tuple(key)}


@st.composite
def _adv_index_gen(draw):
    s = draw(shape_st(min_dims=1))
    kind = draw(st.sampled_from(["list", "tensor", "two", "mask", "slice_then"]))
    if kind == "list":
        return (s,), {"kind": kind, "idx": draw(_index_list(s[0]))}
    if kind == "tensor":
        shp = draw(shape_st(min_dims=1, max_dims=2, max_side=3))
        idx = draw(st.lists(st.integers(0, s[0] - 1), min_size=int(np.prod(shp)),
                            max_size=int(np.prod(shp))))
        return (s,), {"kind": kind, "idx": np.array(idx, np.int64).reshape(shp)}
    if kind == "two" and len(s) >= 2:
        k = draw(st.integers(1, 4))
        i0 = draw(st.lists(st.integers(0, s[0] - 1), min_size=k, max_size=k))
        i1 = draw(st.lists(st.integers(0, s[1] - 1), min_size=k, max_size=k))
        return (s,), {"kind": kind, "idx": (i0, i1)}
    if kind == "slice_then" and len(s) >= 2:
        return (s,), {"kind": kind, "idx": draw(_index_list(s[1]))}
    m = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(s)), max_size=int(np.prod(s)))),
                 bool).reshape(s)
    return (s,), {"kind": "mask", "idx": m}


def _adv_index(T, x, kind, idx):
    if kind == "list":
        return x[idx]
    if kind == "tensor":
        return x[T.tensor(idx)]
    if kind == "two":
        return x[idx[0], idx[1]]
    if kind == "slice_then":
        return x[:, idx]
    return x[T.tensor(idx)]


@st.composite
def _index_select_gen(draw):
    s = draw(shape_st(min_dims=1))
    nd = len(s)
    d = draw(st.integers(-nd, nd - 1))
    idx = draw(st.lists(st.integers(0, s[d] - 1), min_size=1, max_size=5))
    return (s,), {"dim": d, "index": idx}


@st.composite
def _gather_gen(draw):
    s = draw(shape_st(min_dims=1))
    nd = len(s)
    d = draw(st.integers(-nd, nd - 1))
    ishape = tuple(draw(st.integers(1, 4)) if i == d % nd else draw(st.integers(1, n))
                   for i, n in enumerate(s))
    cnt = int(np.prod(ishape))
    idx = np.array(draw(st.lists(st.integers(0, s[d] - 1), min_size=cnt, max_size=cnt)),
                   np.int64).reshape(ishape)
    return (s,), {"dim": d, "index": idx}


@st.composite
def _scatter_gen(draw, distinct=True, value=False):
    """(input, src) shapes and an index for scatter along a drawn dim: the index is
    no larger than the input outside ``dim``; ``distinct``: no position is written
    twice (PyTorch does not say which write wins)."""
    s = draw(shape_st(min_dims=1))
    nd = len(s)
    d = draw(st.integers(-nd, nd - 1))
    ishape = tuple(draw(st.integers(1, s[i] if (i != d % nd or distinct) else 4))
                   for i in range(nd))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    if distinct:     # along dim: a random arrangement of distinct rows for every column
        idx = np.argsort(rng.random(ishape[:d % nd] + (s[d],) + ishape[d % nd + 1:]),
                         axis=d)[tuple(slice(0, n) for n in ishape)]
    else:
        idx = rng.integers(0, s[d], ishape)
    return ((s,) if value else (s, ishape)), {"dim": d, "index": idx.astype(np.int64)}


@st.composite
def _unique_gen(draw):
    s = draw(shape_st())
    kw = {k: draw(st.booleans()) for k in ("sorted", "return_inverse", "return_counts")}
    if s and draw(st.booleans()):
        kw["dim"] = draw(st.integers(-len(s), len(s) - 1))
    return (s,), kw


# ---------------------------------------------------------- ops2 generators
@st.composite
def _diag_gen(draw, nd):
    s = draw(shape_st(min_dims=nd, max_dims=nd))
    return (s,), {"diagonal": draw(st.integers(-2, 2))}


@st.composite
def _tile_gen(draw):
    s = draw(shape_st(max_dims=2))
    return (s,), {"dims": tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))}


@st.composite
def _repeat_interleave_gen(draw, tensor=False):
    s = draw(shape_st(min_dims=1 if tensor else 0))
    kw = {}
    if s and (tensor or draw(st.booleans())):
        kw["dim"] = draw(st.integers(-len(s), len(s) - 1))
    if tensor:
        n = s[kw["dim"]]
        kw["repeats"] = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)),
                                 np.int64)
    else:
        kw["repeats"] = draw(st.integers(0, 3))
    return (s,), kw


@st.composite
def _diff_gen(draw):
    (s,), kw = draw(_dim_of(min_dims=1))
    kw["n"] = draw(st.integers(1, 2))
    shapes = (s,)
    if draw(st.booleans()):
        shapes = (s, tuple(2 if i == kw["dim"] % len(s) else n for i, n in enumerate(s)))
    return shapes, kw


@st.composite
def _index_add_gen(draw):
    s = draw(shape_st(min_dims=1))
    d = draw(st.integers(-len(s), len(s) - 1))
    idx = draw(st.lists(st.integers(0, s[d] - 1), min_size=1, max_size=4))
    src = tuple(len(idx) if i == d % len(s) else n for i, n in enumerate(s))
    kw = {"dim": d, "index": np.array(idx, np.int64)}
    if draw(st.booleans()):
        kw["alpha"] = draw(st.sampled_from([2.0, -0.5]))
    return (s, src), kw


@st.composite
def _meshgrid_gen(draw):
    n = draw(st.integers(1, 3))
    shapes = tuple((draw(st.integers(1, 4)),) for _ in range(n))
    return shapes, {"indexing": draw(st.sampled_from(["ij", "xy"]))}


@st.composite
def _tensordot_gen(draw):
    k = draw(st.integers(0, 2))
    c = tuple(draw(st.lists(st.integers(1, 3), min_size=k, max_size=k)))
    fa = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    fb = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    if draw(st.booleans()):
        return (fa + c, c + fb), {"dims": k}
    # explicit lists: contract a's trailing dims with b's leading dims reversed
    pa = list(range(len(fa), len(fa) + k))
    pb = list(range(k))[::-1]
    return (fa + c, c[::-1] + fb), {"dims": (pa, pb)}


@st.composite
def _cdist_gen(draw):
    m = draw(st.integers(1, 3))
    batch = tuple(draw(st.lists(st.integers(1, 2), max_size=1)))
    p, r = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return (batch + (p, m), batch + (r, m)), {"p": draw(st.sampled_from([2.0, 1.0, 3.0]))}


@st.composite
def _index_put_acc_gen(draw):
    s = draw(shape_st(min_dims=1))
    idx = draw(st.lists(st.integers(0, s[0] - 1), min_size=1, max_size=4))
    return (s, (len(idx),) + s[1:]), {"idx": idx}


@st.composite
def _masked_gen(draw, with_value_tensor=False):
    b = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
    xs, ms = b.input_shapes
    # the mask must broadcast *to* the input's shape
    full = np.broadcast_shapes(xs, ms)
    xs = full
    m = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(ms)), max_size=int(np.prod(ms)))),
                 bool).reshape(ms)
    shapes = (xs, ()) if with_value_tensor else (xs,)
    return shapes, {"mask": m, "value": draw(st.sampled_from([0.0, -1.5, 3.0]))}


@st.composite
def _where_gen(draw):
    b = draw(mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=4))
    cs, xs, ys = b.input_shapes
    c = np.array(draw(st.lists(st.booleans(), min_size=int(np.prod(cs)), max_size=int(np.prod(cs)))),
                 bool).reshape(cs)
    return (xs, ys), {"cond": c}


@st.composite
def _classes(draw, spatial=False, soft=False, allow_1d=True):
    n, c = draw(st.integers(1, 4)), draw(st.integers(2, 4))
    kind = draw(st.sampled_from(["1d", "2d", "kd"] if spatial else (["1d", "2d"] if allow_1d else ["2d"])))
    if kind == "1d":
        xs, ts = (c,), ()
    elif kind == "2d":
        xs, ts = (n, c), (n,)
    else:
        d = draw(st.integers(1, 3))
        xs, ts = (n, c, d), (n, d)
    kw = {"reduction": draw(st.sampled_from(["mean", "sum", "none"]))}
    if draw(st.booleans()):
        kw["weight"] = np.array(draw(st.lists(st.floats(0.1, 2.0), min_size=c, max_size=c)),
                                np.float32)
    if soft:
        return (xs, xs), kw
    cnt = int(np.prod(ts))
    t = np.array(draw(st.lists(st.integers(0, c - 1), min_size=cnt, max_size=cnt)),
                 np.int64).reshape(ts)
    if draw(st.booleans()):
        kw["ignore_index"] = draw(st.sampled_from([0, 1, -100]))
        # keep at least one target not ignored so 'mean' is defined
        if t.size and np.all(t == kw["ignore_index"]):
            t.reshape(-1)[0] = (kw["ignore_index"] + 1) % c
    kw["target"] = t
    return (xs,), kw


@st.composite
def _ce_gen(draw, soft=False):
    shapes, kw = draw(_classes(spatial=True, soft=soft))
    if draw(st.booleans()):
        kw["label_smoothing"] = draw(st.sampled_from([0.1, 0.25]))
    return shapes, kw


def _ce(T, x, *rest, target=None, weight=None, **kw):
    F = T.nn.functional
    if weight is not None:
        kw["weight"] = T.tensor(weight)
    if rest:   # soft targets: a probability distribution along the class dim
        cd = 1 if x.dim() > 1 else 0
        tgt = F.softmax(rest[0], cd)
        return F.cross_entropy(x, tgt, **kw)
    return F.cross_entropy(x, T.tensor(target), **kw)


def _nll(T, x, target=None, weight=None, **kw):
    F = T.nn.functional
    if weight is not None:
        kw["weight"] = T.tensor(weight)
    return F.nll_loss(F.log_softmax(x, 1 if x.dim() > 1 else 0), T.tensor(target), **kw)


@st.composite
def _bce_gen(draw, logits=False):
    s = draw(shape_st())
    kw = {"reduction": draw(st.sampled_from(["mean", "sum", "none"]))}
    if draw(st.booleans()):
        kw["weight"] = np.random.default_rng(len(s)).uniform(0.2, 2.0, s[-1:] if s else ()).astype(np.float32)
    if logits and draw(st.booleans()):
        kw["pos_weight"] = np.random.default_rng(7).uniform(0.2, 3.0, s[-1:] if s else ()).astype(np.float32)
    return (s, s), kw


def _bce(T, p, y, weight=None, **kw):
    if weight is not None:
        kw["weight"] = T.tensor(weight)
    return T.nn.functional.binary_cross_entropy(p, y, **kw)


def _bcel(T, x, y, weight=None, pos_weight=None, **kw):
    if weight is not None:
        kw["weight"] = T.tensor(weight)
    if pos_weight is not None:
        kw["pos_weight"] = T.tensor(pos_weight)
    return T.nn.functional.binary_cross_entropy_with_logits(x, y, **kw)


@st.composite
def _loss_gen(draw):
    s = draw(shape_st())
    return (s, s), {"reduction": draw(st.sampled_from(["mean", "sum", "none"]))}


@st.composite
def _linear_gen(draw):
    i, o = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    lead = draw(st.lists(st.integers(1, 3), max_size=2).map(tuple))
    if draw(st.booleans()):
        return (lead + (i,), (o, i), (o,)), {}
    return (lead + (i,), (o, i)), {}


@st.composite
def _softmax_gen(draw):
    s = draw(shape_st())
    nd = max(len(s), 1)
    return (s,), {"dim": draw(st.integers(-nd, nd - 1))}


@st.composite
def _einsum_gen(draw):
    eq = draw(st.sampled_from(["ij,jk->ik", "i,i->", "ij->ji", "bij,bjk->bik", "ij->j", "i,j->ij"]))
    sizes = {c: draw(st.integers(1, 3)) for c in "ijkb"}
    ins = eq.split("->")[0].split(",")
    return tuple(tuple(sizes[c] for c in op) for op in ins), {"eq": eq}


@st.composite
def _layer_norm_gen(draw):
    s = draw(shape_st(min_dims=1))
    k = draw(st.integers(1, len(s)))
    if int(np.prod(s[-k:])) == 1:   # one element: var = 0, gradients are round-off
        s = s[:-1] + (2,)
    return (s, s[-k:], s[-k:]), {"k": k}


def _layer_norm(T, x, w, b, k):
    return T.nn.functional.layer_norm(x, x.shape[-k:], w, b, eps=1e-5)


@st.composite
def _group_norm_gen(draw):
    s = draw(shape_st(min_dims=2))
    groups = draw(st.sampled_from([g for g in range(1, s[1] + 1) if s[1] % g == 0]))
    if s[1] // groups * int(np.prod(s[2:])) == 1:   # one element per group: var = 0
        s = s + (2,)
    return (s, (s[1],), (s[1],)), {"groups": groups}


def _group_norm(T, x, w, b, groups):
    return T.nn.functional.group_norm(x, groups, w, b, eps=1e-5)


@st.composite
def _batch_norm_gen(draw):
    s = draw(shape_st(min_dims=2))
    kw = {"training": draw(st.booleans())}
    if not kw["training"] or draw(st.booleans()):
        rng = np.random.default_rng(s[1])
        kw["stats"] = (rng.normal(size=s[1]).astype(np.float32),
                       rng.uniform(0.5, 2.0, s[1]).astype(np.float32))
    return (s, (s[1],), (s[1],)), kw


def _batch_norm(T, x, w, b, training, stats=None):
    rm = rv = None
    if stats is not None:
        rm, rv = T.tensor(stats[0].copy()), T.tensor(stats[1].copy())
    out = T.nn.functional.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3)
    return (out,) + ((rm, rv) if rm is not None else ())


# ------------------------------------------------------ convolution and pooling
def _ints_kw(draw, vals):
    """A drawn per-dim tuple, passed as one int when all equal (half the time)."""
    vals = tuple(vals)
    return vals[0] if len(set(vals)) == 1 and draw(st.booleans()) else vals


@st.composite
def _conv_gen(draw, nd):
    """conv{nd}d: (input, weight, bias) shapes and stride/padding/dilation/groups; some
    draws are invalid (kernel larger than the padded input, 'same' with a stride) and
    must raise the same error class as torch."""
    groups = draw(st.sampled_from([1, 1, 2]))
    cg, og = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    k = [draw(st.integers(1, 3)) for _ in range(nd)]
    sp = tuple(draw(st.integers(2, 6)) for _ in range(nd))
    batch = draw(st.sampled_from([(), (1,), (2,)]))       # () : unbatched
    kw = {"use_bias": draw(st.booleans())}
    if draw(st.booleans()):
        kw["stride"] = _ints_kw(draw, [draw(st.integers(1, 2)) for _ in range(nd)])
    pad = draw(st.sampled_from(["none", "ints", "same", "valid"]))
    if pad == "ints":
        kw["padding"] = _ints_kw(draw, [draw(st.integers(0, 2)) for _ in range(nd)])
    elif pad != "none":
        kw["padding"] = pad
    if draw(st.booleans()):
        kw["dilation"] = _ints_kw(draw, [draw(st.integers(1, 2)) for _ in range(nd)])
    if groups > 1:
        kw["groups"] = groups
    return (batch + (groups * cg,) + sp, (groups * og, cg) + tuple(k), (groups * og,)), kw


def _conv(name):
    def fn(T, x, w, b, use_bias, **kw):
        return getattr(T.nn.functional, name)(x, w, b if use_bias else None, **kw)
    return fn


@st.composite
def _pool_gen(draw, nd, kind):
    """{max,avg}_pool{nd}d: input shape and kernel/stride/padding/... (padding at most
    half the kernel; some windows do not fit and must raise as in torch)."""
    k = [draw(st.integers(1, 3)) for _ in range(nd)]
    sp = tuple(draw(st.integers(1, 7)) for _ in range(nd))
    lead = draw(st.sampled_from([(2,), (1, 2), (2, 3)]))
    kw = {"kernel_size": _ints_kw(draw, k)}
    if draw(st.booleans()):
        kw["stride"] = _ints_kw(draw, [draw(st.integers(1, 3)) for _ in range(nd)])
    # padding or dilation, not both: a dilated window can then lie wholly in the padding,
    # where torch's max_pool2d returns indices outside the input (and its backward writes
    # out of bounds)
    if draw(st.booleans()):
        kw["padding"] = _ints_kw(draw, [draw(st.integers(0, kk // 2)) for kk in k])
    elif kind == "max" and draw(st.booleans()):
        kw["dilation"] = _ints_kw(draw, [draw(st.integers(1, 2)) for _ in range(nd)])
    kw["ceil_mode"] = draw(st.booleans())
    if kind == "avg":
        kw["count_include_pad"] = draw(st.booleans())
        if nd == 2 and draw(st.integers(0, 3)) == 0:
            kw["divisor_override"] = 3
    return (lead + sp,), kw


@st.composite
def _adaptive_gen(draw, nd):
    sp = tuple(draw(st.integers(1, 7)) for _ in range(nd))
    lead = draw(st.sampled_from([(2,), (1, 2), (2, 3)]))
    out = [draw(st.sampled_from([1, 2, 3, 5, None])) for _ in range(nd)]
    if nd == 1:
        out = out[0] or 2
    elif None not in out and len(set(out)) == 1 and draw(st.booleans()):
        out = out[0]
    else:
        out = tuple(out)
    return (lead + sp,), {"output_size": out}


def _F(name, **k):
    return lambda T, *xs, **kw: getattr(T.nn.functional, name)(*xs, **dict(k, **kw))


def _aten(T, name):
    """An op that torch exposes only as torch.ops.aten.NAME (leafgrad: ops.elementwise.NAME)."""
    if T.__name__ == "torch":
        return getattr(T.ops.aten, name)
    from leafgrad.ops import elementwise
    return getattr(elementwise, name)


@st.composite
def _const_of_shape(draw, lo, hi):
    """One input's shape, and a same-shaped float array of constants in [lo, hi] (an
    operand without a gradient: igamma's a, zeta's s)."""
    s = draw(shape_st())
    vals = draw(st.lists(st.floats(lo, hi), min_size=int(np.prod(s)), max_size=int(np.prod(s))))
    return (s,), {"a" if lo < 1 else "s": np.array(vals, np.float64).reshape(s)}


@st.composite
def _poly_gen(draw):
    """A shape and a polynomial degree n (an int, or an integer tensor of the same shape)."""
    s = draw(shape_st())
    if draw(st.booleans()):
        return (s,), {"n": draw(st.integers(-1, 12))}
    n = draw(st.lists(st.integers(0, 12), min_size=int(np.prod(s)), max_size=int(np.prod(s))))
    return (s,), {"n": np.array(n, np.int64).reshape(s)}


def _degree(T, n):
    return T.tensor(n) if isinstance(n, np.ndarray) else n


def _poly_row(name):
    # the shifted polynomials live on [0, 1]
    shift = name.startswith("shifted")
    return Row("special_" + name, lambda T, x, n: getattr(T.special, name)(
        x * 0.5 + 0.5 if shift else x, _degree(T, n)), gen=_poly_gen())


def _unary(name, dom="real", **k):
    return Row(name, lambda T, x: getattr(T, name)(x), (dom,), **k)


def _m(method, *args, **kwargs):
    """x.method(*args)."""
    return lambda T, x, **kw: getattr(x, method)(*args, **dict(kwargs, **kw))


def _inplace(name, dom="real", *args, ret_x=True, **k):
    # out-of-place wrapper: clone (so leaves stay untouched), then the in-place op
    def fn(T, x):
        y = x.clone() if x.requires_grad else x.clone()
        r = getattr(y, name)(*args)
        return r
    k.setdefault("covers", ("inplace." + name,))
    return Row(name, fn, (dom,), **k)


def _inplace2(name, doms=("real", "nonzero"), **k):
    def fn(T, x, y):
        return getattr(x.clone(), name)(y)

    @st.composite
    def gen(draw):
        b = draw(mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
        xs, ys = b.input_shapes
        return (np.broadcast_shapes(xs, ys), ys), {}
    k.setdefault("covers", ("inplace." + name,))
    return Row(name, fn, doms, gen=gen(), **k)


ROWS = [
    # ------------------------------------------------------ elementwise unary
    _unary("neg"), _unary("exp"), _unary("exp2"), _unary("expm1"),
    _unary("log", "positive"), _unary("log2", "positive"), _unary("log10", "positive"),
    _unary("log1p", "positive"), _unary("sqrt", "positive"), _unary("rsqrt", "positive"),
    _unary("reciprocal", "nonzero"), _unary("abs", "nonzero"), _unary("sign", "nonzero"),
    _unary("floor", "frac"), _unary("ceil", "frac"), _unary("round", "frac", covers=("round_",)),
    _unary("trunc", "frac"), _unary("frac", "frac"),
    _unary("sin"), _unary("cos"), _unary("tan", "unit"), _unary("asin", "unit"),
    _unary("acos", "unit"), _unary("atan"), _unary("sinh"), _unary("cosh"), _unary("tanh"),
    _unary("asinh"), _unary("atanh", "unit"), _unary("sigmoid"), _unary("relu", "nonzero"),
    _unary("square"), _unary("erf"),
    Row("sigmoid:large", lambda T, x: T.sigmoid(x * 30)),
    Row("clamp", lambda T, x, **kw: T.clamp(x, **kw), ("real",),
        gen=st.tuples(shape_st().map(lambda s: (s,)), st.sampled_from([{"min": -0.5, "max": 0.7}, {"min": -0.5},
                                                  {"max": 0.3}]))),
    Row("clamp_min", lambda T, x: T.clamp_min(x, -0.3)),
    Row("clamp_max", lambda T, x: T.clamp_max(x, 0.3)),
    Row("clamp:tensor_bounds", lambda T, x, lo, hi: T.clamp(x, lo, hi), ("real", "real", "real"),
        # x has the full shape (torch itself refuses clamp(0-d, (1,), 0-d))
        gen=_bcast(3).map(lambda c: ((np.broadcast_shapes(*c[0]),) + c[0][1:], {})),
        broadcasts=True),
    # ------------------------------------------------------ elementwise binary
    Row("add", lambda T, a, b: T.add(a, b), ("real", "real"), gen=_bcast(2), broadcasts=True),
    Row("add:alpha", lambda T, a, b: a.add(b, alpha=2.5), ("real", "real"), gen=_bcast(2),
        broadcasts=True, covers=("add",)),
    Row("add:scalar", lambda T, a: 1.5 + a + 2, covers=("add",)),
    Row("sub", lambda T, a, b: T.sub(a, b), ("real", "real"), gen=_bcast(2), broadcasts=True),
    Row("rsub:scalar", lambda T, a: 1.5 - a, covers=("rsub",)),
    Row("mul", lambda T, a, b: T.mul(a, b), ("real", "real"), gen=_bcast(2), broadcasts=True),
    Row("mul:scalar", lambda T, a: a * 3 * -0.5, covers=("mul",)),
    Row("div", lambda T, a, b: T.div(a, b), ("real", "nonzero"), gen=_bcast(2), broadcasts=True),
    Row("div:rscalar", lambda T, a: 2.0 / a, ("nonzero",), covers=("div", "reciprocal")),
    Row("div:scalar", lambda T, a: a / 4, covers=("div",)),
    Row("pow:tensor_number", lambda T, a, **kw: a ** kw["e"], ("positive",),
        gen=st.tuples(_same(1).map(lambda s: s[0]),
                      st.sampled_from([{"e": 2}, {"e": 3}, {"e": 0.5}, {"e": -1}, {"e": 0},
                                       {"e": 2.5}, {"e": -1.5}, {"e": 1}])),
        covers=("pow",)),
    Row("pow:tensor_int_real", lambda T, a, **kw: T.pow(a, kw["e"]), ("real",),
        gen=st.tuples(_same(1).map(lambda s: s[0]), st.sampled_from([{"e": 2}, {"e": 3}])),
        covers=("pow",)),
    Row("pow:number_tensor", lambda T, a, **kw: kw["b"] ** a, ("real",),
        gen=st.tuples(_same(1).map(lambda s: s[0]), st.sampled_from([{"b": 2.0}, {"b": 0.5},
                                                                    {"b": 3}])),
        covers=("pow",)),
    Row("pow:tensor_tensor", lambda T, a, b: T.pow(a, b), ("positive", "real"), gen=_bcast(2),
        broadcasts=True, covers=("pow",)),
    Row("maximum", lambda T, a, b: T.maximum(a, b), ("real", "real"), gen=_bcast(2),
        broadcasts=True),
    Row("minimum", lambda T, a, b: T.minimum(a, b), ("real", "real"), gen=_bcast(2),
        broadcasts=True),
    Row("logaddexp", lambda T, a, b: T.logaddexp(a, b), ("real", "real"), gen=_bcast(2),
        broadcasts=True),
    Row("maximum:ties", lambda T, a: T.maximum(a, a.detach()) + T.minimum(a.round(), 0.0 * a),
        ("frac",), covers=("maximum", "minimum"), fd=False),
    # the fused backward formulas (torch: aten::tanh_backward / sigmoid_backward)
    Row("tanh_backward", lambda T, g, r: _aten(T, "tanh_backward")(g, r), ("real", "unit"),
        gen=_bcast(2), broadcasts=True),
    Row("sigmoid_backward", lambda T, g, r: _aten(T, "sigmoid_backward")(g, r),
        ("real", "unit"), gen=_bcast(2), broadcasts=True),
    Row("atan2", lambda T, a, b: T.atan2(a, b), ("nonzero", "nonzero"), gen=_bcast(2),
        broadcasts=True),
    Row("fmod", lambda T, a, b: T.fmod(a * 3, b), ("real", "nonzero"), gen=_bcast(2),
        broadcasts=True, fd=False),
    Row("remainder", lambda T, a, b: T.remainder(a * 3, b), ("real", "nonzero"), gen=_bcast(2),
        broadcasts=True, fd=False),
    Row("where", lambda T, a, b, cond: T.where(T.tensor(cond), a, b), ("real", "real"),
        gen=_where_gen(), broadcasts=True),
    Row("where:scalar", lambda T, a, cond: T.where(T.tensor(cond), a, 0.0), ("real",),
        gen=_where_gen().map(lambda c: (c[0][:1], c[1])), covers=("where",)),
    # ------------------------------------------------ special functions (ops/special*.py)
    _unary("lgamma", "positive"), _unary("digamma", "positive"), _unary("erfc"),
    _unary("erfinv", "unit"), _unary("sinc"), _unary("deg2rad"), _unary("rad2deg"),
    _unary("acosh", "above1"), _unary("sgn", "nonzero"), _unary("i0"),
    _unary("positive"), _unary("fix", "frac", covers=("trunc",)),
    Row("lgamma:negative", lambda T, x: T.lgamma(x - 1.0), ("frac",), covers=("lgamma",)),
    Row("digamma:negative", lambda T, x: T.digamma(x), ("frac",), covers=("digamma",)),
    Row("polygamma", lambda T, x, n: T.polygamma(n, x), ("positive",),
        gen=st.tuples(_same(1).map(lambda s: s[0]), st.sampled_from([0, 1, 2, 3]).map(
            lambda n: {"n": n}))),
    Row("polygamma:method", lambda T, x: x.polygamma(2) + x.polygamma(1), ("frac",),
        covers=("polygamma",)),
    Row("mvlgamma", lambda T, x, p: T.mvlgamma(x + 1.5, p), ("positive",),
        gen=st.tuples(_same(1).map(lambda s: s[0]), st.sampled_from([1, 2, 3]).map(
            lambda p: {"p": p}))),
    Row("logit", lambda T, x: T.logit(x), ("prob",)),
    Row("logit:eps", lambda T, x: T.logit(x * 1.2 - 0.1, eps=0.1), ("prob",), fd=False,
        covers=("logit",)),
    Row("frexp", lambda T, x: tuple(T.frexp(x * 3)), ("nonzero",)),
    Row("special_entr", lambda T, x: T.special.entr(x), ("positive",)),
    Row("special_erfcx", lambda T, x: T.special.erfcx(x * 2 + 2), ("real",)),
    Row("special_ndtr", lambda T, x: T.special.ndtr(x * 2), ("real",)),
    Row("special_ndtri", lambda T, x: T.special.ndtri(x), ("prob",)),
    Row("special_log_ndtr", lambda T, x: T.special.log_ndtr(x * 5), ("real",)),
    Row("special_i0e", lambda T, x: T.special.i0e(x * 4), ("nonzero",)),
    Row("special_i1", lambda T, x: T.special.i1(x * 4), ("real",)),
    Row("special_i1e", lambda T, x: T.special.i1e(x * 4), ("nonzero",)),
    Row("xlogy", lambda T, a, b: T.xlogy(a, b), ("real", "positive"), gen=_bcast(2),
        broadcasts=True),
    Row("xlogy:zeros", lambda T, a, b: T.xlogy(a.round() * 0, b - 1.0), ("real", "positive"),
        gen=_bcast(2), broadcasts=True, fd=False, covers=("xlogy",)),
    Row("xlogy:number", lambda T, a: T.xlogy(2.0, a) + T.xlogy(a, 3), ("positive",),
        covers=("xlogy",)),
    Row("special_xlog1py", lambda T, a, b: T.special.xlog1py(a, b), ("real", "positive"),
        gen=_bcast(2), broadcasts=True),
    Row("hypot", lambda T, a, b: T.hypot(a, b), ("nonzero", "nonzero"), gen=_bcast(2),
        broadcasts=True),
    Row("copysign", lambda T, a, b: T.copysign(a, b), ("nonzero", "nonzero"), gen=_bcast(2),
        broadcasts=True),
    Row("copysign:number", lambda T, a: T.copysign(a, -1.5), ("nonzero",),
        covers=("copysign",)),
    Row("fmax", lambda T, a, b: T.fmax(a, b), ("real", "real"), gen=_bcast(2),
        broadcasts=True),
    Row("fmin", lambda T, a, b: T.fmin(a, b), ("real", "real"), gen=_bcast(2),
        broadcasts=True),
    Row("fmax:nan", lambda T, a, b: T.fmax(a, T.log(b - 1.0)) + T.fmin(T.log(b - 1.0), a),
        ("real", "positive"), gen=_same(2), fd=False, covers=("fmax", "fmin")),
    Row("heaviside", lambda T, a, b: T.heaviside(a.round(), b), ("frac", "real"),
        gen=_same(2), fd=False),
    Row("nextafter", lambda T, a, b: T.nextafter(a, b), ("real", "real"), gen=_bcast(2),
        broadcasts=True),
    Row("ldexp", lambda T, a, b: T.ldexp(a, b), ("real", "real"), gen=_bcast(2),
        broadcasts=True),
    Row("logaddexp2", lambda T, a, b: T.logaddexp2(a, b), ("real", "real"), gen=_bcast(2),
        broadcasts=True),
    Row("igamma", lambda T, x, a: T.igamma(T.tensor(a), x) + T.igammac(T.tensor(a * 2), x * 2),
        ("positive",), gen=_const_of_shape(0.2, 3.0), covers=("igamma", "igammac")),
    Row("igamma:input_grad", lambda T, a, x: T.igamma(a, x), ("positive", "positive"),
        gen=_same(2), fd=False, covers=("igamma",)),
    Row("special_zeta", lambda T, q, s: T.special.zeta(T.tensor(s), q), ("positive",),
        gen=_const_of_shape(1.2, 5.0)),
    Row("float_power", lambda T, a, b: T.float_power(a, b), ("positive", "real"),
        gen=_bcast(2), broadcasts=True),
    Row("float_power:number", lambda T, a: T.float_power(a, 2) + T.float_power(1.5, a),
        ("positive",), covers=("float_power",)),
    Row("lerp", lambda T, a, b: T.lerp(a, b, 0.3) + T.lerp(a, b, 0.8), ("real", "real"),
        gen=_bcast(2), broadcasts=True),
    Row("lerp:tensor_weight", lambda T, a, b, w: T.lerp(a, b, w), ("real", "real", "real"),
        gen=_bcast(3), broadcasts=True, covers=("lerp",)),
    # torch.special functions without a derivative in PyTorch (values only)
    Row("special_modified_bessel_i0", lambda T, x: T.special.modified_bessel_i0(x * 5)),
    Row("special_modified_bessel_i1", lambda T, x: T.special.modified_bessel_i1(x * 5)),
    Row("special_modified_bessel_k0", lambda T, x: T.special.modified_bessel_k0(x * 3),
        ("positive",)),
    Row("special_modified_bessel_k1", lambda T, x: T.special.modified_bessel_k1(x * 3),
        ("positive",)),
    Row("special_scaled_modified_bessel_k0", lambda T, x: T.special.scaled_modified_bessel_k0(
        x * 20), ("positive",)),
    Row("special_scaled_modified_bessel_k1", lambda T, x: T.special.scaled_modified_bessel_k1(
        x * 20), ("positive",)),
    Row("special_spherical_bessel_j0", lambda T, x: T.special.spherical_bessel_j0(x * 4)),
    # in [-2, 2]: PyTorch's float64 kernel is off by ~1e-5 on (-9, -2.09)
    Row("special_airy_ai", lambda T, x: T.special.airy_ai(x)),
    # J0, J1, Y0, Y1 in float32 only: PyTorch's float64 kernels are off by up to ~5e-7
    # near x = 5 (tests/test_special_vs_torch.py checks leafgrad's against exact series)
    Row("special_bessel_j0", lambda T, x: T.special.bessel_j0(x * 8), second_order=False),
    Row("special_bessel_j1", lambda T, x: T.special.bessel_j1(x * 8), second_order=False),
    Row("special_bessel_y0", lambda T, x: T.special.bessel_y0(x * 8), ("positive",),
        second_order=False),
    Row("special_bessel_y1", lambda T, x: T.special.bessel_y1(x * 8), ("positive",),
        second_order=False),
    *[_poly_row(n) for n in ("chebyshev_polynomial_t", "chebyshev_polynomial_u",
                             "chebyshev_polynomial_v", "chebyshev_polynomial_w",
                             "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
                             "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
                             "hermite_polynomial_h", "hermite_polynomial_he",
                             "laguerre_polynomial_l", "legendre_polynomial_p")],
    # -------------------------------------------------------------- reductions
    Row("sum", lambda T, x, **kw: T.sum(x, **kw), gen=_reduce_dims()),
    Row("sum:method_all", lambda T, x: x.sum(), covers=("sum",)),
    Row("mean", lambda T, x, **kw: T.mean(x, **kw), gen=_reduce_dims()),
    Row("amax", lambda T, x, **kw: T.amax(x, **kw), gen=_reduce_dims(allow_none=False)),
    Row("amin", lambda T, x, **kw: T.amin(x, **kw), gen=_reduce_dims(allow_none=False)),
    Row("amax:ties", lambda T, x, **kw: T.amax(x.round(), **kw) + T.amin(x.round(), **kw),
        ("frac",), gen=_reduce_dims(allow_none=False), fd=False, covers=("amax", "amin")),
    Row("max:full", lambda T, x: T.max(x), covers=("max",)),
    Row("min:full", lambda T, x: x.min(), covers=("min",)),
    Row("max:full_ties", lambda T, x: T.max(x.round()) * 2 + T.min(x.round()), ("frac",),
        covers=("max", "min"), fd=False),
    Row("max:dim", lambda T, x, **kw: tuple(T.max(x, **kw)), gen=_dim_of(min_dims=0, keepdim=True)
        if False else _dim_of(keepdim=True), covers=("max",)),
    Row("min:dim", lambda T, x, **kw: tuple(x.min(**kw)), gen=_dim_of(keepdim=True),
        covers=("min",)),
    Row("max:binary", lambda T, a, b: T.max(a, b), ("real", "real"), gen=_bcast(2),
        broadcasts=True, covers=("max", "maximum")),
    Row("argmax", lambda T, x, **kw: T.argmax(x, **kw), gen=_dim_of(keepdim=True)),
    Row("argmin", lambda T, x, **kw: x.argmin(**kw), gen=_dim_of(keepdim=True)),
    Row("argmax:flat", lambda T, x: T.argmax(x), covers=("argmax",)),
    Row("norm", lambda T, x, **kw: T.norm(x, **kw), gen=_norm_gen()),
    Row("norm:default", lambda T, x: x.norm(), ("nonzero",), covers=("norm",)),
    Row("var", lambda T, x, **kw: T.var(x, **kw), gen=_varstd()),
    Row("std", lambda T, x, **kw: T.std(x, **kw), gen=_varstd()),
    Row("var:unbiased_positional", lambda T, x: x.var(0, False) + x.std(0, True).sum(), gen=_same(1, min_dims=1, min_side=2),
        covers=("var", "std")),
    Row("prod", lambda T, x, **kw: T.prod(x, **kw), ("nonzero",),
        gen=_reduce_dims(allow_tuple=False)),
    Row("prod:zeros", lambda T, x, **kw: T.prod(x.round(), **kw), ("frac",),
        gen=_reduce_dims(allow_tuple=False), covers=("prod",), fd=False,
        second_order=False),   # see test_prod_second_order_with_zeros (xfail)
    Row("logsumexp", lambda T, x, **kw: T.logsumexp(x, **kw),
        gen=_reduce_dims(allow_none=False)),
    Row("cumsum", lambda T, x, **kw: T.cumsum(x, **kw), gen=_dim_of(min_dims=1)),
    Row("cumsum:0d", lambda T, x: T.cumsum(x, 0), gen=_same(1, max_dims=0), covers=("cumsum",)),
    Row("all", lambda T, x, **kw: (T.all(x > 0, **kw), T.any(x > 1, **kw),
                                   T.count_nonzero(x > 0, **kw)),
        gen=_dim_of(), covers=("all", "any", "count_nonzero")),
    # ------------------------------------------------------------------ linalg
    Row("matmul", lambda T, a, b: T.matmul(a, b), ("real", "real"), gen=_matmul_gen(),
        broadcasts=True),
    Row("matmul:operator", lambda T, a, b: a @ b, ("real", "real"), gen=_matmul_gen(),
        broadcasts=True, covers=("matmul",)),
    Row("mm", lambda T, a, b: T.mm(a, b), ("real", "real"), gen=_mm_gen("mm")),
    Row("mv", lambda T, a, b: T.mv(a, b), ("real", "real"), gen=_mm_gen("mv")),
    Row("dot", lambda T, a, b: T.dot(a, b), ("real", "real"), gen=_mm_gen("dot")),
    Row("bmm", lambda T, a, b: T.bmm(a, b), ("real", "real"), gen=_mm_gen("bmm")),
    Row("inner", lambda T, a, b: T.inner(a, b) + T.vdot(a, b), ("real", "real"),
        gen=_mm_gen("dot"), covers=("inner", "vdot")),
    Row("inner:nd", lambda T, a, b: T.inner(a, b), ("real", "real"),
        gen=st.tuples(shape_st(0, 2, 1, 3), shape_st(0, 2, 1, 3), st.integers(1, 4)).map(
            lambda t: ((t[0] + (t[2],), t[1] + (t[2],)), {}))),
    Row("ger", lambda T, a, b: T.ger(a, b), ("real", "real"), gen=_mm_gen("outer")),
    Row("outer", lambda T, a, b: T.outer(a, b), ("real", "real"), gen=_mm_gen("outer")),
    Row("addmm", lambda T, c, a, b: T.addmm(c, a, b), ("real", "real", "real"),
        gen=_mm_gen("addmm")),
    Row("addmm:beta_alpha", lambda T, c, a, b: T.addmm(c, a, b, beta=0.5, alpha=2.0),
        ("real", "real", "real"), gen=_mm_gen("addmm"), covers=("addmm",)),
    Row("inv", lambda T, x: T.linalg.inv(_well_conditioned(T, x)), gen=_square_gen()),
    Row("inv:method", lambda T, x: _well_conditioned(T, x).inverse() + T.inverse(
        _well_conditioned(T, x)), gen=_square_gen(), covers=("inv",)),
    Row("det", lambda T, x: T.linalg.det(_well_conditioned(T, x)), gen=_square_gen()),
    Row("det:method", lambda T, x: T.det(_well_conditioned(T, x)) * _well_conditioned(T, x).det(),
        gen=_square_gen(), covers=("det",)),
    Row("solve", _solve, ("real", "real"), gen=_square_gen(rhs=True)),
    # second order: leafgrad does not differentiate singular values twice
    Row("svdvals", lambda T, x: T.linalg.svdvals(x), gen=shape_st(min_dims=2).map(
        lambda s: ((s,), {})), second_order=False),
    Row("vector_norm", lambda T, x, p, **kw: T.linalg.vector_norm(x, p, **kw),
        gen=_norm_gen()),
    Row("matrix_norm", lambda T, x, **kw: T.linalg.matrix_norm(x, **kw),
        gen=_matrix_norm_gen(["fro", 1, -1, float("inf"), float("-inf")])),
    Row("matrix_norm:svd", lambda T, x, **kw: T.linalg.matrix_norm(x, **kw),
        gen=_matrix_norm_gen([2, -2, "nuc"]), second_order=False, covers=("matrix_norm",)),
    Row("linalg_norm", lambda T, x, **kw: T.linalg.norm(x, **kw), gen=_linalg_norm_gen(),
        second_order=False),
    Row("einsum", lambda T, *xs, eq: T.einsum(eq, *xs), ("real",), gen=_einsum_gen(),
        variadic=True),
    Row("linear", _F("linear"), ("real",), gen=_linear_gen(), variadic=True),
    # ------------------------------------------------------------------- shape
    Row("reshape", lambda T, x, shape: T.reshape(x, shape), gen=_reshape_gen("r")),
    Row("view", lambda T, x, shape: x.view(*shape), gen=_reshape_gen("r")),
    Row("view:method_reshape", lambda T, x, shape: x.reshape(shape).view(-1),
        gen=_reshape_gen("flat"), covers=("reshape", "view")),
    Row("view:after_t", lambda T, x: x.t().reshape(-1), gen=_same(1, min_dims=2, max_dims=2),
        covers=("reshape", "t")),
    Row("transpose", lambda T, x, d0, d1: T.transpose(x, d0, d1), gen=_two_dims()),
    Row("t", lambda T, x: T.t(x), gen=_same(1, max_dims=2)),
    Row("T", lambda T, x: x.T, gen=_same(1, max_dims=2)),
    Row("mT", lambda T, x: x.mT, gen=_same(1, min_dims=2)),
    Row("mH", lambda T, x: x.mH, gen=_same(1, min_dims=2)),
    Row("H", lambda T, x: x.H, gen=_same(1, min_dims=2, max_dims=2)),
    Row("permute", lambda T, x, dims: T.permute(x, dims), gen=_permute_gen()),
    Row("permute:method", lambda T, x, dims: x.permute(*dims), gen=_permute_gen(),
        covers=("permute",)),
    Row("movedim", lambda T, x, d0, d1: T.movedim(x, d0, d1), gen=_two_dims()),
    Row("unsqueeze", lambda T, x, dim: T.unsqueeze(x, dim), gen=_unsqueeze_gen()),
    Row("squeeze", lambda T, x, **kw: T.squeeze(x, **kw), gen=_squeeze_gen()),
    Row("expand", lambda T, x, size: x.expand(*size), gen=_expand_gen()),
    Row("expand_as", lambda T, x, size: x.expand_as(T.zeros(
        [s if s != -1 else x.shape[i - (len(size) - x.dim())] for i, s in enumerate(size)])),
        gen=_expand_gen()),
    Row("broadcast_to", lambda T, x, size: T.broadcast_to(x, size), gen=_expand_gen()),
    Row("broadcast_tensors", lambda T, a, b: T.broadcast_tensors(a, b), ("real", "real"),
        gen=_bcast(2), broadcasts=True),
    Row("sum_to_size", lambda T, a, b: (a * b).sum_to_size(b.shape), ("real", "real"),
        gen=_bcast(2).map(lambda s: ((np.broadcast_shapes(*s[0]), s[0][1]), {})),
        covers=("sum_to_size",)),
    Row("flatten", lambda T, x, **kw: T.flatten(x, **kw), gen=_flatten_gen()),
    Row("flatten:default", lambda T, x: x.flatten(), covers=("flatten",)),
    Row("ravel", lambda T, x: T.ravel(x.transpose(0, -1) if x.dim() else x)),
    Row("unflatten", lambda T, x: T.unflatten(x, 0, (1, -1)), gen=_same(1, min_dims=1)),
    Row("cat", lambda T, *xs, dim: T.cat(list(xs), dim), ("real",), gen=_cat_gen(),
        variadic=True),
    Row("cat:three", lambda T, *xs, dim: T.cat(xs, dim=dim), ("real", "real", "real"),
        gen=_cat_gen().filter(lambda c: len(c[0]) == 3), covers=("cat", "concat", "concatenate")),
    Row("stack", lambda T, *xs, dim: T.stack(list(xs), dim), ("real",),
        gen=_cat_gen(stack=True), variadic=True),
    Row("hstack", lambda T, a, b: T.hstack([a, b]), ("real", "real"),
        gen=_same(2, min_dims=1, max_dims=2)),
    Row("vstack", lambda T, a, b: T.vstack([a, b]), ("real", "real"),
        gen=_same(2, min_dims=1, max_dims=2)),
    Row("split", lambda T, x, split, dim: T.split(x, split, dim), gen=_split_gen()),
    Row("chunk", lambda T, x, split, dim: T.chunk(x, split if isinstance(split, int) else 2, dim),
        gen=_split_gen()),
    Row("unbind", lambda T, x, dim: T.unbind(x, dim), gen=_dim_of()),
    Row("flip", lambda T, x, dims: T.flip(x, dims), gen=_flip_gen()),
    Row("roll", lambda T, x, dims: T.roll(x, [1] * len(dims), dims), gen=_flip_gen()),
    Row("roll:flat", lambda T, x: T.roll(x, 2), gen=_same(1, min_dims=1), covers=("roll",)),
    Row("repeat", lambda T, x, reps: x.repeat(*reps), gen=_repeat_gen()),
    Row("narrow", lambda T, x, **kw: T.narrow(x, **kw), gen=_narrow_gen()),
    Row("select", lambda T, x, **kw: x.select(**kw) * 2, gen=_select_gen()),
    Row("diagonal", lambda T, x, **kw: T.diagonal(x, **kw) * 2, gen=_diagonal_gen()),
    Row("clone", lambda T, x: T.clone(x) * 2),
    # overlapping windows of the storage (k, 2) with strides (1, 1): AsStridedBackward0
    # sums the gradient of the positions read twice
    Row("as_strided", lambda T, x: T.as_strided(x.contiguous(), (max(x.numel() - 1, 0),
                                                 2 if x.numel() > 1 else 0), (1, 1)) * 2),
    Row("contiguous", lambda T, x: x.t().contiguous() * 2, gen=_same(1, max_dims=2)),
    Row("to_dtype", lambda T, x: x.double() * 2, covers=("to_dtype",)),
    Row("to_dtype:int", lambda T, x: (x * 3).long() + x.to(T.float64).int(), fd=False,
        covers=("to_dtype",)),
    Row("pad_nd", lambda T, x: T.nn.functional.pad(x, (1, 2)), gen=_same(1, min_dims=1),
        covers=("pad_nd", "pad")),
    Row("pad:2d", lambda T, x: T.nn.functional.pad(x, (0, 1, 2, 0), value=1.5),
        gen=_same(1, min_dims=2), covers=("pad",)),
    # ---------------------------------------------------------------- indexing
    Row("getitem:basic", lambda T, x, key: x[key], gen=_basic_index_gen(), covers=("getitem",)),
    Row("getitem:advanced", lambda T, x, **kw: _adv_index(T, x, **kw), gen=_adv_index_gen(),
        covers=("getitem",)),
    Row("index_select", lambda T, x, dim, index: T.index_select(x, dim, T.tensor(index)),
        gen=_index_select_gen()),
    Row("gather", lambda T, x, dim, index: T.gather(x, dim, T.tensor(index)), gen=_gather_gen()),
    Row("take_along_dim", lambda T, x, dim, index: T.take_along_dim(x, T.tensor(index), dim),
        gen=_gather_gen()),
    Row("scatter", lambda T, x, src, dim, index: T.scatter(x, dim, T.tensor(index), src),
        ("real", "real"), gen=_scatter_gen()),
    Row("scatter:value", lambda T, x, dim, index: x.scatter(dim, T.tensor(index), -1.5),
        gen=_scatter_gen(value=True), covers=("scatter",)),
    Row("scatter_add", lambda T, x, src, dim, index: T.scatter_add(x, dim, T.tensor(index), src),
        ("real", "real"), gen=_scatter_gen(distinct=False)),
    Row("scatter_add:method", lambda T, x, src, dim, index: x.scatter_add(dim, T.tensor(index),
                                                                         src),
        ("real", "real"), gen=_scatter_gen(distinct=False), covers=("scatter_add",)),
    # rounded values repeat; the values output is not differentiable (NotImplementedError
    # in both at backward)
    Row("unique", lambda T, x, **kw: T.unique((x * 2).round(), **kw), gen=_unique_gen(),
        fd=False),
    Row("unique:method", lambda T, x, **kw: (x * 2).round().detach().unique(**kw),
        gen=_unique_gen(), fd=False, covers=("unique",)),
    Row("masked_fill", lambda T, x, mask, value: T.masked_fill(x, T.tensor(mask), value),
        gen=_masked_gen()),
    Row("masked_fill:tensor_value", lambda T, x, v, mask, value: x.masked_fill(T.tensor(mask), v),
        ("real", "real"), gen=_masked_gen(with_value_tensor=True), covers=("masked_fill",)),
    Row("masked_select", lambda T, x, mask, value: T.masked_select(x, T.tensor(mask)),
        gen=_masked_gen()),
    Row("tril", lambda T, x, k: T.tril(x, k), gen=st.tuples(
        shape_st(min_dims=2).map(lambda s: (s,)), st.integers(-2, 2).map(lambda k: {"k": k}))),
    Row("triu", lambda T, x, k: T.triu(x, k), gen=st.tuples(
        shape_st(min_dims=2).map(lambda s: (s,)), st.integers(-2, 2).map(lambda k: {"k": k}))),
    Row("nonzero", lambda T, x: (T.nonzero(x > 0), T.argwhere(x > 0), T.where(x > 0),
                                 T.nonzero(x > 0, as_tuple=True)),
        covers=("nonzero", "argwhere", "where")),
    # ----------------------------------------------------------- nn.functional
    Row("softmax", lambda T, x, dim: T.nn.functional.softmax(x, dim), gen=_softmax_gen()),
    Row("softmax:torch_fn", lambda T, x, dim: T.softmax(x * 20, dim=dim), gen=_softmax_gen(),
        covers=("softmax",)),
    Row("log_softmax", lambda T, x, dim: T.nn.functional.log_softmax(x, dim), gen=_softmax_gen()),
    # second order in float32 is round-off here (both libraries, vs float64); first order is checked
    Row("log_softmax:large", lambda T, x, dim: x.mul(50).log_softmax(dim), gen=_softmax_gen(),
        covers=("log_softmax",), second_order=False),
    Row("softmin", lambda T, x, dim: T.nn.functional.softmin(x, dim), gen=_softmax_gen()),
    Row("cross_entropy", _ce, gen=_ce_gen()),
    Row("cross_entropy:soft", _ce, ("real", "real"), gen=_ce_gen(soft=True),
        covers=("cross_entropy",)),
    Row("nll_loss", _nll, gen=_classes(spatial=True)),
    Row("binary_cross_entropy", _bce, ("prob", "prob"), gen=_bce_gen()),
    Row("binary_cross_entropy_with_logits", _bcel, ("real", "prob"), gen=_bce_gen(logits=True)),
    Row("mse_loss", _F("mse_loss"), ("real", "real"), gen=_loss_gen()),
    Row("l1_loss", _F("l1_loss"), ("real", "real"), gen=_loss_gen()),
    Row("smooth_l1_loss", _F("smooth_l1_loss", beta=0.5), ("real", "real"), gen=_loss_gen()),
    Row("huber_loss", _F("huber_loss", delta=0.7), ("real", "real"), gen=_loss_gen()),
    Row("kl_div", lambda T, x, y, reduction: T.nn.functional.kl_div(
        x.log_softmax(-1), y.softmax(-1), reduction=reduction), ("real", "real"),
        gen=_loss_gen()),
    Row("kl_div:log_target", lambda T, x, y: T.nn.functional.kl_div(
        x.log_softmax(-1), y.log_softmax(-1), reduction="batchmean", log_target=True),
        ("real", "real"), gen=_same(2, min_dims=1), covers=("kl_div",)),
    Row("soft_margin_loss", lambda T, x, y, reduction: T.nn.functional.soft_margin_loss(
        x, y.sign().detach(), reduction=reduction), ("real", "nonzero"), gen=_loss_gen()),
    Row("margin_ranking_loss", lambda T, a, b, y: T.nn.functional.margin_ranking_loss(
        a, b, y.sign(), margin=0.1), ("real", "real", "nonzero"), gen=_same(3)),
    Row("hinge_embedding_loss", lambda T, x, y: T.nn.functional.hinge_embedding_loss(
        x, y.sign().detach()), ("real", "nonzero"), gen=_same(2)),
    Row("cosine_embedding_loss", lambda T, a, b, y: T.nn.functional.cosine_embedding_loss(
        a, b, y.sum(-1).sign().detach()), ("nonzero", "nonzero", "nonzero"),
        gen=shape_st(min_dims=2, max_dims=2).map(lambda s: ((s, s, s), {}))),
    Row("leaky_relu", lambda T, x, **kw: T.nn.functional.leaky_relu(x, **kw), ("nonzero",),
        gen=st.tuples(shape_st().map(lambda s: (s,)),
                      st.sampled_from([{}, {"negative_slope": 0.2}]))),
    Row("hardtanh", lambda T, x, **kw: T.nn.functional.hardtanh(x, **kw), ("real",),
        gen=st.tuples(shape_st().map(lambda s: (s,)),
                      st.sampled_from([{}, {"min_val": -0.5, "max_val": 1.2}]))),
    Row("relu6", lambda T, x: T.nn.functional.relu6(x * 4), ("nonzero",)),
    Row("gelu", lambda T, x, **kw: T.nn.functional.gelu(x, **kw), ("real",),
        gen=st.tuples(shape_st().map(lambda s: (s,)),
                      st.sampled_from([{}, {"approximate": "tanh"}]))),
    Row("silu", _F("silu")), Row("mish", _F("mish")),
    Row("softplus", lambda T, x, **kw: T.nn.functional.softplus(x * 8, **kw), ("real",),
        gen=st.tuples(shape_st().map(lambda s: (s,)),
                      st.sampled_from([{}, {"beta": 2.0}, {"beta": 0.5, "threshold": 3.0}]))),
    Row("elu", lambda T, x, **kw: T.nn.functional.elu(x, **kw), ("nonzero",),
        gen=st.tuples(shape_st().map(lambda s: (s,)), st.sampled_from([{}, {"alpha": 0.5}]))),
    Row("selu", _F("selu"), ("nonzero",)), Row("celu", _F("celu", alpha=0.7), ("nonzero",)),
    Row("logsigmoid", lambda T, x: T.nn.functional.logsigmoid(x * 10)),
    Row("softsign", _F("softsign"), ("nonzero",)),
    Row("hardsigmoid", lambda T, x: T.nn.functional.hardsigmoid(x * 3), ("nonzero",),
        second_order=False),   # torch: "derivative for aten::hardsigmoid_backward is not implemented"
    Row("hardswish", lambda T, x: T.nn.functional.hardswish(x * 3), ("nonzero",)),
    Row("tanhshrink", _F("tanhshrink")),
    Row("threshold", lambda T, x: T.nn.functional.threshold(x, 0.1, -2.0), ("nonzero",)),
    Row("glu", lambda T, x: T.nn.functional.glu(x, -1),
        gen=shape_st(max_dims=2).map(lambda s: ((s + (2 * (len(s) + 1),),), {}))),
    Row("normalize", lambda T, x, **kw: T.nn.functional.normalize(x, **kw), ("nonzero",),
        gen=st.tuples(shape_st(min_dims=2).map(lambda s: (s,)),
                      st.sampled_from([{}, {"p": 1.0, "dim": 0}, {"dim": -1}]))),
    Row("cosine_similarity", lambda T, a, b: T.nn.functional.cosine_similarity(a, b),
        ("nonzero", "nonzero"), gen=_same(2, min_dims=2)),
    Row("pairwise_distance", lambda T, a, b: T.nn.functional.pairwise_distance(a, b),
        ("real", "real"), gen=_same(2, min_dims=2, max_dims=2)),
    Row("one_hot", lambda T, x: T.nn.functional.one_hot((x.detach().abs() * 2).long(), 5),
        fd=False),
    Row("dropout", lambda T, x: T.nn.functional.dropout(x, 0.3, training=False)
        + T.nn.functional.dropout(x, 0.0)),
    Row("embedding", lambda T, w, index: T.nn.functional.embedding(T.tensor(index), w),
        gen=shape_st(min_dims=2, max_dims=2).flatmap(lambda s: st.tuples(
            st.just((s,)), st.lists(st.integers(0, s[0] - 1), min_size=1, max_size=6).map(
                lambda i: {"index": i})))),
    Row("layer_norm", _layer_norm, ("real", "real", "real"), gen=_layer_norm_gen()),
    Row("batch_norm", _batch_norm, ("real", "real", "real"), gen=_batch_norm_gen()),
    Row("group_norm", _group_norm, ("real", "real", "real"), gen=_group_norm_gen()),
    Row("relu_:functional", lambda T, x: T.nn.functional.relu_(x * 1), ("nonzero",),
        covers=("functional.relu_",)),
    # ------------------------------------------------------------ conv / pooling
    Row("conv2d", _conv("conv2d"), ("real", "real", "real"), gen=_conv_gen(2)),
    Row("conv1d", _conv("conv1d"), ("real", "real", "real"), gen=_conv_gen(1)),
    Row("max_pool2d", _F("max_pool2d"), gen=_pool_gen(2, "max")),
    Row("max_pool2d:indices", _F("max_pool2d", return_indices=True), gen=_pool_gen(2, "max"),
        covers=("max_pool2d",)),
    Row("max_pool1d", _F("max_pool1d"), gen=_pool_gen(1, "max")),
    Row("avg_pool2d", _F("avg_pool2d"), gen=_pool_gen(2, "avg")),
    Row("avg_pool1d", _F("avg_pool1d"), gen=_pool_gen(1, "avg")),
    Row("adaptive_avg_pool2d", _F("adaptive_avg_pool2d"), gen=_adaptive_gen(2)),
    Row("adaptive_avg_pool1d", _F("adaptive_avg_pool1d"), gen=_adaptive_gen(1)),
    # ---------------------------------------------------------------- in-place
    _inplace("neg_"), _inplace("exp_"), _inplace("log_", "positive"),
    _inplace("sqrt_", "positive"), _inplace("abs_", "nonzero"), _inplace("relu_", "nonzero"),
    _inplace("sigmoid_"), _inplace("tanh_"), _inplace("clamp_", "real", -0.5, 0.5),
    _inplace("clamp_min_", "real", -0.3), _inplace("clamp_max_", "real", 0.3),
    _inplace("fill_", "real", 2.5), _inplace("zero_", fd=False),
    _inplace2("add_"), _inplace2("sub_"), _inplace2("mul_"), _inplace2("div_"),
    _inplace2("pow_", ("positive", "real")), _inplace2("copy_"),
    Row("scatter_", lambda T, x, src, dim, index: x.clone().scatter_(dim, T.tensor(index), src),
        ("real", "real"), gen=_scatter_gen(), covers=("inplace.scatter_",)),
    Row("scatter_:value", lambda T, x, dim, index: (x * 2).scatter_(dim, T.tensor(index),
                                                                    value=0.5),
        gen=_scatter_gen(value=True), covers=("inplace.scatter_",)),
    Row("scatter_add_", lambda T, x, src, dim, index: x.clone().scatter_add_(
        dim, T.tensor(index), src), ("real", "real"), gen=_scatter_gen(distinct=False),
        covers=("inplace.scatter_add_",)),
    Row("masked_fill_", lambda T, x, mask, value: x.clone().masked_fill_(T.tensor(mask), value),
        gen=_masked_gen(), covers=("inplace.masked_fill_",)),
    Row("index_put_", lambda T, x, v, idx: x.clone().index_put_((T.tensor(idx),), v),
        ("real", "real"), gen=shape_st(min_dims=1).flatmap(lambda s: st.lists(
            st.integers(0, s[0] - 1), min_size=1, max_size=3, unique=True).map(
            lambda i: ((s, (len(i),) + s[1:]), {"idx": i}))),
        covers=("inplace.index_put_",)),
    Row("setitem", lambda T, x, v: _setitem(x, v), ("real", "real"),
        gen=shape_st(min_dims=1).map(lambda s: ((s, s[1:]), {})),
        covers=("setitem", "inplace.index_put_")),
    Row("inplace:chain", lambda T, x, y: x.clone().mul_(y).add_(1.0).sub_(y).exp_(),
        ("real", "real"), gen=_same(2),
        covers=("inplace.mul_", "inplace.add_", "inplace.exp_", "inplace.sub_")),
    # exp_ saves its result, which sub_ then modifies: backward raises (same class as torch)
    Row("inplace:saved_modified", lambda T, x, y: x.clone().mul_(y).add_(1.0).exp_().sub_(y),
        ("real", "real"), gen=_same(2), covers=("inplace.exp_",), fd=False),
    # derived in-place forms of the special family (ops/_forms.py: inplace_of)
    _inplace("lgamma_", "positive", covers=("lgamma",)),
    _inplace("erfinv_", "unit", covers=("erfinv",)), _inplace("logit_", "prob", covers=("logit",)),
    _inplace("sinc_", covers=("sinc",)), _inplace("polygamma_", "positive", 1,
                                                 covers=("polygamma",)),
    _inplace2("xlogy_", ("real", "positive"), covers=("xlogy",)),
    _inplace2("hypot_", ("nonzero", "nonzero"), covers=("hypot",)),
    Row("lerp_", lambda T, x, y: x.clone().lerp_(y, 0.25), ("real", "real"), gen=_same(2),
        covers=("lerp",)),
    Row("sin:torch_inplace", lambda T, x: T.sin_(x.clone()) + T.clamp_(x * 1, -0.5, 0.5)
        + T.deg2rad_(x * 1)),
    # ---- ops2
    Row("diag:1d", lambda T, x, **kw: T.diag(x, **kw), gen=_diag_gen(1), covers=("diag",)),
    Row("diag:2d", lambda T, x, **kw: x.diag(**kw), gen=_diag_gen(2), covers=("diag",)),
    Row("trace", lambda T, x: T.trace(x), gen=_same(1, min_dims=2, max_dims=2)),
    Row("tile", lambda T, x, dims: T.tile(x, dims), gen=_tile_gen()),
    Row("repeat_interleave", lambda T, x, **kw: T.repeat_interleave(x, **kw),
        gen=_repeat_interleave_gen()),
    Row("repeat_interleave:tensor", lambda T, x, repeats, dim: x.repeat_interleave(
        T.tensor(repeats), dim=dim), gen=_repeat_interleave_gen(True),
        covers=("repeat_interleave",)),
    Row("cumprod", lambda T, x, **kw: T.cumprod(x, **kw), gen=_dim_of(min_dims=1)),
    Row("cumprod:zeros", lambda T, x, **kw: (x * T.tensor(kw.pop("mask"))).cumprod(**kw),
        gen=_dim_of(min_dims=1).map(lambda a: (a[0], dict(a[1], mask=(np.arange(
            int(np.prod(a[0][0]))).reshape(a[0][0]) % 3 != 1).astype(np.float32)))),
        covers=("cumprod",)),
    Row("diff", lambda T, x, *pre, **kw: T.diff(x, prepend=pre[0] if pre else None, **kw),
        ("real", "real"), gen=_diff_gen(), variadic=True),
    Row("nan_to_num", lambda T, x: T.nan_to_num(T.log(x), nan=1.5, neginf=-3.0),
        ("nonzero",)),
    Row("nan_to_num:inf", lambda T, x: (x / T.tensor(0.0)).nan_to_num() + x,
        ("nonzero",), fd=False, covers=("nan_to_num",)),
    Row("addcmul", lambda T, x, a, b, **kw: T.addcmul(x, a, b, **kw), ("real",) * 3,
        gen=_bcast(3).map(lambda a: (a[0], {"value": 1.5})), broadcasts=True),
    Row("addcdiv", lambda T, x, a, b: T.addcdiv(x, a, b, value=-2), ("real", "real", "nonzero"),
        gen=_bcast(3), broadcasts=True),
    Row("addcmul_", lambda T, x, a, b: x.clone().addcmul_(a, b, value=0.5), ("real",) * 3,
        gen=_same(3), covers=("inplace.addcmul_",)),
    Row("addcdiv_", lambda T, x, a, b: (x * 1).addcdiv_(a, b), ("real", "real", "nonzero"),
        gen=_same(3), covers=("inplace.addcdiv_",)),
    Row("index_add", lambda T, x, src, dim, index, **kw: T.index_add(x, dim, T.tensor(index),
                                                                      src, **kw),
        ("real", "real"), gen=_index_add_gen()),
    Row("index_add_", lambda T, x, src, dim, index, **kw: x.clone().index_add_(
        dim, T.tensor(index), src, **kw), ("real", "real"), gen=_index_add_gen(),
        covers=("inplace.index_add_",)),
    Row("meshgrid", lambda T, *xs, indexing: T.meshgrid(*xs, indexing=indexing), ("real",),
        gen=_meshgrid_gen(), variadic=True),
    Row("kron", lambda T, a, b: T.kron(a, b), ("real", "real"),
        gen=st.tuples(shape_st(max_dims=3, max_side=3), shape_st(max_dims=3, max_side=3)).map(
            lambda p: (p, {}))),
    Row("tensordot", lambda T, a, b, dims: T.tensordot(a, b, dims), ("real", "real"),
        gen=_tensordot_gen()),
    Row("median:full", lambda T, x: T.median(x), gen=_same(1, min_dims=1), covers=("median",)),
    Row("median:ties", lambda T, x: x.round().median() * 2, ("frac",), fd=False,
        covers=("median",)),
    Row("median:dim", lambda T, x, **kw: tuple(T.median(x, **kw)), gen=_dim_of(keepdim=True),
        covers=("median",)),
    # cdist's backward is not differentiable again (torch: not implemented)
    Row("cdist", lambda T, a, b, p: T.cdist(a, b, p=p), ("real", "real"), gen=_cdist_gen(),
        second_order=False),
    Row("unique_consecutive", lambda T, x, **kw: T.unique_consecutive((x * 2).round(), **kw),
        gen=_unique_gen().map(lambda a: (a[0], {k: v for k, v in a[1].items()
                                                if k != "sorted"})), fd=False),
    Row("index_put_:accumulate", lambda T, x, v, idx: x.clone().index_put_(
        (T.tensor(idx),), v, accumulate=True), ("real", "real"), gen=_index_put_acc_gen(),
        covers=("inplace.index_put_",)),
]

# the issue-13 reductions / indexing / shape / BLAS-style families (their own file)
from op_rows_reduce import ROWS as _REDUCE_ROWS  # noqa: E402
ROWS += _REDUCE_ROWS
from op_rows_nn import ROWS as _NN_ROWS  # noqa: E402
ROWS += _NN_ROWS
from op_rows_complex import ROWS as _COMPLEX_ROWS  # noqa: E402
ROWS += _COMPLEX_ROWS
from op_rows_fft import ROWS as _FFT_ROWS  # noqa: E402
ROWS += _FFT_ROWS
from op_rows_scatter import ROWS as _SCATTER_ROWS  # noqa: E402
ROWS += _SCATTER_ROWS


def _setitem(x, v):
    y = x * 1
    y[0] = v
    return y


# public op functions not given a row of their own, with the reason
EXEMPT = {
    "functional.count_batch": "BatchNorm's num_batches_tracked += 1 (an internal step made public for torch.compile's replay); tested in tests/compile/test_replay.py",
    "functional.native_channel_shuffle": "no derivative in PyTorch; values and the refusing "
                                         "backward in tests/nn/test_nn_extra_functional.py",
    # sorting.py joined the reduction family's modules with median
    "reduction.sort": "values, indices, stability and gradient vs torch in test_nan_order",
    "reduction.argsort": "stable and descending orders vs torch in test_nan_order",
    "reduction.topk": "values and k checks vs torch in test_nan_order and test_ops2",
    "elementwise.floor_divide": "not differentiable; covered by test_dtype_promotion",
    "elementwise.eq": "comparison; covered by test_dtype_promotion",
    "elementwise.ne": "comparison; covered by test_dtype_promotion",
    "elementwise.lt": "comparison; covered by test_dtype_promotion",
    "elementwise.le": "comparison; covered by test_dtype_promotion",
    "elementwise.gt": "comparison; covered by test_dtype_promotion",
    "elementwise.ge": "comparison; covered by test_dtype_promotion",
    "elementwise.logical_and": "boolean; covered by test_dtype_promotion",
    "elementwise.logical_or": "boolean; covered by test_dtype_promotion",
    "elementwise.logical_xor": "boolean; covered by test_dtype_promotion",
    "elementwise.logical_not": "boolean; covered by test_dtype_promotion",
    "elementwise.bitwise_and": "boolean; covered by test_dtype_promotion",
    "elementwise.bitwise_or": "boolean; covered by test_dtype_promotion",
    "elementwise.bitwise_xor": "boolean; covered by test_dtype_promotion",
    "elementwise.bitwise_not": "boolean; covered by test_dtype_promotion",
    "elementwise.bitwise_left_shift": "integer only; covered by tests/test_histogram_shift.py",
    "elementwise.bitwise_right_shift": "integer only; covered by tests/test_histogram_shift.py",
    "elementwise.isnan": "predicate; covered by test_dtype_promotion",
    "elementwise.isinf": "predicate; covered by test_dtype_promotion",
    "elementwise.isfinite": "predicate; covered by test_dtype_promotion",
    "elementwise.isposinf": "predicate; covered by test_dtype_promotion",
    "elementwise.isneginf": "predicate; covered by test_dtype_promotion",
    "elementwise.signbit": "predicate; covered by test_dtype_promotion",
    "elementwise.equal": "returns a bool; covered by test_dtype_promotion",
    "elementwise.allclose": "returns a bool; covered by test_dtype_promotion",
    "elementwise.isclose": "predicate; covered by test_dtype_promotion",
    "shape.broadcast_shapes": "returns a Size, not a tensor; see test_broadcast_shapes",
    "indexing.index_put_zeros": "internal backward helper of getitem (exercised by second order)",
    "indexing.scatter_add_zeros": "internal backward helper of gather (exercised by second order)",
    "reduction.bincount": "integer counts, no gradient; see tests/test_ops2.py",
    "inplace.apply": "internal helper used by every in-place row",
    "functional.alpha_dropout": "random mask; values and grads vs torch in test_random_vs_torch",
    "functional.dropout1d": "random mask; values and grads vs torch in test_random_vs_torch",
    "functional.dropout2d": "random mask; values and grads vs torch in test_random_vs_torch",
    "functional.dropout3d": "random mask; values and grads vs torch in test_random_vs_torch",
    "functional.feature_alpha_dropout": "random mask; values and grads vs torch in test_random_vs_torch",
    "special.gcd": "integers only, no gradient; see tests/test_special_vs_torch.py",
    "special.lcm": "integers only, no gradient; see tests/test_special_vs_torch.py",
}

FAMILIES = ("elementwise", "reduction", "shape", "indexing", "linalg", "inplace", "functional",
            "conv", "special", "fft")
