"""Grad mode: whether ops record the graph (``no_grad``, ``enable_grad``, ...).

Semantics follow https://pytorch.org/docs/stable/notes/autograd.html#locally-disabling-gradient-computation.
Every context manager here also works as a decorator, with or without
parentheses (``@no_grad`` and ``@no_grad()``).
"""
import functools
import inspect
from _thread import _local as thread_local  # threading.local (importing threading: ~1.5 ms)

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled"]


class _Mode(thread_local):
    """Per-thread flags read on every op (one attribute lookup on the hot path).

    Thread-local as PyTorch's grad mode: ``no_grad()`` in one thread leaves
    recording on in the others. The class attributes are the defaults every
    new thread starts with; a thread's assignment shadows them for that thread only.
    """

    enabled = True
    inference = False


mode = _Mode()


def is_grad_enabled():
    """True when ops record the graph for autograd."""
    return mode.enabled


def is_inference_mode_enabled():
    """True inside ``inference_mode()``."""
    return mode.inference


class _DecoratorContextManager:
    """Context manager usable as ``@cm``, ``@cm()`` or ``with cm():``."""

    def __new__(cls, orig_func=None, *args, **kwargs):
        if cls._accepts_bare_function and callable(orig_func) and not args and not kwargs:
            return cls()(orig_func)
        return super().__new__(cls)

    _accepts_bare_function = True

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError("a grad-mode context manager decorates functions, not classes")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException:
                        with self.clone():
                            response = gen.throw(*__import__("sys").exc_info())
                    else:
                        with self.clone():
                            response = gen.send(request)
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disable graph recording: results have ``requires_grad=False``.

    Example::

        with leafgrad.no_grad():
            w -= lr * w.grad      # in-place update of a leaf, not recorded
    """

    def __init__(self, orig_func=None):
        self.prev = False

    def __enter__(self):
        self.prev = mode.enabled
        mode.enabled = False

    def __exit__(self, *exc):
        mode.enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Enable graph recording inside a ``no_grad`` block."""

    def __init__(self, orig_func=None):
        self.prev = False

    def __enter__(self):
        self.prev = mode.enabled
        mode.enabled = True

    def __exit__(self, *exc):
        mode.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """``set_grad_enabled(mode)``: sets grad mode now; as a context manager,
    restores the previous mode on exit.

    Raises:
        TypeError: when ``mode`` is not a bool.
    """

    _accepts_bare_function = False

    def __init__(self, mode_):
        if not isinstance(mode_, bool):
            raise TypeError("set_grad_enabled(mode) expects a bool, got %s" % type(mode_).__name__)
        self.prev = mode.enabled
        self.mode = mode_
        mode.enabled = mode_

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        mode.enabled = self.prev

    def clone(self):
        return self.__class__(self.mode)

    def __call__(self, func):
        mode.enabled = self.prev   # used as a decorator: do not change the mode now
        return super().__call__(func)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``; tensors made inside are inference tensors, which
    refuse later use in autograd (``inference_mode(False)`` is a no-op)."""

    def __new__(cls, mode_=True):
        if callable(mode_) and not isinstance(mode_, bool):
            return cls()(mode_)
        return object.__new__(cls)

    def __init__(self, mode_=True):
        self.mode = bool(mode_) if isinstance(mode_, bool) else True
        self.prev = (mode.enabled, mode.inference)

    def __enter__(self):
        self.prev = (mode.enabled, mode.inference)
        if self.mode:
            mode.enabled = False
            mode.inference = True

    def __exit__(self, *exc):
        mode.enabled, mode.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)
