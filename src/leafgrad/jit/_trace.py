"""``torch.jit.trace`` / ``trace_module`` for eager code.

``trace`` runs ``func`` once on the example inputs (as PyTorch's tracer does, so an error
shows at the same place) and returns an object that calls it eagerly: a
:class:`TopLevelTracedModule` for a module (parameters shared), a ``ScriptFunction`` for a
function. One difference PyTorch's warnings already point at: PyTorch's trace records the
path the example took and replays it, while leafgrad re-runs the Python, so data-dependent
``if``/loops follow each new input (PyTorch's ``TracerWarning`` cases).
``is_tracing()`` is False: leafgrad never records a trace.
"""
import warnings

from ..nn.modules.module import Module
from ._script import ScriptFunction, _DEPRECATED, _EagerScriptModule, _wrap_module

__all__ = ["trace", "trace_module", "is_tracing", "TracedModule", "TopLevelTracedModule"]


class TracedModule(_EagerScriptModule):
    """``torch.jit.TracedModule``: a traced submodule (runs the module's forward eagerly);
    printed under the module's own name, as PyTorch's."""

    def _get_name(self):
        return self.original_name


class TopLevelTracedModule(TracedModule):
    """What ``trace(module, example)`` returns."""


def is_tracing():
    """False: leafgrad runs code eagerly and never under a tracer."""
    return False


def _run(fn, example_inputs, example_kwarg_inputs):
    if example_kwarg_inputs is not None:
        if not isinstance(example_kwarg_inputs, dict):
            raise RuntimeError("example_kwarg_inputs should be a dict")
        return fn(**example_kwarg_inputs)
    if isinstance(example_inputs, tuple):
        return fn(*example_inputs)
    return fn(example_inputs)


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """``torch.jit.trace``: runs ``func`` once on the examples; returns the eager stand-in.

    Raises TypeError (PyTorch's class; its message is a bare "'NoneType' object is not
    iterable") when neither ``example_inputs`` nor ``example_kwarg_inputs`` is given.
    """
    warnings.warn(_DEPRECATED % "trace", DeprecationWarning, stacklevel=2)
    if example_inputs is None and example_kwarg_inputs is None:
        raise TypeError(
            "torch.jit.trace needs example inputs to run the function on. Fix: pass "
            "example_inputs (a tensor or a tuple of them) or example_kwarg_inputs (a dict).")
    if isinstance(func, ScriptFunction) or isinstance(func, _EagerScriptModule):
        return func
    _run(func, example_inputs, example_kwarg_inputs)
    if isinstance(func, Module):
        return _wrap_module(func, TopLevelTracedModule, TracedModule)
    return ScriptFunction(func)


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None,
                 check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
                 _compilation_unit=None, example_inputs_is_kwarg=False, _store_inputs=True):
    """``torch.jit.trace_module(mod, {"method": example, ...})``: runs each method once.

    Raises AttributeError as PyTorch for a module that is not an ``nn.Module`` and for an
    ``inputs`` that is not a dict of method names.
    """
    warnings.warn(_DEPRECATED % "trace", DeprecationWarning, stacklevel=2)
    if not isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    traced = _wrap_module(mod, TopLevelTracedModule, TracedModule)
    for name, example in inputs.items():
        method = getattr(traced, name)
        if example_inputs_is_kwarg:
            _run(method, None, example)
        else:
            _run(method, example, None)
    return traced
