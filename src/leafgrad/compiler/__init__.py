"""``torch.compiler`` and ``torch.compile``: PyTorch's compiler entry points on leafgrad.

``compile(model)`` wraps a module in ``torch._dynamo.eval_frame.OptimizedModule`` and a
function in a ``CompiledFn``: guarded captures, recompiles up to the cache limit, graph
breaks reported (``torch._dynamo.explain``) and refused under ``fullgraph=True``. The
calls run eager leafgrad, so every result, graph and ``grad_fn`` is eager's. A library
package (imports ``_dynamo`` and nn), loaded on first use of ``torch.compiler``.
"""
import warnings

from .._dynamo import config  # noqa: F401
from .._dynamo import eval_frame as _eval_frame
from .._dynamo.exc import InvalidBackend
from .._dynamo import list_backends, reset  # noqa: F401

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
_DEBUG_BACKENDS = ("eager", "aot_eager", "aot_eager_decomp_partition")
_warned = set()


def is_compiling():
    """True while a compiled function's call runs (PyTorch: while dynamo traces)."""
    return _eval_frame.is_compiling()


is_dynamo_compiling = is_compiling


def is_exporting():
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """``torch.compiler.disable``: ``fn`` runs eagerly, a graph break inside a compiled call."""
    return _eval_frame.disable(fn, recursive, reason=reason)


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def _check(backend, mode, options):
    """PyTorch's refusals of ``backend``/``mode``/``options``; one warning for what is ignored."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if isinstance(backend, str) and backend not in list_backends() + list(_DEBUG_BACKENDS):
        raise InvalidBackend(backend)
    if mode is not None and mode not in _MODES:
        raise RuntimeError("Unrecognized mode=%s, should be one of: %s" % (mode, ", ".join(_MODES)))
    ignored = [n for n, v, d in (("backend", backend, "inductor"), ("mode", mode, None),
                                 ("options", options, None)) if v is not None and v != d]
    if ignored and "settings" not in _warned:
        _warned.add("settings")
        warnings.warn("torch.compile: leafgrad has one compiler (it runs NumPy); %s ignored"
                      % ", ".join("%s=%r" % (n, {"backend": backend, "mode": mode,
                                                  "options": options}[n]) for n in ignored))


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, name=None, disable=False, recompile_limit=None,
            isolate_recompiles=False, shapes_spec=None):
    """``torch.compile``: a module -> ``OptimizedModule``, a function -> a ``CompiledFn``.

    With no ``model`` returns the decorator. ``disable=True`` returns ``model`` itself.
    Raises ``torch._dynamo.exc.InvalidBackend`` for an unknown backend name, RuntimeError for an
    unknown ``mode`` or both ``mode`` and ``options``, AssertionError for a non-callable (all
    PyTorch's). ``dynamic`` is accepted (shapes are guarded either way).
    """
    if model is None:
        def decorator(m):
            return compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, name=name, disable=disable,
                           recompile_limit=recompile_limit)
        return decorator
    if not callable(model):
        raise AssertionError("A callable function is expected, but %s is provided." % type(model))
    _check(backend, mode, options)
    if recompile_limit is not None:
        config.recompile_limit = config.cache_size_limit = recompile_limit
    if disable:
        return model
    from ..nn.modules.module import Module
    if isinstance(model, Module):
        return _eval_frame.OptimizedModule(model, fullgraph=fullgraph)
    return _eval_frame.CompiledFn(model, fullgraph=fullgraph)


__all__ = ["compile", "disable", "reset", "is_compiling", "is_dynamo_compiling", "is_exporting",
           "allow_in_graph", "assume_constant_result", "list_backends"]
