"""``leafgrad.nn.functional``: activations, softmax, losses, linear, dropout, ...

The derivative rules live in ``leafgrad.ops`` (activation, loss, distance, normalization,
conv, pooling, linalg); the functional forms come from the op declarations there
(``ops._registry``). Defined here: the few that are not ops (one_hot, dropout, embedding, pad).
"""
import numpy as np

from .._tensor import Tensor
from ..ops import _forms
from ..ops.activation import _with_inplace, relu_  # noqa: F401
from ..ops.reduction import _return_type  # noqa: F401

# every declared op with an nn.functional form (ops/activation.py, loss.py, distance.py,
# normalization.py, conv.py, pooling.py, linalg.py, elementwise.py)
globals().update(_forms.functional())


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


def pad(input, pad, mode="constant", value=None):
    """Pad the last dims: ``pad`` = (left, right, top, bottom, ...) as PyTorch."""
    if mode != "constant":
        raise NotImplementedError("only mode='constant' padding is supported")
    n = len(pad) // 2
    widths = [(0, 0)] * (input.dim() - n) + [(pad[2 * i], pad[2 * i + 1]) for i in range(n)][::-1]
    return input.pad_nd(widths, 0.0 if value is None else value)


dropout = _with_inplace(dropout, "dropout_")
