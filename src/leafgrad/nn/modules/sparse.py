"""``Embedding``: a lookup table of ``num_embeddings`` vectors of size ``embedding_dim``.

As ``torch.nn.Embedding`` (https://pytorch.org/docs/stable/generated/torch.nn.Embedding.html):
weight initialised N(0, 1) with the ``padding_idx`` row zeroed; that row gets no
gradient; ``max_norm`` renormalises the looked-up rows in place; with
``scale_grad_by_freq`` the gradient of a row is divided by its count in the batch.
"""
import numpy as np

from ... import _creation
from ..._tensor import Tensor
from ...autograd.graph import Node
from ...autograd.grad_mode import no_grad
from ...ops._dispatch import record
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding"]


def _embedding_backward(ctx, g):
    # scatter-add of the rows' gradients, written with leafgrad ops so that it
    # is itself differentiable (double backward through an embedding)
    from ...ops.indexing import index_put_zeros
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


EmbeddingBackward0 = type("EmbeddingBackward0", (Node,), {
    "__slots__": (), "saves": False, "backward": _embedding_backward,
    "np_backward": _embedding_np})


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
    if idx.size and (idx.min() < -num or idx.max() >= num):
        raise IndexError("index out of range in self")
    idx = np.where(idx < 0, idx + num, idx)
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


class Embedding(Module):
    """Shapes: input (*) int64 -> output (*, embedding_dim); weight (num_embeddings, embedding_dim).

    Raises:
        AssertionError: when ``padding_idx`` is outside [-num_embeddings, num_embeddings).
    """

    __constants__ = ["num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
                     "scale_grad_by_freq", "sparse"]

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            msg = "Padding_idx must be within num_embeddings"
            if padding_idx > 0:
                assert padding_idx < self.num_embeddings, msg
            elif padding_idx < 0:
                assert padding_idx >= -self.num_embeddings, msg
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(_creation.empty(num_embeddings, embedding_dim, dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self):
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx] = 0
            self.weight._bump_version()

    def forward(self, input):
        return embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                         self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = "%s, %s" % (self.num_embeddings, self.embedding_dim)
        if self.padding_idx is not None:
            s += ", padding_idx=%s" % self.padding_idx
        if self.max_norm is not None:
            s += ", max_norm=%s" % self.max_norm
        if self.norm_type != 2:
            s += ", norm_type=%s" % self.norm_type
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=%s" % self.scale_grad_by_freq
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is ``embeddings`` (2-D); frozen unless ``freeze=False``."""
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
