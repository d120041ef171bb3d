"""Histograms: ``torch.histc`` and ``torch.histogram`` (no gradient, as in PyTorch: histc's
result does not require grad, histogram's does, on a node whose backward raises)."""
import numpy as np

from ..._core import errors as _errors
from ..._tensor.tensor import Tensor
from .._dispatch import record_multi, to_tensor
from .._registry import defop, no_derivative
from .reduction import _return_type
from .._out import with_out

__all__ = ["histc", "histogram"]


def _floating(input, kernel):
    x = to_tensor(input)._data
    if x.dtype.kind not in "f":
        raise NotImplementedError("\"%s\" not implemented for '%s'. Fix: convert first, e.g. "
                                  "x.float()" % (kernel, _errors.type_name(x.dtype)))
    return x


@defop("histc", out=False)
@with_out("histc")
def histc(input, bins=100, min=0, max=0, *, out=None):
    """Counts of ``input``'s elements in ``bins`` equal-width bins over [min, max] (both 0:
    the data's range; equal: widened by 1 on each side); values outside are ignored, the
    last bin includes ``max``. Returns a 1-D tensor of ``input``'s dtype.

    Raises:
        RuntimeError: ``bins`` <= 0, ``min`` > ``max``. NotImplementedError: integer input.
    """
    x = _floating(input, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got %s for dimension 0" % bins)
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc(): max must be larger than min")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError("torch.histc(): range of [%s, %s] is not finite" % (lo, hi))
    counts, _ = np.histogram(x.reshape(-1), bins=int(bins), range=(lo, hi))
    return Tensor._make_plain(counts.astype(x.dtype))


@defop("histogram")
@with_out("histogram")
def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """``(hist, bin_edges)``: counts (or weight sums; ``density``: normalised to integrate to
    1) of ``input`` in ``bins`` equal bins over ``range`` (default: the data's range), or in
    the bins whose edges the 1-D tensor ``bins`` gives.

    Raises:
        NotImplementedError: integer input. RuntimeError: a bad range or edges.
    """
    x = _floating(input, "histogram_cpu")
    w = None if weight is None else to_tensor(weight)._data.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins._data.astype(x.dtype)
        if edges.ndim != 1 or edges.size < 1:
            raise RuntimeError("torch.histogram(): bins tensor should have one dimension, but "
                               "got %d dimensions" % edges.ndim)
        hist, e = np.histogram(x.reshape(-1), bins=edges, weights=w, density=density)
    else:
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
            if lo > hi:
                raise RuntimeError("torch.histogram(): min should not exceed max, but got min "
                                   "%s max %s" % (lo, hi))
        else:
            lo, hi = (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5     # numpy's rule; PyTorch gives the same edges
        hist, e = np.histogram(x.reshape(-1), bins=int(bins), range=(lo, hi), weights=w,
                               density=density)
    res = _return_type("histogram", ("hist", "bin_edges"))
    # an input, weight or edges that require grad: both outputs do, on one node with no
    # derivative (backward raises), as PyTorch
    inputs = tuple(t if isinstance(t, Tensor) else None for t in (input, bins, weight))
    return res(*record_multi(no_derivative("histogram"), (np.asarray(hist, dtype=x.dtype),
                                                          np.asarray(e, dtype=x.dtype)), inputs))
