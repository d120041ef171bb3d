"""``torch.jit.script`` and the script classes, for eager code.

leafgrad has no TorchScript compiler. ``script(fn)`` gives a :class:`ScriptFunction` and
``script(module)`` a :class:`RecursiveScriptModule`; both run the original Python code
eagerly, so results and gradients are the module's own (PyTorch's compiled code computes
the same). The scripted module shares the module's parameters and buffers (``sm.weight is
m.weight``, as in PyTorch), has its own ``training`` flag, and its submodules are scripted
too (``RecursiveScriptModule(original_name=Linear)`` in the repr, as PyTorch prints).
What needs the compiled program (``.code``, ``.graph``, ``save``) raises
NotImplementedError naming the way out.
"""
import inspect
import types
import warnings

from ..nn.modules.module import Module
from .._jit_internal import FunctionModifiers

__all__ = ["script", "script_method", "ScriptModule", "RecursiveScriptModule",
           "ScriptFunction", "Attribute", "interface", "CompilationUnit", "Error"]

_DEPRECATED = "`torch.jit.%s` is deprecated. Please switch to `torch.compile` or `torch.export`."
_NO_TORCHSCRIPT = (
    "%s is not available in leafgrad: it runs Python eagerly and has no TorchScript "
    "compiler, so there is no compiled program to show or write. Fix: keep the Python "
    "model and save its weights with torch.save(model.state_dict(), path); to get "
    "TorchScript, load those weights into the same model under PyTorch and script it there.")


def _no_torchscript(what):
    return NotImplementedError(_NO_TORCHSCRIPT % what)


class Error(RuntimeError):
    """``torch.jit.Error``: the class TorchScript's runtime errors have."""


class Attribute:
    """``torch.jit.Attribute(value, type)``: in eager code, just the pair (PyTorch's repr)."""

    def __init__(self, value, type):
        self.value, self.type = value, type

    def __iter__(self):
        return iter((self.value, self.type))

    def __repr__(self):
        return "Attribute(value=%r, type=%r)" % (self.value, self.type)


class _Unscripted:
    """What needs a compiled program: raises NotImplementedError when read."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        raise _no_torchscript("%s.%s" % (type(obj).__name__, self.name))


class ScriptFunction:
    """``torch.jit.ScriptFunction``: the function, called eagerly."""

    code = graph = inlined_graph = _Unscripted()

    def __init__(self, fn):
        self._fn = fn
        self.__wrapped__ = fn
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self.__doc__ = getattr(fn, "__doc__", None)

    @property
    def name(self):
        return self.__name__

    @property
    def qualified_name(self):
        """PyTorch's ``_qualified_name``: ``__torch__.<module>.<name>`` (``__main__`` dropped)."""
        module = getattr(self._fn, "__module__", None) or "__main__"
        name = "_lambda" if self.__name__ == "<lambda>" else self.__name__
        return ("__torch__" if module == "__main__" else "__torch__." + module) + "." + name

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def save(self, *args, **kwargs):
        raise _no_torchscript("ScriptFunction.save")

    def __repr__(self):
        return "<torch.jit.ScriptFunction object at %#x>" % id(self)


class ScriptModule(Module):
    """``torch.jit.ScriptModule``: a Module; subclassing it with ``script_method`` runs eagerly."""

    code = graph = inlined_graph = code_with_constants = _Unscripted()

    def save(self, f, **kwargs):
        raise _no_torchscript("ScriptModule.save")

    def _save_for_lite_interpreter(self, *args, **kwargs):
        raise _no_torchscript("ScriptModule._save_for_lite_interpreter")


