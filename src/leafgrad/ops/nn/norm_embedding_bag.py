"""nn.functional's instance_norm, local_response_norm and embedding_bag, built from
differentiable ops (no rule of their own; declared below, so ``nn.functional`` and
docs/ops.md get them from the declarations)."""
import numpy as np

from ..._tensor.tensor import Tensor
from .. import elementwise as E
from .._named import _named
from .._registry import functional_ops


# ------------------------------------------------------------------ norms
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) over its spatial dims, as PyTorch: batch norm of
    the input viewed as (1, N C, *spatial), with the per-channel weight/bias/running stats
    repeated N times; the running stats then take the mean over the N copies.

    Raises:
        ValueError: a single spatial element with ``use_input_stats``.
    """
    from .normalization import batch_norm
    shape = tuple(input.shape)
    if use_input_stats and int(np.prod(shape[2:])) == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         "torch.Size(%s). Fix: give a larger spatial size, or use eval mode "
                         "with track_running_stats=True." % list(shape))
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    n, c = shape[:2]

    def rep(t):
        return None if t is None else t.repeat(n)

    rm = None if running_mean is None else Tensor._make_plain(np.tile(running_mean._data, n))
    rv = None if running_var is None else Tensor._make_plain(np.tile(running_var._data, n))
    out = batch_norm(input.reshape(1, n * c, *shape[2:]), rm, rv, rep(weight), rep(bias), True,
                     momentum, eps)
    for buf, new in ((running_mean, rm), (running_var, rv)):
        if buf is not None:
            buf._data[...] = new._data.reshape(n, c).mean(0)
            buf._bump_version()
    return out.view(*shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha / size * sum of x^2 over ``size`` neighbouring channels)^beta
    (Krizhevsky et al. 2012; PyTorch's formula: the channel window is zero-padded,
    size // 2 before and (size - 1) // 2 after).

    Raises:
        ValueError: an input under 3-D.
    """
    from .pooling import avg_pool2d
    from .padding import pad
    dim = input.dim()
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality input (got %d dimensions). Fix: "
                         "give (N, C, *spatial)." % dim)
    if input.numel() == 0:
        return input
    sizes = tuple(input.shape)
    div = (input * input).reshape(sizes[0], 1, sizes[1], -1)      # (N, 1, C, rest)
    div = pad(div, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(div, (size, 1), stride=1).squeeze(1).reshape(*sizes)
    return input / (div * alpha + k) ** beta


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


functional_ops(globals(), ("instance_norm", "local_response_norm", "embedding_bag"))
