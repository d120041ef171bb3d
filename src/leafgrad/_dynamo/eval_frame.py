"""``torch._dynamo.eval_frame``: the compiled callable, its guards and ``OptimizedModule``.

A compiled function keeps a cache of captures keyed by its guards: the shapes, dtypes,
strides and ``requires_grad`` of the tensor arguments, the Python constants among them,
grad mode and inference mode, the default dtype, and for a module every submodule's
``training`` flag and the identity, shape and dtype of every parameter and buffer. A call
whose guards match no entry captures a new one (a recompile), up to
``config.recompile_limit`` entries; past that it runs eagerly with one warning, as
PyTorch's does.

Capturing runs the function eagerly under ``graph_breaks.watch``: a value read into
Python (``.item()``, ``bool(t)``, printing, data-dependent shapes, ...) marks the entry a
graph break, reported by ``explain`` and ``CompiledFn.graph_breaks``; such an entry runs
eagerly on every call. A capture without a break also records the call's NumPy program
(``capture.py``); later calls with its guards replay it, bit for bit eager's results, with
one ``CompiledFunctionBackward`` node on the outputs. What cannot be recorded keeps the
entry eager, with the reason in ``CompiledFn.eager_reasons``.
"""
import functools
import warnings
import weakref

from .._core import dtype as _dtype
from .._tensor.tensor import Tensor
from ..autograd import grad_mode
from ..nn.modules.module import Module
from . import capture as _capture, config, graph_breaks

_state = {"compiling": 0}
_all = weakref.WeakSet()   # the live CompiledFns, for reset()


def is_compiling():
    """``torch.compiler.is_compiling()``: True while a compiled function's call runs."""
    return _state["compiling"] > 0


_SCALARS = (bool, int, float, str)


def _arg_guard(a):
    if isinstance(a, Tensor):
        d = a._data
        return (d.shape, d.dtype, d.strides, a._requires_grad, type(a))
    if isinstance(a, (tuple, list)):
        return (type(a), tuple([_arg_guard(x) for x in a]))
    if isinstance(a, dict):
        return (dict, tuple([(k, _arg_guard(v)) for k, v in a.items()]))
    if a is None or isinstance(a, _SCALARS):
        return (type(a), a)
    return (type(a), id(a))


def _module_guard(module):
    """Every submodule's ``training``, whether it has hooks, and its parameters' and buffers'
    identity, shape, dtype and ``requires_grad``, walking the modules' dicts directly (the
    guard runs on every call: a flat list, no tuple per tensor)."""
    if module is None:
        return ()
    key = []
    add = key.append
    stack = [module]
    pop, push = stack.pop, stack.append
    while stack:
        d = pop().__dict__
        add(d["training"])
        if d["_forward_hooks"] or d["_forward_pre_hooks"] or d["_backward_hooks"] \
                or d["_backward_pre_hooks"]:
            add("hooks")     # hooks run in Python: a capture without them is stale
        for t in d["_parameters"].values():
            if t is not None:
                a = t._data
                add(id(t))
                add(a.shape)
                add(a.dtype)
                add(t._requires_grad)
        bufs = d["_buffers"]
        if bufs:
            for t in bufs.values():
                if t is not None:
                    a = t._data
                    add(id(t))
                    add(a.shape)
                    add(a.dtype)
        mods = d["_modules"]
        if mods:
            add(len(mods))
            for m in reversed(mods.values()):
                if m is not None:
                    push(m)
    return tuple(key)


def guards(args, kwargs, module=None, _mode=grad_mode.mode):
    """The guard key of one call: equal keys may share a capture."""
    return (_arg_guard(args), _arg_guard(kwargs) if kwargs else (), _mode.enabled,
            _mode.inference, _dtype.get_default_dtype(), _module_guard(module))


class _Entry:
    """One capture: its guard key, the graph breaks met while capturing, the recorded
    program (None: the entry runs eagerly) and why it has none."""

    def __init__(self, key, reasons, program=None, eager_reason=None):
        self.key = key
        self.reasons = reasons
        self.program = program
        self.eager_reason = eager_reason


