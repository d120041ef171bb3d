"""``LinearCrossEntropyLoss`` and ``LinearCrossEntropyOptions`` (PyTorch 2.13): a linear
layer fused with the cross-entropy loss (``nn.functional.linear_cross_entropy``).

The options select PyTorch's chunked, memory-saving evaluation; leafgrad validates and
keeps them (the value is the same), as a frozen dataclass with PyTorch's fields.
"""
import dataclasses
import math

from ..._core import dtype as _dtype
from .. import functional as F
from .linear import Linear
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss"]


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """PyTorch's chunking options of ``linear_cross_entropy`` (validated as there).

    Raises:
        ValueError: an unknown acc_policy or chunking_method, a non-positive
            batch_chunk_size, an acc_dtype that is not a floating dtype.
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError("invalid acc_policy: %r" % (self.acc_policy,))
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError("invalid chunking_method: %r" % (self.chunking_method,))
        if not (self.batch_chunk_size is None or (isinstance(self.batch_chunk_size, int)
                                                  and self.batch_chunk_size > 0)):
            raise ValueError("batch_chunk_size must be positive int or None, got %r"
                             % (self.batch_chunk_size,))
        ok = {getattr(_dtype, n) for n in ("float16", "bfloat16", "float32", "float64")
              if hasattr(_dtype, n)}
        if self.acc_dtype is not None and self.acc_dtype not in ok:
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                             "torch.float32, torch.float64}, got %r. Pass acc_dtype=None to "
                             "let the op pick automatically." % (self.acc_dtype,))


class LinearCrossEntropyLoss(_WeightedLoss):
    """``linear_cross_entropy(input, linear.weight, target, ...)`` with its own
    ``linear`` (in_features -> num_classes * prod(out_features)), PyTorch's parameter
    names (``linear.weight``, ``linear.bias``) and repr.

    Raises:
        RuntimeError: a class weight not of shape (num_classes,), label_smoothing outside
            [0, 1].
    """

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError("expected weight shape to be %s, got %s"
                               % ((num_classes,), tuple(weight.shape)))
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError("expected label_smoothing to be in range [0, 1], got %s"
                               % label_smoothing)
        super().__init__(weight, None, None, reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes),
                             bias=bias, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        shape = (self.num_classes,) + tuple(self.out_features)
        w = self.linear.weight.reshape(shape + (self.linear.in_features,))
        b = None if self.linear.bias is None else self.linear.bias.reshape(shape)
        return F.linear_cross_entropy(input, w, target, linear_bias=b, weight=self.weight,
                                      reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing,
                                      options=self.options)

    def extra_repr(self):
        return ("in_features=%s, num_classes=%s, out_features=%s, bias=%s, reduction=%s, "
                "ignore_index=%s, label_smoothing=%s, options=%s" % (
                    self.linear.in_features, self.num_classes, self.out_features,
                    self.linear.bias is not None, self.reduction, self.ignore_index,
                    self.label_smoothing, self.options))
