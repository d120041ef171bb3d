"""``nn.functional.embedding`` and its rule: rows of a weight table picked by integer
indices (``nn.Embedding`` is in ``nn.modules.sparse``).

As ``torch.nn.functional.embedding``: the ``padding_idx`` row gets no gradient;
``max_norm`` renormalises the looked-up rows in place; with ``scale_grad_by_freq`` the
gradient of a row is divided by its count in the batch.
"""

import numpy as np

from ..._tensor.tensor import Tensor
from ...autograd.grad_mode import no_grad
from .._dispatch import record
from .._registry import defop, node

_min_reduce, _max_reduce = np.minimum.reduce, np.maximum.reduce


def _embedding_backward(ctx, g):
    # scatter-add of the rows' gradients, written with leafgrad ops so that it
    # is itself differentiable (double backward through an embedding)
    from ..shape.indexing import index_put_zeros
    idx, num, padding_idx, scale = ctx.args
    g2 = g.reshape(-1, g.shape[-1])
    flat = idx.reshape(-1)
    if scale:
        counts = np.bincount(flat, minlength=num)
        g2 = g2 / Tensor._make_plain(counts[flat][:, None].astype(g._data.dtype))
    if padding_idx is not None:
        g2 = g2 * Tensor._make_plain((flat != padding_idx)[:, None])
    return (index_put_zeros(g2, (num, g2.shape[1]), (flat,)),)


def _embedding_np(ctx, g):
    idx, num, padding_idx, scale = ctx.args
    gd = g.reshape(-1, g.shape[-1])
    flat = idx.reshape(-1)
    if scale:
        counts = np.bincount(flat, minlength=num)
        gd = gd / counts[flat][:, None]
    out = np.zeros((num, gd.shape[1]), dtype=g.dtype)
    np.add.at(out, flat, gd)
    if padding_idx is not None:
        out[padding_idx] = 0
    return (out,)


EmbeddingBackward0 = node("EmbeddingBackward0", _embedding_backward, saves=False,
                          np_backward=_embedding_np)


@defop("embedding", function=False, method=False, functional=True)
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` (num, dim) picked by integer ``input`` (any shape) -> (*input.shape, dim).

    Raises:
        RuntimeError: for non-integer indices.
        IndexError: for indices outside [0, num_embeddings).
    """
    idx = input._data if isinstance(input, Tensor) else np.asarray(input)
    if idx.dtype.kind not in "iu":
        kind = {"f": "Float", "b": "Bool"}.get(idx.dtype.kind, str(idx.dtype))
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got torch.%sTensor instead "
                           "(while checking arguments for embedding)" % kind)
    num = weight._data.shape[0]
    # negative indices too, as PyTorch (its index_select refuses them)
    if idx.size and (_min_reduce(idx, axis=None) < 0 or _max_reduce(idx, axis=None) >= num):
        raise IndexError("index out of range in self")
    idx = idx.copy()    # the rule keeps the indices as they are now
    if max_norm is not None:
        with no_grad():
            rows = np.unique(idx)
            w = weight._data
            norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
            scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
            w[rows] = (w[rows] * scale[:, None]).astype(w.dtype)
            weight._bump_version()
    out = weight._data[idx]
    return record(EmbeddingBackward0, out, (weight,),
                  args=(idx, num, padding_idx, scale_grad_by_freq))


