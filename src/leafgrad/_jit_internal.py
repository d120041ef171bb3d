"""``torch._jit_internal``: the TorchScript markers that eager code carries.

In eager mode PyTorch's decorators only tag the function (``fn._torchscript_modifier``)
and return it unchanged; leafgrad never compiles, so the tags are all they do here too.
``is_scripting()`` is always False (leafgrad never runs code under the TorchScript
compiler), which is the branch eager PyTorch takes as well.
"""
import contextlib
import typing
import warnings

__all__ = ["FunctionModifiers", "export", "unused", "ignore", "is_scripting", "Final",
           "BroadcastingList1", "BroadcastingList2", "BroadcastingList3"]

Final = typing.Final
# PyTorch's aliases for "an int or a list of ints" in TorchScript signatures
BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = typing.List


class FunctionModifiers:
    """PyTorch's tag values (the strings are PyTorch's, so code comparing them works)."""

    UNUSED = "unused (ignored and replaced with raising of an exception)"
    IGNORE = "ignore (leave as a call to Python, cannot be torch.jit.save'd)"
    EXPORT = "export (compile this function even if nothing calls it)"
    DEFAULT = "default (compile if called from an exported function / forward)"
    COPY_TO_SCRIPT_WRAPPER = (
        "if this method is not scripted, copy the python method onto the scripted model")
    _DROP = "_drop (function is fully ignored, declaration can be unscriptable)"


def export(fn):
    """``@torch.jit.export``: tags ``fn`` and returns it."""
    fn._torchscript_modifier = FunctionModifiers.EXPORT
    return fn


def unused(fn):
    """``@torch.jit.unused``: tags ``fn`` (a function or a property's accessors), returns it."""
    if isinstance(fn, property):
        fn.fget._torchscript_modifier = FunctionModifiers.UNUSED
        if fn.fset:
            fn.fset._torchscript_modifier = FunctionModifiers.UNUSED
        return fn
    fn._torchscript_modifier = FunctionModifiers.UNUSED
    return fn


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` and ``@torch.jit.ignore(drop=...)``: tags the function.

    Raises RuntimeError for an argument that is neither a function nor a bool (PyTorch's
    message); ``drop=True`` and ``drop_on_export=True`` warn FutureWarning as PyTorch's.
    """
    if callable(drop):
        drop._torchscript_modifier = FunctionModifiers.IGNORE
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(
            f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    drop_on_export = kwargs.pop("drop_on_export", None)
    if drop_on_export:
        warnings.warn(
            "ignore(drop_on_export=True) has been deprecated. TorchScript will now drop the "
            "function call on compilation. Use torch.jit.unused now. {}",
            stacklevel=2, category=FutureWarning)
        drop = drop_on_export
    elif drop:
        warnings.warn(
            "ignore(True) has been deprecated. TorchScript will now drop the function "
            "call on compilation. Use torch.jit.unused now. {}",
            stacklevel=2, category=FutureWarning)

    def decorator(fn):
        fn._torchscript_modifier = (FunctionModifiers.UNUSED if drop
                                    else FunctionModifiers.IGNORE)
        return fn
    return decorator


def _copy_to_script_wrapper(fn):
    fn._torchscript_modifier = FunctionModifiers.COPY_TO_SCRIPT_WRAPPER
    return fn


def is_scripting():
    """False: leafgrad code always runs eagerly (PyTorch's answer outside the compiler)."""
    return False


def _overload(func):
    """``@torch.jit._overload``: eager PyTorch keeps the declaration; so does this."""
    return func


def _overload_method(func):
    return func


class _IgnoreContextManager(contextlib.AbstractContextManager):
    def __init__(self, **kwargs):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        pass
