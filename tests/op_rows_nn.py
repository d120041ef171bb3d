"""Op-table rows (see tests/op_table.py) of nn.functional's extra families (issue 13):
rms_norm, bilinear, channel_shuffle, gumbel_softmax (ops/nn/composites.py), lp_pool and
max_unpool and the *_with_indices poolings (ops/nn/pooling_lp_unpool.py), the in-place
activations elu_, celu_, ... (ops/nn/activation_inplace.py).

Kept in their own file so the table's families merge independently; op_table.py adds
them to ROWS. Max pools and unpools draw continuous values (no ties, with probability 1).
"""
import numpy as np
from hypothesis import strategies as st

from op_table import Row, _ints_kw, shape_st


@st.composite
def _rms_gen(draw):
    s = draw(shape_st(min_dims=1))
    k = draw(st.integers(1, len(s)))
    kw = {"k": k}
    if draw(st.booleans()):
        kw["eps"] = draw(st.sampled_from([1e-5, 0.1]))
    return (s, s[-k:]), kw


def _rms(T, x, w, k, eps=None):
    return T.nn.functional.rms_norm(x, x.shape[-k:], w, eps)


def _rms_plain(T, x, w, k, eps=None):
    return T.rms_norm(x, list(x.shape[-k:]), eps=eps)


@st.composite
def _bilinear_gen(draw):
    batch = draw(shape_st(max_dims=2))
    i1, i2, o = (draw(st.integers(1, 4)) for _ in range(3))
    return (batch + (i1,), batch + (i2,), (o, i1, i2), (o,)), {}


@st.composite
def _shuffle_gen(draw):
    g = draw(st.integers(1, 3))
    c = g * draw(st.integers(1, 3))
    rest = draw(shape_st(min_dims=1, max_dims=2))
    return ((draw(st.integers(1, 2)), c) + rest,), {"groups": g}


@st.composite
def _lp_gen(draw, nd):
    k = [draw(st.integers(1, 3)) for _ in range(nd)]
    sp = tuple(kk + draw(st.integers(0, 3)) for kk in k)
    lead = draw(st.sampled_from([(2,), (1, 2)]))
    kw = {"norm_type": draw(st.sampled_from([1.5, 2, 3.0])), "kernel_size": _ints_kw(draw, k)}
    if draw(st.booleans()):
        kw["stride"] = _ints_kw(draw, [draw(st.integers(1, 3)) for _ in range(nd)])
    kw["ceil_mode"] = draw(st.booleans())
    return (lead + sp,), kw


def _lp(nd):
    return lambda T, x, **kw: getattr(T.nn.functional, "lp_pool%dd" % nd)(x, **kw)


@st.composite
def _unpool_gen(draw, nd):
    k = [draw(st.integers(1, 3)) for _ in range(nd)]
    sp = tuple(kk * draw(st.integers(1, 2)) + draw(st.integers(0, kk - 1)) for kk in k)
    lead = draw(st.sampled_from([(2,), (1, 2)]))
    return (lead + sp,), {"k": _ints_kw(draw, k), "sized": draw(st.booleans())}


def _unpool(nd):
    def fn(T, x, k, sized):
        F = T.nn.functional
        out, idx = getattr(F, "max_pool%dd" % nd)(x, k, return_indices=True)
        size = x.shape[-nd:] if sized else None
        return getattr(F, "max_unpool%dd" % nd)(out * 2, idx, k, output_size=size)
    return fn


@st.composite
def _pool_idx_gen(draw, nd):
    sp = tuple(draw(st.integers(2, 5)) for _ in range(nd))
    return ((2,) + sp,), {"kernel_size": 2}


@st.composite
def _adaptive_idx_gen(draw, nd):
    sp = tuple(draw(st.integers(1, 5)) for _ in range(nd))
    return ((2,) + sp,), {"output_size": tuple(draw(st.integers(1, 3)) for _ in range(nd))}


def _with_indices(name):
    return lambda T, x, **kw: getattr(T.nn.functional, name)(x, **kw)


