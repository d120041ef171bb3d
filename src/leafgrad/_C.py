"""``torch._C``: the few names of PyTorch's C extension that Python code reaches for
around ``__torch_function__``: ``DisableTorchFunctionSubclass`` / ``DisableTorchFunction``
(context managers) and ``_disabled_torch_function_impl``; ``_LinAlgError``, the class
``torch.linalg`` raises (``torch.linalg.LinAlgError`` is the same class).

leafgrad calls a subclass's ``__torch_function__`` only from ``Tensor.module_load`` (what
``load_state_dict`` calls under ``torch.__future__.set_swap_module_params_on_conversion``);
inside these blocks it does not. Source: torch/csrc/utils/disable_torch_function.cpp.
"""

from ._core.errors import LinAlgError as _LinAlgError  # noqa: F401 - linalg's error class

_DISABLED = [0]


class DisableTorchFunctionSubclass:
    """``with torch._C.DisableTorchFunctionSubclass():``: subclasses' ``__torch_function__``
    is not called inside the block."""

    def __enter__(self):
        _DISABLED[0] += 1
        return self

    def __exit__(self, *exc):
        _DISABLED[0] -= 1
        return False


DisableTorchFunction = DisableTorchFunctionSubclass


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """``torch._C._disabled_torch_function_impl``: call ``func`` as it is."""
    return func(*args, **(kwargs or {}))


def torch_function_handler(*tensors):
    """The ``__torch_function__`` of the first of ``tensors`` whose class overrides
    Tensor's, or None (also None inside DisableTorchFunctionSubclass)."""
    if _DISABLED[0]:
        return None
    from ._tensor.tensor import Tensor
    base = Tensor.__dict__.get("__torch_function__")
    for t in tensors:
        cls = type(t)
        if cls is Tensor or not isinstance(t, Tensor):
            continue
        for klass in cls.__mro__:
            f = klass.__dict__.get("__torch_function__")
            if f is not None:
                if f is not base:
                    return getattr(cls, "__torch_function__")
                break
    return None


def _log_api_usage_once(event):
    """PyTorch logs which APIs a process used (for Meta's internal telemetry); libraries
    call it when a class is built (torchmetrics' Metric). leafgrad logs nothing."""
    return None
