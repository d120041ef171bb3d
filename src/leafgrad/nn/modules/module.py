"""``nn.Module``: the base class of layers and models, as ``torch.nn.Module``.

Assigning a :class:`Parameter`, a ``Module`` or (through ``register_buffer``)
a tensor buffer to an attribute registers it; ``parameters()``,
``state_dict()``, ``train()/eval()``, ``to()`` and ``repr`` then walk the
tree of sub-modules the way PyTorch does (same key names, same repr text).
Reference: https://pytorch.org/docs/stable/generated/torch.nn.Module.html
"""
from collections import OrderedDict

from ..._tensor.tensor import Tensor
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter, Buffer
from ._backward_hooks import FullBackwardHook, attach_old_hooks
from ._module_state import (_apply, _cast_floats, _save_to_state_dict, bfloat16, cpu, cuda,
                            double, float_, half, load_state_dict, meta_aware_init, state_dict,
                            to, to_empty, type_)
from ._module_state import _IncompatibleKeys  # noqa: F401  (its old place)

__all__ = ["Module", "RemovableHandle"]


def typename(obj):
    """``torch.typename``: 'torch.FloatTensor' for tensors, the qualified name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "") or ""
    qual = getattr(type(obj), "__qualname__", type(obj).__name__)
    if module in ("builtins", "__builtin__", ""):
        return qual
    return module + "." + qual


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line for line in s]
    return first + "\n" + "\n".join(s)


def _forward_unimplemented(self, *input):
    raise NotImplementedError(
        'Module [%s] is missing the required "forward" function' % type(self).__name__)


class Module:
    """Base class for all neural network modules.

    Subclasses call ``super().__init__()`` first, then assign parameters
    and sub-modules as attributes, and define ``forward``. Calling the
    module runs the forward pre-hooks, ``forward``, then the forward hooks.
    """

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    forward = _forward_unimplemented

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        meta_aware_init(cls)

    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        # the constructor's arguments: leafgrad.bridge builds the same layer in PyTorch
        self.__dict__["_ctor_args"] = (args, kwargs)
        return self

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError("%s.__init__() got an unexpected argument: Module.__init__() takes "
                            "no arguments" % type(self).__name__)
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = {}
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = OrderedDict()
        d["_forward_hooks_always_called"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = OrderedDict()
        d["_state_dict_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None

    # ------------------------------------------------------------- registration
    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer (a tensor that is state but not a parameter, e.g. running mean).

        Raises:
            AttributeError: before ``Module.__init__``.
            TypeError: when ``name`` is not a str or ``tensor`` not a Tensor/None.
            KeyError: for an empty name, a name with '.', or an existing attribute.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError("buffer name should be a string. Got %s" % typename(name))
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError("attribute '%s' already exists" % name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError("cannot assign '%s' object to buffer '%s' (torch Tensor or None "
                            "required)" % (typename(tensor), name))
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (a :class:`Parameter` or None) under ``name``.

        Raises:
            AttributeError: before ``Module.__init__``.
            TypeError: for a non-Parameter value, or a non-leaf parameter.
            KeyError: for an empty name, a name with '.', or an existing attribute.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError("parameter name should be a string. Got %s" % typename(name))
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError("attribute '%s' already exists" % name)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError("cannot assign '%s' object to parameter '%s' (torch.nn.Parameter or "
                            "None required)" % (typename(param), name))
        elif param.grad_fn is not None:
            raise ValueError(
                "Cannot assign non-leaf Tensor to parameter '%s'. Model parameters must be "
                "created explicitly. To express '%s' as a function of another Tensor, compute "
                "the value in the forward() method." % (name, name))
        else:
            self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module under ``name`` (also reachable as an attribute).

        Raises:
            TypeError: when ``module`` is not a Module (or None) or ``name`` not a str.
            KeyError: for an empty name, a name with '.', or an existing attribute.
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError("%s is not a Module subclass" % typename(module))
        if not isinstance(name, str):
            raise TypeError("module name should be a string. Got %s" % typename(name))
        if hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '%s' already exists" % name)
        if "." in name:
            raise KeyError('module name can\'t contain ".", got: %s' % name)
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The sub-module at dotted path ``target`` ('' is self).

        Raises:
            AttributeError: when a part of the path does not exist or is not a Module.
        """
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return mod._buffers[name]

    # ------------------------------------------------------------ attributes
    def __getattr__(self, name):
        d = self.__dict__
        if "_parameters" in d:
            p = d["_parameters"]
            if name in p:
                return p[name]
        if "_buffers" in d:
            b = d["_buffers"]
            if name in b:
                return b[name]
        if "_modules" in d:
            m = d["_modules"]
            if name in m:
                return m[name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*dicts_or_sets):
            for dd in dicts_or_sets:
                if name in dd:
                    if isinstance(dd, dict):
                        del dd[name]
                    else:
                        dd.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError("cannot assign '%s' as parameter '%s' (torch.nn.Parameter or "
                                "None expected)" % (typename(value), name))
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError("cannot assign '%s' as child module '%s' (torch.nn.Module or "
                                "None expected)" % (typename(value), name))
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if isinstance(value, Buffer):
                persistent = value.persistent
                value = value.data
                if buffers is None:
                    raise AttributeError("cannot assign buffer before Module.__init__() call")
                remove_from(d, self._parameters, self._modules)
                self.register_buffer(name, value, persistent)
                return
            if value is not None and not isinstance(value, Tensor):
                raise TypeError("cannot assign '%s' as buffer '%s' (torch.nn.Buffer, "
                                "torch.Tensor or None expected)" % (typename(value), name))
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        parameters = list(self._parameters.keys())
        modules = list(self._modules.keys())
        buffers = list(self._buffers.keys())
        keys = module_attrs + attrs + parameters + modules + buffers
        keys = [key for key in keys if not key[0].isdigit()]
        return sorted(set(keys))

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ---------------------------------------------------------------- calling
    def _call_impl(self, *args, **kwargs):
        d = self.__dict__
        if not (d["_forward_hooks"] or d["_forward_pre_hooks"] or d["_backward_hooks"]
                or d["_backward_pre_hooks"]):
            return self.forward(*args, **kwargs)
        for hook_id, hook in list(d["_forward_pre_hooks"].items()):
            if hook_id in d["_forward_pre_hooks_with_kwargs"]:
                res = hook(self, args, kwargs)
                if res is not None:
                    if isinstance(res, tuple) and len(res) == 2:
                        args, kwargs = res
                    else:
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            "new_kwargs), but got %s." % (res,))
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        full = None
        if d["_is_full_backward_hook"] or d["_backward_pre_hooks"]:
            full = FullBackwardHook(self, d["_backward_hooks"], d["_backward_pre_hooks"])
            args = full.setup_inputs(args)
        result = self.forward(*args, **kwargs)
        if d["_backward_hooks"] and d["_is_full_backward_hook"] is False:
            attach_old_hooks(self, d["_backward_hooks"], args, result)
        for hook_id, hook in list(d["_forward_hooks"].items()):
            if hook_id in d["_forward_hooks_with_kwargs"]:
                res = hook(self, args, kwargs, result)
            else:
                res = hook(self, args, result)
            if res is not None:
                result = res
        if full is not None:
            result = full.setup_outputs(result)
        return result

    __call__ = _call_impl

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args) -> None or new args`` runs before ``forward``.

        With ``with_kwargs=True``: ``hook(module, args, kwargs) -> None or (args, kwargs)``.
        Returns a handle whose ``remove()`` unregisters it.
        """
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output) -> None or new output`` runs after ``forward``.

        With ``with_kwargs=True``: ``hook(module, args, kwargs, output)``.
        Returns a handle whose ``remove()`` unregisters it.
        """
        handle = RemovableHandle(self._forward_hooks, extra_dict=[
            self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _add_backward_hook(self, hook, full, prepend=False):
        d = self.__dict__
        if d["_is_full_backward_hook"] is (not full):
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                               "a single Module. Please use only one of them.")
        d["_is_full_backward_hook"] = full
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output) -> None or new grad_input`` runs once the
        gradients with respect to the module's tensor inputs are computed (``grad_input``
        has one entry per tensor argument, None where it needs no grad).

        Raises:
            RuntimeError: the module already has an old-style ``register_backward_hook``.
        """
        return self._add_backward_hook(hook, True, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output) -> None or new grad_output`` runs when the gradients
        with respect to the module's outputs are known, before the module's backward."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """The older backward hook: ``hook(module, grad_input, grad_output)`` on the output's
        ``grad_fn`` (``grad_input`` is that node's gradients; PyTorch's FutureWarning when it
        is not the module's inputs). Prefer ``register_full_backward_hook``."""
        return self._add_backward_hook(hook, False)

    def register_state_dict_pre_hook(self, hook):
        raise NotImplementedError("state_dict hooks are not implemented in leafgrad")

    # ---------------------------------------------------------------- walking
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                name = module_prefix + ("." if module_prefix else "") + k
                yield name, v

    def parameters(self, recurse=True):
        """Iterator over the parameters (each once), sub-modules' included when ``recurse``."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterator over ``(name, parameter)``, names like ``'0.weight'`` or ``'fc1.bias'``."""
        return self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                   recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                   recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Iterator over ``(name, module)`` for self ('') and every sub-module, depth first."""
        if memo is None:
            memo = set()
        if id(self) in memo and remove_duplicate:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ------------------------------------------------------------------ modes
    def train(self, mode=True):
        """Set training mode (affects Dropout, BatchNorm) on self and sub-modules; returns self.

        Raises:
            ValueError: when ``mode`` is not a bool.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """``train(False)``; returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters (to None by default, else to zeros)."""
        for p in self.parameters():
            if p._grad is not None:
                if set_to_none:
                    p._grad = None
                else:
                    g = p._grad
                    if g._grad_fn is not None:
                        g.detach_()
                    else:
                        g._requires_grad = False
                    g._data[...] = 0
                    g._bump_version()

    def share_memory(self):
        return self

    def apply(self, fn):
        """Call ``fn(m)`` on every sub-module (children first) then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------- conversion and state dict (_module_state.py)
    _apply = _apply
    to = to
    _cast_floats = _cast_floats
    float = float_
    double = double
    half = half
    bfloat16 = bfloat16
    type = type_
    cpu = cpu
    cuda = cuda
    to_empty = to_empty
    _save_to_state_dict = _save_to_state_dict
    state_dict = state_dict
    load_state_dict = load_state_dict

    # ------------------------------------------------------------------ repr
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside the parentheses of this module's repr (override it)."""
        return ""

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str


