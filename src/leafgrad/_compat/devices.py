"""What a CPU-only PyTorch build answers about accelerators, shared by
``torch.accelerator``, ``torch.cuda`` and ``torch.backends``.

leafgrad computes with NumPy on the CPU. Queries (``is_available``,
``device_count``, ``memory_allocated``) answer as a CPU-only PyTorch 2.13 wheel
does; calls that need a device raise PyTorch's exception class with a message
that says why and what to write instead.
"""
from .._core import errors as _errors

__all__ = ["no_cuda", "no_accelerator", "default_device", "set_default_device",
           "get_default_device"]


def no_cuda(what="CUDA"):
    """PyTorch's AssertionError for a CPU-only build, with the fix."""
    return AssertionError(
        "Torch not compiled with CUDA enabled: leafgrad runs on the CPU only (NumPy), so %s "
        "is not available. Fix: pick the device with `device = 'cuda' if "
        "torch.cuda.is_available() else 'cpu'` and use device='cpu' here." % what)


def no_accelerator():
    """PyTorch's RuntimeError when a call needs an accelerator and none exists."""
    return RuntimeError(
        "Cannot access accelerator device when none is available. leafgrad runs on the CPU "
        "only (NumPy). Fix: check torch.accelerator.is_available() first, or use "
        "device='cpu'.")


def set_default_device(device):
    """``torch.set_default_device``: only the CPU, 'meta' (or None) here.

    PyTorch's CPU build accepts ``'cuda'`` and fails at the next factory call;
    leafgrad raises the same AssertionError at once, where the cause is visible.

    Raises:
        AssertionError: for a CUDA device. RuntimeError: for other devices.
    """
    from .._tensor.creation import _DEFAULT_DEVICE, _require_cpu, device as _device
    if device is None:
        _DEFAULT_DEVICE[0] = "cpu"
        return
    d = device if isinstance(device, _device) else _device(device)
    if d.type == "cuda":
        raise no_cuda("set_default_device('%s')" % d)
    if d.type != "meta":      # 'meta': factories make meta tensors (_tensor/meta.py)
        _require_cpu(d)
    _DEFAULT_DEVICE[0] = str(d)


def get_default_device():
    """``torch.get_default_device()``: ``device(type='cpu')``."""
    from .._tensor.creation import _DEFAULT_DEVICE, device as _device
    return _device(_DEFAULT_DEVICE[0])


del _errors
