"""``torch.cuda.amp`` (deprecated in PyTorch for ``torch.amp``): the same CPU answers."""

from ..amp import GradScaler as _GradScaler, autocast as _autocast, custom_bwd, custom_fwd  # noqa: F401
from .._core import errors as _errors

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(_autocast):
    """``torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)``."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _errors.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                     "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning)
        super().__init__("cuda", dtype=dtype, enabled=enabled)


class GradScaler(_GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _errors.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                     "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)