class CompiledFn:
    """What ``torch.compile(fn)`` returns for a function: call it as ``fn``.

    ``graph_breaks`` lists the reasons (PyTorch's wording) of the captures that met one;
    ``recompiles`` counts the captures after the first.
    """

    def __init__(self, fn, fullgraph=False, module=None):
        self._fn = fn
        self._fullgraph = fullgraph
        self._module = module
        self._cache = {}
        self._warned = False
        functools.update_wrapper(self, fn)
        _all.add(self)

    @property
    def graph_breaks(self):
        return [r for e in self._cache.values() for r in e.reasons]

    @property
    def eager_reasons(self):
        """Why captures without a graph break still run eagerly (one reason per entry)."""
        return [e.eager_reason for e in self._cache.values() if e.eager_reason is not None]

    @property
    def replayed(self):
        """How many of the captures replay a recorded program."""
        return sum(e.program is not None for e in self._cache.values())

    @property
    def recompiles(self):
        return max(len(self._cache) - 1, 0)

    def reset(self):
        self._cache.clear()
        self._warned = False

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        if _disabled["depth"]:
            return self._fn(*args, **kwargs)
        key = guards(args, kwargs, self._module)
        entry = self._cache.get(key)
        if entry is not None:
            if entry.program is not None:
                return entry.program.replay(_capture.flat_tensors(args, kwargs))
            return self._run(args, kwargs)
        limit = min(config.recompile_limit, config.cache_size_limit)
        if len(self._cache) >= limit:
            self._warn_limit(limit)
            return self._fn(*args, **kwargs)
        return self._capture(key, args, kwargs)

    def _run(self, args, kwargs):
        _state["compiling"] += 1
        try:
            return self._fn(*args, **kwargs)
        finally:
            _state["compiling"] -= 1

    def _capture(self, key, args, kwargs):
        saved = _buffers_of(self._module) if self._fullgraph else None
        _state["compiling"] += 1
        try:
            with graph_breaks.watch(self._fullgraph) as w:
                out, program, why = _capture.capture(self._fn, args, kwargs, self._module)
        except Exception:
            if saved is not None:
                _restore(saved)   # a refused capture leaves the module's buffers as they were
            raise
        finally:
            _state["compiling"] -= 1
        if w.reasons:
            program, why = None, None
        self._cache[key] = _Entry(key, w.reasons, program, why)
        return out

    def _warn_limit(self, limit):
        if not self._warned:
            self._warned = True
            warnings.warn("torch._dynamo hit config.recompile_limit (%d) for %s: it runs eagerly "
                          "from now on. Keep the inputs' shapes, dtypes and the grad mode the same "
                          "between calls, or raise torch._dynamo.config.recompile_limit"
                          % (limit, getattr(self._fn, "__qualname__", self._fn)))


def _buffers_of(module):
    if module is None:
        return None
    return [(b, b._data.copy()) for b in module.buffers()]


def _restore(saved):
    for b, data in saved:
        b._data[...] = data


_disabled = {"depth": 0}


def disable(fn=None, recursive=True, *, reason=None):
    """``torch.compiler.disable``: ``fn`` always runs eagerly; inside a compiled call, a break.

    As a decorator with no argument it returns the decorator. ``recursive=False`` is taken as
    ``True``: nothing below ``fn`` is compiled either way here.
    """
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)

    @functools.wraps(fn)
    def eager(*args, **kwargs):
        graph_breaks.note("Skip calling `torch.compiler.disable()`d function %s%s"
                          % (getattr(fn, "__qualname__", fn), "" if reason is None
                             else ": " + reason))
        _disabled["depth"] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _disabled["depth"] -= 1
    eager._torchdynamo_disable = True
    return eager


def reset():
    """``torch._dynamo.reset()``: forget every capture of every compiled function."""
    for c in _all:
        c.reset()


class OptimizedModule(Module):
    """What ``torch.compile(module)`` returns: the module as ``_orig_mod``, called compiled.

    Attributes not its own are the original's (``weight``, ``fc1``, ...); ``state_dict()``
    keys carry the ``_orig_mod.`` prefix, as PyTorch's do; ``train()``/``eval()`` reach the
    original. Calling it runs ``_orig_mod.__call__`` (its hooks included) through a
    ``CompiledFn`` guarded on the module's parameters, buffers and training flags.
    """

    def __init__(self, mod, fullgraph=False):
        super().__init__()
        self._orig_mod = mod
        self.__dict__["forward"] = CompiledFn(mod.__call__, fullgraph=fullgraph, module=mod)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)

    def __call__(self, *args, **kwargs):
        return self.__dict__["forward"](*args, **kwargs)
