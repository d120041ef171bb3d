"""``LinearCrossEntropyOptions`` (PyTorch 2.13's file of that name): the chunking options of
``nn.functional.linear_cross_entropy`` and ``LinearCrossEntropyLoss``.

The options select PyTorch's chunked, memory-saving evaluation; leafgrad validates and
keeps them (the value is the same), as a frozen dataclass with PyTorch's fields.
"""
import dataclasses

from ..._core import dtype as _dtype

__all__ = []


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
