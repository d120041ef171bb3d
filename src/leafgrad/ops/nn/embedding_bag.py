"""``nn.functional.embedding_bag``: sums, means or maxima of bags of embedding rows,
built from ``embedding`` and reductions (no rule of its own), with PyTorch's
``offsets``, ``per_sample_weights``, ``padding_idx`` and ``include_last_offset``.
"""

import numpy as np

from ..._tensor.tensor import Tensor
from .. import elementwise as E
from .._named import _named
from .._registry import functional_ops
from .embedding import embedding


# ------------------------------------------------------------------ embedding bag
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Sums, means or maxima of bags of embedding rows (PyTorch's EmbeddingBag).

    Shapes: input (B, N) (B bags of N indices) or (L,) with ``offsets`` (B,) (bag b is
    input[offsets[b]:offsets[b + 1]]; B + 1 offsets with ``include_last_offset``); weight
    (num_embeddings, D) -> (B, D). ``padding_idx`` entries are left out (also from the mean's
    count); an empty bag gives zeros. ``per_sample_weights`` (mode 'sum' only) scale each row.

    Raises:
        ValueError: bad ranks or mode, offsets with a 2-D input, per_sample_weights of the
            wrong shape, max mode with scale_grad_by_freq or sparse.
        NotImplementedError: per_sample_weights with a mode other than 'sum'.
    """
    from .embedding import embedding
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError("embedding_bag: If per_sample_weights (%s) is not None, then it must "
                         "have the same shape as the input (%s)"
                         % (per_sample_weights.shape, input.shape))
    if weight.dim() != 2:
        raise ValueError("weight has to be a 2D Tensor, but got Tensor of dimension %d"
                         % weight.dim())
    idx = input._data
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is "
                             "a mini-batch of fixed length sequences. However, found offsets of "
                             "type %s" % type(offsets))
        starts = np.arange(0, idx.size, idx.shape[1]) if idx.shape[1] else \
            np.zeros(idx.shape[0], np.int64)
        idx = idx.reshape(-1)
        include_last_offset = False
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = offsets._data.astype(np.int64)
    else:
        raise ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension %d"
                         % input.dim())
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported "
            "for mode='sum' (got mode='%s'). Please open a feature request on GitHub." % mode)
    if include_last_offset:
        starts, n_bags = starts[:-1], len(starts) - 1
    else:
        n_bags = len(starts)
    bag = np.searchsorted(starts, np.arange(idx.size), side="right") - 1
    keep = np.ones(idx.size, bool) if padding_idx is None else idx != padding_idx
    if include_last_offset and len(offsets._data):
        keep &= np.arange(idx.size) < int(offsets._data[-1])
    sel = np.nonzero(keep)[0]
    rows = embedding(Tensor._make_plain(idx[sel]), weight, None, max_norm, norm_type,
                     scale_grad_by_freq)
    bag = bag[sel]
    d = weight.shape[1]
    if mode == "max":
        out = _bag_max(rows, bag, n_bags, d, weight._data.dtype)
    else:
        if per_sample_weights is not None:
            w = per_sample_weights.reshape(-1).index_select(0, Tensor._make_plain(sel))
            rows = rows * w.unsqueeze(1)
        from ..._tensor.creation import zeros
        out = zeros(n_bags, d, dtype=weight.dtype).index_add(0, Tensor._make_plain(bag), rows)
        if mode == "mean":
            count = np.maximum(np.bincount(bag, minlength=n_bags), 1).astype(weight._data.dtype)
            out = out / Tensor._make_plain(count[:, None])
    return _named(out, "EmbeddingBagBackward0")


def _bag_max(rows, bag, n_bags, d, dtype):
    """Per bag the elementwise max of its rows, zeros for an empty bag: rows laid out
    (n_bags, longest, d), short bags filled with a -inf row."""
    from ..shape.joins import cat
    counts = np.bincount(bag, minlength=n_bags)
    longest = int(counts.max()) if counts.size else 0
    if longest == 0:
        from ..._tensor.creation import zeros
        return zeros(n_bags, d, dtype=rows.dtype) + rows.sum() * 0
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pos = np.arange(len(bag)) - first[bag]
    slot = np.full((n_bags, longest), len(bag), np.int64)    # the -inf row
    slot[bag, pos] = np.arange(len(bag))
    fill = Tensor._make_plain(np.full((1, d), -np.inf, dtype))
    table = cat([rows, fill]).index_select(0, Tensor._make_plain(slot.reshape(-1)))
    best = table.reshape(n_bags, longest, d).max(1)[0]
    return E.where((counts == 0)[:, None], 0.0, best)
functional_ops(globals(), ("embedding_bag",))