def _gumbel(T, x, **kw):
    T.manual_seed(7)        # the same Exp(1) draws on both sides (and in every call)
    return T.nn.functional.gumbel_softmax(x, **kw)


@st.composite
def _gumbel_gen(draw):
    s = draw(shape_st(min_dims=1))
    return (s,), {"tau": draw(st.sampled_from([0.5, 1.0, 2.0])), "hard": draw(st.booleans()),
                  "dim": draw(st.integers(-len(s), len(s) - 1))}


@st.composite
def _grid_gen(draw):
    nd = draw(st.sampled_from([2, 2, 3]))
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    sp = tuple(draw(st.integers(1, 4)) for _ in range(nd))
    out = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    modes = ["bilinear", "nearest"] + (["bicubic"] if nd == 2 else [])
    kw = {"mode": draw(st.sampled_from(modes)),
          "padding_mode": draw(st.sampled_from(["zeros", "border", "reflection"])),
          "align_corners": draw(st.booleans())}
    return ((n, c) + sp, (n,) + out + (nd,)), kw


def _grid_sample(T, x, grid, **kw):
    return T.nn.functional.grid_sample(x, grid * 1.3, **kw)    # some locations outside


@st.composite
def _affine_gen(draw):
    nd = draw(st.sampled_from([2, 3]))
    n = draw(st.integers(1, 2))
    size = [n, draw(st.integers(1, 3))] + [draw(st.integers(1, 4)) for _ in range(nd)]
    return ((n, nd, nd + 1),), {"size": size, "align_corners": draw(st.booleans())}


@st.composite
def _fractional_gen(draw):
    nd = draw(st.sampled_from([2, 3]))
    k = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    out = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    sp = tuple(o + kk - 1 + draw(st.integers(0, 2)) + (nd == 3) for o, kk in zip(out, k))
    return ((draw(st.integers(1, 2)), draw(st.integers(1, 2))) + sp,), {
        "nd": nd, "k": k, "out": out, "ret": draw(st.booleans())}


def _fractional(T, x, nd, k, out, ret):
    T.manual_seed(11)       # the same window samples on both sides
    return getattr(T.nn.functional, "fractional_max_pool%dd" % nd)(
        x, k, output_size=out, return_indices=ret)


def _fractional_idx(T, x, nd, k, out, ret):
    T.manual_seed(12)
    return getattr(T.nn.functional, "fractional_max_pool%dd_with_indices" % nd)(
        x, k, output_size=out)


@st.composite
def _tbc_gen(draw):
    k, cin, cout = (draw(st.integers(1, 3)) for _ in range(3))
    pad = draw(st.integers(0, 2))
    t = draw(st.integers(max(1, k - 2 * pad), 5))
    return ((t, draw(st.integers(1, 2)), cin), (k, cin, cout), (cout,)), {"pad": pad}


@st.composite
def _lce_gen(draw):
    n, d, c = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(2, 4))
    out = draw(st.sampled_from([(), (), (2,)]))
    batched = bool(out) or draw(st.booleans())
    xs = (n, d) if batched else (d,)
    ts = ((n,) if batched else ()) + out
    target = np.random.default_rng(draw(st.integers(0, 99))).integers(0, c, ts)
    kw = {"target": target, "reduction": draw(st.sampled_from(["mean", "sum", "none"])),
          "label_smoothing": draw(st.sampled_from([0.0, 0.2]))}
    return (xs, (c,) + out + (d,), (c,) + out), kw


def _lce(T, x, w, b, target, **kw):
    return T.nn.functional.linear_cross_entropy(x, w, T.tensor(target), linear_bias=b, **kw)


def _act_(name, *args, torch_level=False):
    def fn(T, x):
        mod = T if torch_level else T.nn.functional
        return getattr(mod, name)(x * 1, *args)    # x * 1: not the leaf
    return fn


def _rrelu_train(T, x):
    T.manual_seed(5)        # the same slopes on both sides
    return T.rrelu_(x * 1, 0.2, 0.5, True)


