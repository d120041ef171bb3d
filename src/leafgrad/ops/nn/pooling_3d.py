"""3-d pooling (``max_pool3d``, ``avg_pool3d``, ``adaptive_avg_pool3d``) and adaptive max
pooling (``adaptive_max_pool1d/2d``).

The 3-d poolings reuse ``ops.nn.conv``'s N-d window geometry and pooling kernels (a
pooling is linear in its input; its rule is its adjoint, recorded, see that module)
with a 3-d geometry and PyTorch's 3-d node names. Output size per dim as PyTorch's
MaxPool3d docs: floor((in + 2 p - d (k - 1) - 1) / s + 1) (ceil with ``ceil_mode``,
dropping a window that would start in the right padding).

``adaptive_avg_pool3d``: window sums along each dim in turn (PyTorch's windows [floor(o in / out),
ceil((o + 1) in / out))), one per dim. ``adaptive_max_pool1d/2d``: each window's
elements gathered (``index_select``; windows shorter than the longest repeat their last
element, which changes no max) and reduced with ``max(dim)``, whose rule sends the
gradient to the selected element; indices as PyTorch's (flat into the input plane).
"""
import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor
from .._named import _named
from .._registry import functional_ops
from ._pooling_linear import (_adaptive_adjoint_k, _adaptive_k, _avg_adjoint_k, _avg_k, _gather_k,
                              _linear_pair, _scatter_k)
from .conv import _check_tensor, _geometry, _ints
from .pooling import (_adaptive_windows, _default_stride, _make_pool_geom, _pool_input,
                      _max_pool_values)

_MAX_POOL3 = _linear_pair("MaxPool3DWithIndicesBackward0", _gather_k, _scatter_k)
_AVG_POOL3 = _linear_pair("AvgPool3DBackward0", _avg_k, _avg_adjoint_k)


_ADAPTIVE_AVG3 = _linear_pair("AdaptiveAvgPool3DBackward0", _adaptive_k, _adaptive_adjoint_k)


def _input5(fn, input):
    return _pool_input(fn, input, 3)


