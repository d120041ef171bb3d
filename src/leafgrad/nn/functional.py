"""``leafgrad.nn.functional``: activations, softmax, losses, linear, dropout, ...

Every op with an ``nn.functional`` form is declared once (``ops._registry``) and comes
from its declaration: the rules live in ``leafgrad.ops`` (activation, loss, distance,
normalization, conv, pooling, shrink, ...); the composite families built from ops in
``nn/functional_*.py`` (attention, interpolate, pad, the extra norms and losses) declare
theirs in those files, imported below before the forms are derived. Defined here: the
few that are not ops (one_hot; the dropout family comes from ``ops/nn/dropout.py``) and
``unfold`` (im2col, from functional_image: ``unfold`` is declared as ``Tensor.unfold``,
another op).
"""
import numpy as np

from .._tensor.tensor import Tensor
from ..ops import _forms
from ..ops.nn.activation import _with_inplace, relu_  # noqa: F401
from ..ops.reduce.reduction import _return_type  # noqa: F401
# the nn-level families: importing one declares its ops
from ..ops.nn import (attention as functional_attention, resampling as functional_image,
                      padding as functional_pad)
from ..ops.nn.resampling import unfold  # noqa: F401
from ..ops.nn.dropout import (alpha_dropout, dropout, dropout1d, dropout2d,  # noqa: F401
                              dropout3d, feature_alpha_dropout)

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


# torch.nn.grad is nn.functional.grad too; grid_sample's mode codes (as PyTorch)
from . import grad  # noqa: E402,F401
from ..ops.nn.grid_sample import (GRID_SAMPLE_INTERPOLATION_MODES,  # noqa: E402,F401
                                  GRID_SAMPLE_PADDING_MODES)
