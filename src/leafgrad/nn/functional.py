"""``leafgrad.nn.functional``: activations, softmax, losses, linear, dropout, ...

The derivative rules live in ``leafgrad.ops`` (activation, loss, distance, normalization,
conv, pooling, linalg); the functional forms come from the op declarations there
(``ops._registry``). Defined here: the few that are not ops (one_hot, dropout); pad,
attention, interpolation and the other composite families come from the
nn/functional_*.py files (end of file).
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
    """Dropout with PyTorch's masks (the family lives in ``nn.modules.dropout``)."""
    from .modules.dropout import dropout as f
    return f(input, p, training, inplace)


def _dropout_family(name, train_default=True):
    def fn(input, p=0.5, training=train_default, inplace=False):
        from .modules import dropout as d
        return getattr(d, name)(input, p, training, inplace)
    fn.__name__ = name
    fn.__doc__ = "``F.%s`` (see ``nn.modules.dropout``)." % name
    return fn


dropout1d, dropout2d, dropout3d = (_dropout_family(n) for n in ("dropout1d", "dropout2d",
                                                                 "dropout3d"))
alpha_dropout, feature_alpha_dropout = (_dropout_family(n, False) for n in (
    "alpha_dropout", "feature_alpha_dropout"))






# ------------------------------------------------ families kept in their own files
from .functional_attention import (multi_head_attention_forward,  # noqa: E402,F401
                                   scaled_dot_product_attention)
from ..ops.conv_transpose import (conv3d, conv_transpose1d, conv_transpose2d,  # noqa: E402,F401
                                  conv_transpose3d)
from .functional_image import (fold, interpolate, pixel_shuffle, pixel_unshuffle,  # noqa: E402,F401
                               unfold, upsample, upsample_bilinear, upsample_nearest)
from .functional_pad import pad  # noqa: E402,F401
from .functional_extra import (embedding_bag, hardshrink, instance_norm,  # noqa: E402,F401
                               local_response_norm, prelu, rrelu, softshrink)
from ..ops.pool3d import (adaptive_avg_pool3d, adaptive_max_pool1d,  # noqa: E402,F401
                          adaptive_max_pool2d, adaptive_max_pool3d, avg_pool3d, max_pool3d)
from .functional_loss import (ctc_loss, gaussian_nll_loss, multi_margin_loss,  # noqa: E402,F401
                              multilabel_margin_loss, multilabel_soft_margin_loss,
                              poisson_nll_loss, triplet_margin_loss,
                              triplet_margin_with_distance_loss)