def _geom3(fn, x, kernel_size, stride, padding, dilation, ceil_mode):
    what = "the pooling dimensions"
    k = _ints(kernel_size, 3, "kernel_size", fn, what)
    s = k if _default_stride(stride) else _ints(stride, 3, "stride", fn, what)
    p = _ints(padding, 3, "padding", fn, what)
    d = _ints(dilation, 3, "dilation", fn, what)
    return _geometry(("pool3", x.shape[-3:], k, s, p, d, bool(ceil_mode)),
                     lambda: _make_pool_geom(x.shape, k, s, p, d, ceil_mode, 3))


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The largest element of each 3-d window, over (N, C, D, H, W) or (C, D, H, W).

    As ``max_pool2d`` per dim (stride defaults to kernel_size, padding counts as -inf, the
    gradient goes to the selected element); ``return_indices``: flat indices into each
    (D, H, W) volume (int64).

    Raises:
        RuntimeError: as ``max_pool2d``'s, for 3-d windows.
    """
    x = _input5("max_pool3d", input)
    gm = _geom3("max_pool3d", x, kernel_size, stride, padding, dilation, ceil_mode)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    best, idx, sel = _max_pool_values(x, gm, fill)
    out = _MAX_POOL3.forward(input, best, (gm, idx))
    if not return_indices:
        return out
    sel = sel().astype(np.int64)
    kd, kh, kw = gm.k
    pos = [np.arange(o) * st - pp for o, st, pp in zip(gm.out, gm.s, gm.lo)]
    t = [sel // (kh * kw), (sel // kw) % kh, sel % kw]
    dd, hh, ww = (pos[i].reshape([-1 if j == i else 1 for j in range(3)]) + t[i] * gm.d[i]
                  for i in range(3))
    flat = (dd * gm.insp[1] + hh) * gm.insp[2] + ww
    return out, Tensor._make_plain(flat)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each 3-d window, over (N, C, D, H, W) or (C, D, H, W); arguments as
    ``avg_pool2d``'s. Raises RuntimeError as ``max_pool3d`` and for divisor_override=0."""
    x = _input5("avg_pool3d", input)
    gm = _geom3("avg_pool3d", x, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None:
        if not divisor_override:
            raise RuntimeError("divisor must be not zero")
        div = float(divisor_override)
    else:
        per_dim = []
        for i, o, kk, st, pp in zip(gm.insp, gm.out, gm.k, gm.s, gm.lo):
            start = np.arange(o) * st - pp
            end = np.minimum(start + kk, i + pp)
            per_dim.append(end - start if count_include_pad else
                           np.minimum(end, i) - np.maximum(start, 0))
        div = np.einsum("a,b,c->abc", *per_dim)
        div = float(div.flat[0]) if (div == div.flat[0]).all() else div.astype(x.dtype)
    return _AVG_POOL3.forward(input, _avg_k(x, (gm, div)), (gm, div))


def _sizes(fn, x, output_size, nd):
    size = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * nd
    if len(size) != nd:
        raise RuntimeError("%s: output_size must be %d" % (fn, nd))
    return tuple(x.shape[-nd + i] if v is None else int(v) for i, v in enumerate(size))


def adaptive_avg_pool3d(input, output_size):
    """Average pooling to a fixed (D_out, H_out, W_out), over (N, C, D, H, W) or (C, D, H, W);
    windows as ``adaptive_avg_pool2d``'s.

    Raises:
        RuntimeError: a non-4D/5D input or an output_size of the wrong length.
    """
    _check_tensor("adaptive_avg_pool3d", "input", input, 1)
    x = input._data
    if x.ndim not in (4, 5):
        raise RuntimeError("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got %s. Fix: "
                           "give it (N, C, D, H, W) or (C, D, H, W)." % list(x.shape))
    if x.dtype.kind not in "fc":
        raise NotImplementedError("\"adaptive_avg_pool3d\" not implemented for '%s'. Fix: call "
                                  ".float() first." % _errors.type_name(input.dtype))
    size = _sizes("adaptive_avg_pool3d", x, output_size, 3)
    p = tuple(_adaptive_windows(x.shape[-3 + i], size[i]) for i in range(3))
    return _ADAPTIVE_AVG3.forward(input, _adaptive_k(x, p), p)


def _windows(n_in, n_out):
    """(n_out, longest) source indices of PyTorch's adaptive windows, short ones padded with
    their last index."""
    lo = (np.arange(n_out) * n_in) // n_out
    hi = -((-(np.arange(n_out) + 1) * n_in) // n_out)
    width = int((hi - lo).max()) if n_out else 0
    return np.minimum(lo[:, None] + np.arange(width), hi[:, None] - 1)


def _adaptive_max(fn, input, output_size, nd, return_indices):
    _check_tensor(fn, "input", input, 1)
    x = input._data
    if x.ndim not in (nd + 1, nd + 2) or 0 in x.shape[-nd:]:
        raise RuntimeError("%s(): Expected %dD or %dD tensor with non-zero spatial sizes, but got "
                           "%s. Fix: give it (N, C, *spatial) or (C, *spatial)."
                           % (fn, nd + 1, nd + 2, list(x.shape)))
    size = _sizes(fn, x, output_size, nd)
    lead = x.ndim - nd
    win = [_windows(x.shape[lead + i], size[i]) for i in range(nd)]
    g = input
    for i in range(nd):          # gather dim lead + i as (out_i, width_i), in place
        g = g.index_select(lead + 2 * i, Tensor._make_plain(win[i].reshape(-1)))
        g = g.unflatten(lead + 2 * i, win[i].shape)
    # (..., o0, w0, o1, w1) -> (..., o0, o1, w0 * w1)
    perm = list(range(lead)) + [lead + 2 * i for i in range(nd)] + \
        [lead + 2 * i + 1 for i in range(nd)]
    g = g.permute(*perm).flatten(lead + nd)
    # PyTorch's kernel takes val > max or isnan(val): the first of tied maxima, the last
    # nan of a window (max(dim) would take the first nan)
    gd = g._data
    isnan = np.isnan(gd) if gd.dtype.kind == "f" else np.zeros(gd.shape, bool)
    last_nan = gd.shape[-1] - 1 - np.argmax(isnan[..., ::-1], axis=-1)
    arg = Tensor._make_plain(np.where(isnan.any(-1), last_nan, np.argmax(
        np.where(isnan, -np.inf, gd) if isnan.any() else gd, axis=-1)))
    vals = g.gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    vals = _named(vals, "AdaptiveMaxPool%dDBackward0" % nd)
    if not return_indices:
        return vals
    a = arg._data
    widths = [w.shape[1] for w in win]
    flat = np.zeros(a.shape, np.int64)
    rest = a
    src = []
    for i in reversed(range(nd)):
        src.append(rest % widths[i])
        rest = rest // widths[i]
    src = src[::-1]
    for i in range(nd):
        o = np.arange(size[i]).reshape([-1 if j == i else 1 for j in range(nd)])
        flat = flat * x.shape[lead + i] + win[i][o, src[i]]
    return vals, Tensor._make_plain(flat)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed (H_out, W_out) over (N, C, H, W) or (C, H, W), PyTorch's
    windows; ``return_indices``: flat indices into each (H, W) plane (int64)."""
    return _adaptive_max("adaptive_max_pool2d", input, output_size, 2, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling to a fixed (D_out, H_out, W_out) over (N, C, D, H, W) or (C, D, H, W)."""
    return _adaptive_max("adaptive_max_pool3d", input, output_size, 3, return_indices)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling to a fixed L_out over (N, C, L) or (C, L) (a height-1 image, as PyTorch)."""
    _check_tensor("adaptive_max_pool1d", "input", input, 1)
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    res = _adaptive_max("adaptive_max_pool1d", input.unsqueeze(-2), (1, size), 2,
                        return_indices)
    if return_indices:
        return res[0].squeeze(-2), res[1].squeeze(-2)
    return res.squeeze(-2)


functional_ops(globals(), ("max_pool3d",), function=True)
# torch.adaptive_max_pool1d is ATen's form (always a (values, indices) pair): F's only
functional_ops(globals(), ("avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
                           "adaptive_max_pool2d", "adaptive_max_pool3d"))
