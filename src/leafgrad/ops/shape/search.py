"""Searching: searchsorted, bucketize, isin. Integer or bool results, no gradient
(as PyTorch: these are not differentiable).

NaN sorts as the largest value (NumPy's order, which PyTorch's binary search gives
for NaN queries too).
"""
import numpy as np

from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor
from .._out import out_call
from .._registry import defop


def _arr(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def _side(right, side):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("torch.searchsorted(): side can only be 'left' or 'right' but "
                               "got %s. Fix: side='left' or side='right'" % side)
        if side == "left" and right:
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True. Fix: pass only one")
        return side
    return "right" if right else "left"


def _search(seq, vals, side, sorter):
    """np.searchsorted over the last dim of ``seq`` (1-D, or matching vals' leading dims)."""
    if sorter is not None:
        seq = np.take_along_axis(seq, _arr(sorter).astype(np.int64), axis=-1)
    with _quiet():
        if seq.ndim == 1:
            return np.searchsorted(seq, vals, side=side)
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = vals.reshape(-1, vals.shape[-1]) if vals.size else vals.reshape(
            rows_s.shape[0], -1)
        out = np.empty(rows_v.shape, np.int64)
        for i in range(rows_s.shape[0]):
            out[i] = np.searchsorted(rows_s[i], rows_v[i], side=side)
        return out.reshape(vals.shape)


@defop("searchsorted", method=False, out=True)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Indices where ``input``'s values would be inserted into ``sorted_sequence`` (sorted
    along its last dim) to keep it sorted: the first such index (``side='left'``) or the
    last (``right=True`` / ``side='right'``). ``input`` may be a Python number (a 0-d
    result). ``sorter``: indices that sort an unsorted sequence.

    Shapes: a 1-D sequence takes any ``input``; an N-D one needs ``input`` with the same
    leading N-1 dims. Output int64 (int32 with ``out_int32``), shaped as ``input``.

    Raises:
        RuntimeError: mismatched leading dims, or an unknown / conflicting ``side``.
    """
    if out is not None:
        return out_call("searchsorted", searchsorted, (sorted_sequence, input),
                        {"out_int32": out_int32, "right": right, "side": side,
                         "sorter": sorter}, out)
    s = _side(right, side)
    seq = sorted_sequence._data
    vals = _arr(input)
    if seq.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension. Fix: pass a 1-D sequence")
    if seq.ndim > 1 and (vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            "boundaries tensor %s and input value tensor %s. Fix: match the leading dims, "
            "or use a 1-D sequence" % (list(seq.shape), list(vals.shape)))
    out = _search(seq, vals, s, sorter)
    return Tensor._make_plain(np.asarray(out, np.int32 if out_int32 else np.int64))


@defop("bucketize", method=False, out=True)
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value of ``input`` for the 1-D sorted ``boundaries``: with
    ``right=False`` the index ``i`` with ``boundaries[i-1] < x <= boundaries[i]``
    (``searchsorted(boundaries, input, right=right)``). Output shaped as ``input``.

    Raises:
        RuntimeError: ``boundaries`` not 1-D.
    """
    if out is not None:
        return out_call("bucketize", bucketize, (input, boundaries),
                        {"out_int32": out_int32, "right": right}, out)
    if boundaries.dim() != 1:
        raise RuntimeError("boundaries tensor must be 1 dimension, but got dim(%d). Fix: "
                           "pass 1-D boundaries (torch.searchsorted takes N-D ones)"
                           % boundaries.dim())
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


@defop("isin", method=False, out=True)
def isin(elements, test_elements, *, assume_unique=False, invert=False, out=None):
    """Bool tensor, shaped as ``elements``: whether each element occurs in
    ``test_elements`` (either may be a Python number; NaN is never found), negated with
    ``invert``."""
    if out is not None:
        return out_call("isin", isin, (elements, test_elements),
                        {"assume_unique": assume_unique, "invert": invert}, out)
    e, t = _arr(elements), _arr(test_elements)
    return Tensor._make_plain(np.asarray(np.isin(e, t.reshape(-1), invert=invert)))
