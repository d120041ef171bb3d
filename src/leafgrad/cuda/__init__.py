"""``torch.cuda`` as a CPU-only PyTorch 2.13 build answers it.

``is_available()`` is False and ``device_count()`` 0; seeding, ``empty_cache``
and the memory counters are harmless no-ops (0), as in PyTorch; calls that
need a GPU (``synchronize``, ``current_device``, ``get_device_name``,
``get_device_properties``) raise PyTorch's AssertionError, with the fix.
"""
from .._compat.devices import no_cuda as _no_cuda
from . import amp  # noqa: F401

__all__ = ["is_available", "device_count", "is_initialized", "init", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "synchronize", "current_device",
           "get_device_name", "get_device_capability", "get_device_properties", "set_device",
           "device", "empty_cache", "memory_allocated", "max_memory_allocated",
           "memory_reserved", "max_memory_reserved", "memory_cached", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "memory_summary", "memory_stats", "is_bf16_supported",
           "amp"]


def is_available():
    """False: leafgrad computes on the CPU."""
    return False


def device_count():
    """0."""
    return 0


def is_initialized():
    """False."""
    return False


def is_bf16_supported(including_emulation=True):
    """False."""
    return False


def manual_seed(seed):
    """No CUDA generator to seed: a no-op, as in PyTorch without a GPU."""


manual_seed_all = manual_seed


def seed():
    """No-op."""


seed_all = seed


def empty_cache():
    """Nothing to free."""


def _zero(device=None):
    return 0


memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _zero
memory_cached = _zero


def memory_stats(device=None):
    """An empty dict, as PyTorch's without a GPU."""
    return {}


def memory_summary(device=None, abbreviated=False):
    return "No CUDA device: leafgrad runs on the CPU only."


def _needs_gpu(name):
    def call(*args, **kwargs):
        raise _no_cuda("torch.cuda.%s()" % name)
    call.__name__ = name
    call.__doc__ = "Needs a GPU: raises AssertionError (as a CPU-only PyTorch build)."
    return call


init = _needs_gpu("init")
synchronize = _needs_gpu("synchronize")
current_device = _needs_gpu("current_device")
get_device_name = _needs_gpu("get_device_name")
get_device_capability = _needs_gpu("get_device_capability")
get_device_properties = _needs_gpu("get_device_properties")


def _no_cuda_attr(name):
    # PyTorch's CPU build fails these with AttributeError from torch._C
    def call(*args, **kwargs):
        raise AttributeError(
            "torch.cuda.%s() needs a CUDA build (PyTorch's CPU build raises this "
            "AttributeError too): leafgrad runs on the CPU only. Fix: guard the call with "
            "`if torch.cuda.is_available():`." % name)
    call.__name__ = name
    return call


set_device = _no_cuda_attr("set_device")
reset_peak_memory_stats = _no_cuda_attr("reset_peak_memory_stats")
reset_max_memory_allocated = _no_cuda_attr("reset_max_memory_allocated")


class device:
    """``torch.cuda.device(i)``: constructs; entering it needs a GPU (except ``device(-1)``/None)."""

    def __init__(self, device):
        self.idx = device if isinstance(device, int) or device is None else -1

    def __enter__(self):
        if self.idx is not None and self.idx != -1:
            raise _no_cuda("torch.cuda.device(%r)" % self.idx)
        return self

    def __exit__(self, *exc):
        return False