ROWS = [
    Row("rms_norm", _rms, ("real", "real"), gen=_rms_gen()),
    Row("rms_norm:torch", _rms_plain, ("real", "real"), gen=_rms_gen(), covers=("rms_norm",)),
    Row("bilinear", lambda T, a, b, w, bias: T.nn.functional.bilinear(a, b, w, bias),
        ("real",) * 4, gen=_bilinear_gen()),
    Row("bilinear:nobias", lambda T, a, b, w, bias: T.bilinear(a, b, w),
        ("real",) * 4, gen=_bilinear_gen(), covers=("bilinear",)),
    Row("channel_shuffle", lambda T, x, groups: T.nn.functional.channel_shuffle(x, groups),
        gen=_shuffle_gen()),
    # fd=False: hard=True's value is the one-hot, its gradient the soft sample's
    Row("gumbel_softmax", _gumbel, gen=_gumbel_gen(), fd=False),
    Row("lp_pool1d", _lp(1), ("positive",), gen=_lp_gen(1)),
    Row("lp_pool2d", _lp(2), ("positive",), gen=_lp_gen(2)),
    Row("lp_pool3d", _lp(3), ("positive",), gen=_lp_gen(3)),
    Row("max_unpool1d", _unpool(1), gen=_unpool_gen(1)),
    Row("max_unpool2d", _unpool(2), gen=_unpool_gen(2)),
    Row("max_unpool3d", _unpool(3), gen=_unpool_gen(3)),
    # PyTorch has no second order for grid_sample (grid_sampler_2d_backward has none)
    Row("grid_sample", _grid_sample, ("real", "unit"), gen=_grid_gen(), second_order=False),
    Row("fractional_max_pool", _fractional, gen=_fractional_gen(),
        covers=("fractional_max_pool2d", "fractional_max_pool3d")),
    Row("fractional_max_pool_with_indices", _fractional_idx, gen=_fractional_gen(),
        covers=("fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices")),
    Row("conv_tbc", lambda T, x, w, b, pad: T.conv_tbc(x, w, b, pad), ("real",) * 3,
        gen=_tbc_gen()),
    Row("conv_tbc:functional", lambda T, x, w, b, pad: T.nn.functional.conv_tbc(x, w, b, pad),
        ("real",) * 3, gen=_tbc_gen(), covers=("conv_tbc",)),
    Row("linear_cross_entropy", _lce, ("real",) * 3, gen=_lce_gen()),
    Row("affine_grid", lambda T, t, **kw: T.nn.functional.affine_grid(t, **kw),
        gen=_affine_gen()),
] + [
    Row("max_pool%dd_with_indices" % nd, _with_indices("max_pool%dd_with_indices" % nd),
        gen=_pool_idx_gen(nd)) for nd in (1, 2, 3)
] + [
    Row("adaptive_max_pool%dd_with_indices" % nd,
        _with_indices("adaptive_max_pool%dd_with_indices" % nd), gen=_adaptive_idx_gen(nd))
    for nd in (1, 2, 3)
] + [
    Row("elu_", _act_("elu_", 0.7), ("nonzero",)),
    Row("celu_", _act_("celu_", 1.3), ("nonzero",)),
    Row("celu_:torch", _act_("celu_", 0.8, torch_level=True), ("nonzero",), covers=("celu_",)),
    Row("selu_", _act_("selu_"), ("nonzero",)),
    Row("selu_:torch", _act_("selu_", torch_level=True), ("nonzero",), covers=("selu_",)),
    Row("leaky_relu_", _act_("leaky_relu_", 0.2), ("nonzero",)),
    Row("hardtanh_", _act_("hardtanh_", -0.5, 0.7), ("nonzero",)),
    Row("threshold_", _act_("threshold_", 0.1, 3.0), ("nonzero",)),
    Row("rrelu_", _act_("rrelu_", 0.1, 0.4), ("nonzero",)),
    Row("rrelu_:training", _rrelu_train, ("nonzero",), covers=("rrelu_",)),
    Row("threshold_:torch", _act_("threshold_", -0.1, -2.0, torch_level=True), ("nonzero",),
        covers=("threshold_",)),
]
