"""``torch.jit.fork`` / ``wait``: ``fork`` runs the call at once and returns a done Future
(PyTorch's eager ``fork`` also runs the function synchronously)."""
import warnings

from ..futures import Future, _Future

__all__ = ["fork", "wait", "Future"]


def fork(func, *args, **kwargs):
    """``torch.jit.fork``: ``func(*args, **kwargs)`` now; its result in a Future."""
    warnings.warn("`torch.jit.fork` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    fut = _Future()       # PyTorch returns the base class, torch.Future
    fut.set_result(func(*args, **kwargs))
    return fut


def wait(future):
    """``torch.jit.wait``: the Future's result."""
    warnings.warn("`torch.jit.wait` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    return future.wait()