class _EagerScriptModule(ScriptModule):
    """A module's own ``forward`` and methods, run eagerly on a copy of its instance
    dictionary (so parameters, buffers and hooks are shared, ``training`` is not);
    submodules are wrapped in turn."""

    def forward(self, *args, **kwargs):
        return type(self.__dict__["_leafgrad_original"]).forward(self, *args, **kwargs)

    @property
    def original_name(self):
        return type(self.__dict__["_leafgrad_original"]).__name__

    def __getattr__(self, name):
        try:
            return Module.__getattr__(self, name)
        except AttributeError:
            pass
        original = self.__dict__.get("_leafgrad_original")
        if original is None:
            raise AttributeError(name)
        attr = inspect.getattr_static(type(original), name, None)
        if isinstance(attr, property):
            return attr.fget(self)
        if inspect.isfunction(attr):
            return types.MethodType(attr, self)
        return getattr(original, name)

    def extra_repr(self):
        return "original_name=%s" % self.original_name


class RecursiveScriptModule(_EagerScriptModule):
    """What ``script(module)`` returns (PyTorch's class name and repr)."""

    # the container dunders (PyTorch's scripted Sequential/ModuleList/ModuleDict keep them);
    # the special-method lookup skips __getattr__, so each is forwarded here
    def _original_dunder(self, name, *args):
        fn = getattr(type(self.__dict__["_leafgrad_original"]), name, None)
        if fn is None:
            raise TypeError("'%s' object does not support %s" % (type(self).__name__, name))
        return fn(self, *args)

    def __getitem__(self, idx):
        return self._original_dunder("__getitem__", idx)

    def __len__(self):
        return self._original_dunder("__len__")

    def __iter__(self):
        return self._original_dunder("__iter__")

    def __contains__(self, key):
        return self._original_dunder("__contains__", key)

    def _get_name(self):
        return type(self).__name__


def _wrap_module(module, cls, child_cls=None):
    child_cls = child_cls or cls
    sm = cls.__new__(cls)
    sm.__dict__.update(module.__dict__)
    sm.__dict__["_leafgrad_original"] = module
    sm.__dict__["_modules"] = {
        k: (None if v is None else v if isinstance(v, ScriptModule) else _wrap_module(v, child_cls))
        for k, v in module._modules.items()}
    return sm


def _script(obj):
    if isinstance(obj, ScriptModule):
        return obj
    if isinstance(obj, Module):
        return _wrap_module(obj, RecursiveScriptModule)
    if inspect.isclass(obj):
        return obj          # ``@torch.jit.script class C``: PyTorch gives the class back
    if isinstance(obj, (dict, list)):
        return obj          # PyTorch makes a scripted container; leafgrad's is the same data
    if callable(obj):
        if isinstance(obj, ScriptFunction):
            return obj
        return ScriptFunction(obj)
    raise RuntimeError("torch.jit.script expects a function, a class or an nn.Module, got %s"
                       % type(obj).__name__)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``torch.jit.script``: eager stand-ins (see the module docstring); warns as PyTorch."""
    warnings.warn(_DEPRECATED % "script", DeprecationWarning, stacklevel=2)
    if getattr(obj, "_torchscript_modifier", None) in (FunctionModifiers.IGNORE,
                                                       FunctionModifiers.UNUSED):
        return obj
    return _script(obj)


def script_method(fn):
    """``@torch.jit.script_method`` (on a ScriptModule subclass): returns ``fn``."""
    warnings.warn(_DEPRECATED % "script_method", DeprecationWarning, stacklevel=2)
    return fn


def interface(obj):
    """``@torch.jit.interface``: checks ``obj`` as PyTorch does and returns it."""
    warnings.warn("`torch.jit.interface` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    if not inspect.isclass(obj):
        raise RuntimeError("interface must be applied to a class")
    is_module_interface = issubclass(obj, Module) and len(obj.mro()) == 3
    if not is_module_interface and len(obj.mro()) > 2:
        raise RuntimeError(
            "TorchScript interface does not support inheritance yet. "
            "Please directly inherit from 'object' or 'nn.Module'.")
    obj.__torch_script_interface__ = "__torch__." + obj.__qualname__
    return obj


class CompilationUnit:
    """``torch.jit.CompilationUnit``: empty is fine; TorchScript source cannot be compiled."""

    def __init__(self, lang=None, _frames_up=0):
        if lang is not None:
            raise _no_torchscript("torch.jit.CompilationUnit(source)")
