"""``torch.accelerator``: there is no accelerator here (leafgrad runs on NumPy, CPU only).

The answers are those of a CPU-only PyTorch 2.13 build: ``is_available()`` is
False, ``current_accelerator()`` is None, ``device_count()`` is 0, the memory
queries are 0; calls that need a device raise RuntimeError with the fix.
"""
from ._compat.devices import no_accelerator as _none

__all__ = ["current_accelerator", "current_device_idx", "current_device_index",
           "current_stream", "device_count", "device_index", "empty_cache",
           "get_memory_info", "is_available", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
           "set_device_index", "set_stream", "synchronize"]


def is_available():
    """False: no accelerator (the tutorials' device line then picks the CPU)."""
    return False


def current_accelerator(check_available=False):
    """None: no accelerator."""
    return None


def device_count():
    """0."""
    return 0


def _needs_device(*args, **kwargs):
    raise _none()


current_device_idx = current_device_index = set_device_idx = set_device_index = _needs_device
synchronize = current_stream = set_stream = get_memory_info = _needs_device
memory_stats = reset_accumulated_memory_stats = reset_peak_memory_stats = _needs_device


class device_index:
    """``with torch.accelerator.device_index(None):`` is a no-op; an index needs a device."""

    def __init__(self, device, /):
        if device is not None:
            raise _none()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def empty_cache():
    """Nothing to free."""


def _zero(device_index=None, /):
    return 0


memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _zero
