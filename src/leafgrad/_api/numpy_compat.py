"""PyTorch's NumPy-style keyword aliases: ``x.sum(axis=1, keepdims=True)``,
``torch.randn(size=(2, 3))``.

PyTorch's argument parser accepts ``axis`` for ``dim`` and ``keepdims`` for
``keepdim`` in every native function and Tensor method
(``torch/csrc/utils/python_arg_parser.cpp``, ``numpy_compatibility_arg_names``),
and factories that take ``*size`` also take ``size=``. :func:`install` wraps
the public functions and methods that have such parameters once, at import
time; a call without keyword arguments pays one extra Python call, nothing
more.
"""
import functools
import inspect
import types

_ALIASES = {"axis": "dim", "keepdims": "keepdim"}
_ALIAS_KEYS = frozenset(_ALIASES)
_CO_VARARGS = inspect.CO_VARARGS


def _params(fn):
    # the innermost function's parameters (an out= decorator's wrapper takes *args, **kwargs)
    while hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    code = fn.__code__
    n = code.co_argcount + code.co_kwonlyargcount
    names = code.co_varnames[:n]
    varargs = code.co_varnames[n] if code.co_flags & _CO_VARARGS else None
    return names, varargs


def _rename(kwargs, name):
    out = {}
    for k, v in kwargs.items():
        real = _ALIASES.get(k, k)
        if real in out or (real != k and real in kwargs):
            raise TypeError("%s() got multiple values for argument '%s' (given as '%s' and "
                            "'%s'). Fix: pass it once." % (name, real, real, k))
        out[real] = v
    return out


def _wrap(fn, aliases, size_varargs):
    name = fn.__name__
    if size_varargs:
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if kwargs:
                if "size" in kwargs:
                    if args:
                        raise TypeError("%s() got multiple values for argument 'size'. Fix: "
                                        "pass the sizes either positionally or as size=..."
                                        % name)
                    size = kwargs.pop("size")
                    args = tuple(size) if isinstance(size, (tuple, list)) else (size,)
                if aliases and not _ALIAS_KEYS.isdisjoint(kwargs):
                    kwargs = _rename(kwargs, name)
            return fn(*args, **kwargs)
    else:
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if kwargs and not _ALIAS_KEYS.isdisjoint(kwargs):
                kwargs = _rename(kwargs, name)
            return fn(*args, **kwargs)
    call._numpy_compat = True
    return call


def _compat(fn, cache):
    """The wrapped ``fn``, or ``fn`` itself when it has no aliased parameter."""
    if type(fn) is not types.FunctionType or getattr(fn, "_numpy_compat", False):
        return fn
    got = cache.get(id(fn))
    if got is not None:
        return got[1]
    names, varargs = _params(fn)
    aliases = ("dim" in names or "keepdim" in names) and not (
        "axis" in names or "keepdims" in names)
    size_varargs = varargs == "size" and "size" not in names
    out = _wrap(fn, aliases, size_varargs) if (aliases or size_varargs) else fn
    cache[id(fn)] = (fn, out)
    return out


def install(module, tensor_cls):
    """Wrap ``module``'s public functions and ``tensor_cls``'s methods in place."""
    cache = {}
    for name, value in list(vars(module).items()):
        if not name.startswith("_") and isinstance(value, types.FunctionType):
            new = _compat(value, cache)
            if new is not value:
                setattr(module, name, new)
    for name, value in list(vars(tensor_cls).items()):
        if name.startswith("__"):
            continue
        if isinstance(value, types.FunctionType):
            new = _compat(value, cache)
            if new is not value:
                setattr(tensor_cls, name, new)
