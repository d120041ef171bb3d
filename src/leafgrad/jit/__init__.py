"""``torch.jit``, as far as eager code needs it (leafgrad has no TorchScript compiler).

Decorators (``ignore``, ``unused``, ``export``, ``interface``, ``script_if_tracing``) tag
and return the function, as PyTorch's do outside the compiler; ``script`` and ``trace``
return objects that run the Python eagerly (``_script.py``, ``_trace.py``); ``fork`` runs
at once (``_async.py``); ``save``/``load`` of TorchScript archives raise
NotImplementedError with the way out (``_serialization.py``). PyTorch's DeprecationWarnings
are kept. Files mirror ``torch/jit/``.
"""
import functools
import typing as _typing

from .._jit_internal import (  # noqa: F401
    Final, FunctionModifiers, _overload, _overload_method, export, ignore, is_scripting,
    unused)
from ._async import Future, fork, wait
from ._freeze import freeze, optimize_for_inference
from ._script import (  # noqa: F401
    Attribute, CompilationUnit, Error, RecursiveScriptModule, ScriptFunction, ScriptModule,
    interface, script, script_method)
from ._serialization import load, save
from ._trace import TopLevelTracedModule, TracedModule, is_tracing, trace, trace_module  # noqa

__all__ = ["Attribute", "CompilationUnit", "Error", "Future", "ScriptFunction", "ScriptModule",
           "annotate", "enable_onednn_fusion", "export", "export_opnames", "fork", "freeze",
           "interface", "ignore", "isinstance", "load", "onednn_fusion_enabled",
           "optimize_for_inference", "save", "script", "script_if_tracing",
           "set_fusion_strategy", "strict_fusion", "trace", "trace_module", "unused", "wait"]

_builtin_isinstance = isinstance
_onednn = [False]
_fusion = [("STATIC", 2), ("DYNAMIC", 10)]


def annotate(the_type, the_value):
    """``torch.jit.annotate``: returns ``the_value`` (the type is for the compiler)."""
    return the_value


def script_if_tracing(fn):
    """A ``functools.wraps`` wrapper calling ``fn`` (PyTorch's shape outside a trace, where
    it calls the Python function; leafgrad never traces)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    wrapper.__original_fn = fn
    wrapper.__script_if_tracing_wrapper = True
    return wrapper


def isinstance(obj, target_type):
    """``torch.jit.isinstance``: ``obj`` against a type, including ``List[int]``,
    ``Dict[str, Tensor]``, ``Tuple[...]`` and ``Optional[...]`` (every element checked, as
    PyTorch's eager version does)."""
    origin = _typing.get_origin(target_type)
    args = _typing.get_args(target_type)
    if origin is None:
        return _builtin_isinstance(obj, target_type)
    if origin is _typing.Union:
        return any(isinstance(obj, a) if a is not type(None) else obj is None for a in args)
    if origin in (list, dict, tuple) and not _builtin_isinstance(obj, origin):
        return False
    if origin is list:
        return all(isinstance(o, args[0]) for o in obj) if args else True
    if origin is dict:
        return all(isinstance(k, args[0]) and isinstance(v, args[1])
                   for k, v in obj.items()) if args else True
    if origin is tuple:
        return (len(obj) == len(args) and all(isinstance(o, a) for o, a in zip(obj, args))
                if args else True)
    return _builtin_isinstance(obj, origin)


def export_opnames(m):
    """The ops a TorchScript module calls: no compiled program here (NotImplementedError)."""
    from ._script import _no_torchscript
    raise _no_torchscript("torch.jit.export_opnames")


def enable_onednn_fusion(enabled):
    """Records the flag (leafgrad has no fuser)."""
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled():
    return _onednn[0]


def set_fusion_strategy(strategy):
    """Stores the strategy and returns the previous one, as PyTorch (no fuser here)."""
    old, _fusion[:] = list(_fusion), list(strategy)
    return old


class strict_fusion:
    """``with torch.jit.strict_fusion():``: no-op outside the compiler, as in PyTorch."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
