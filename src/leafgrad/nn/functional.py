"""``leafgrad.nn.functional``: activations, softmax, losses, linear, dropout, ...

The derivative rules live in ``leafgrad.ops`` (activation, loss, distance, conv,
linalg); this module gathers PyTorch's ``torch.nn.functional`` names.
"""
import numpy as np

from .._tensor import Tensor
from ..ops.activation import (_with_inplace, celu, elu, gelu, glu,  # noqa: F401
                              hardsigmoid, hardswish, hardtanh, leaky_relu, log_softmax,
                              logsigmoid, mish, relu, relu6, relu_, selu, sigmoid, silu, softmax,
                              softmin, softplus, softsign, tanh, tanhshrink, threshold)
from ..ops.conv import conv1d, conv2d  # noqa: F401
from ..ops.distance import cosine_similarity, normalize, pairwise_distance  # noqa: F401
from ..ops.linalg import linear  # noqa: F401
from ..ops.loss import (binary_cross_entropy, binary_cross_entropy_with_logits,  # noqa: F401
                        cosine_embedding_loss, cross_entropy, hinge_embedding_loss, huber_loss,
                        kl_div, l1_loss, margin_ranking_loss, mse_loss, nll_loss, smooth_l1_loss,
                        soft_margin_loss)
from ..ops.normalization import batch_norm, group_norm, layer_norm  # noqa: F401
from ..ops.pooling import (adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d,  # noqa: F401
                           avg_pool2d, max_pool1d, max_pool2d)
from ..ops.reduction import _return_type  # noqa: F401


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding with a new last dim."""
    x = tensor._data
    if x.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    n = int(x.max()) + 1 if num_classes == -1 else num_classes
    if x.size and (x.min() < 0 or x.max() >= n):
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make_plain((x[..., None] == np.arange(n)).astype(np.int64))


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements with probability ``p`` and scale the rest by 1/(1-p) (training only).

    Raises:
        ValueError: unless 0 <= p <= 1.
    """
    if p < 0 or p > 1:
        raise ValueError("dropout probability has to be between 0 and 1, but got %s" % p)
    if not training or p == 0:
        return input
    from .._creation import _rng
    if p == 1:
        return input * 0
    keep = (_rng().random(input._data.shape) >= p).astype(input._data.dtype) / (1 - p)
    return input * Tensor._make_plain(keep)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by integer ``input``; repeated indices accumulate gradient,
    the ``padding_idx`` row gets none, ``max_norm`` renormalises the rows used in place.
    (Implemented in ``nn.modules.sparse``.)"""
    from .modules.sparse import embedding as _embedding
    return _embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


def pad(input, pad, mode="constant", value=None):
    """Pad the last dims: ``pad`` = (left, right, top, bottom, ...) as PyTorch."""
    if mode != "constant":
        raise NotImplementedError("only mode='constant' padding is supported")
    n = len(pad) // 2
    widths = [(0, 0)] * (input.dim() - n) + [(pad[2 * i], pad[2 * i + 1]) for i in range(n)][::-1]
    return input.pad_nd(widths, 0.0 if value is None else value)


dropout = _with_inplace(dropout, "dropout_")
