"""``nn.Module``'s methods on its tensors as a whole, bound in ``Module``'s body
(``module.py``): moving and casting them (``to``, ``float``, ``_apply``, ``to_empty``, ...)
and saving and loading them (``state_dict``, ``load_state_dict``: PyTorch's key names,
``_IncompatibleKeys``). Each function's ``self`` is the Module.
Reference: https://pytorch.org/docs/stable/generated/torch.nn.Module.html
"""
import functools
from collections import OrderedDict, namedtuple

import numpy as np

from ..._tensor import creation as _creation
from ..._core import dtype as _dtype
from ..._tensor.tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter
from ..._core import errors as _errors


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: ``(missing_keys, unexpected_keys)``."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


# ------------------------------------------------------------- conversion
def _apply(self, fn, recurse=True):
    from ... import __future__ as _future
    from ...utils._swap import swap_tensors
    swap = _future.get_swap_module_params_on_conversion()
    if recurse:
        for module in self.children():
            module._apply(fn)
    for key, param in self._parameters.items():
        if param is None:
            continue
        with no_grad():
            new = fn(param)
        if swap and new is not param:
            # torch.__future__.set_swap_module_params_on_conversion(True): the parameter
            # object takes the converted tensor's whole state (a wrapper subclass its
            # attributes too), as PyTorch's swap_tensors path
            grad, param._grad = param._grad, None
            swap_tensors(param, Parameter(new, param._requires_grad))
            if grad is not None:
                with no_grad():
                    param._grad = Tensor._make_plain(fn(grad)._data)
            continue
        if new is not param and new._data is not param._data:
            param._data = new._data
        if param._grad is not None:
            with no_grad():
                g = fn(param._grad)
            if g is not param._grad:
                param._grad = Tensor._make_plain(g._data)
    for key, buf in self._buffers.items():
        if buf is not None:
            self._buffers[key] = fn(buf)
    return self

def to(self, *args, **kwargs):
    """Cast floating-point parameters and buffers: ``to(dtype)``, ``to(device)``,
    ``to(tensor)``, ``to(device, dtype)``. Only the CPU exists. Returns self.

    Raises:
        TypeError: when the dtype is not floating point or complex.
    """
    dtype = kwargs.get("dtype")
    device = kwargs.get("device")
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a.dtype
        else:
            device = a
    if device is not None:
        from ..._tensor.creation import _require_cpu_or_meta
        if _require_cpu_or_meta(device):
            # a skeleton for torch.func.functional_call (_tensor/meta.py)
            return self._apply(lambda t: t.to("meta", dtype=dtype if dtype is not None and
                                              t.is_floating_point() else None))
    if dtype is None:
        return self
    dtype = _dtype.to_dtype(dtype)
    if not (dtype.is_floating_point or dtype.is_complex):
        raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                        "desired dtype=%s" % dtype)

    def convert(t):
        if t.is_floating_point() or t.is_complex():
            return t.to(dtype)
        return t
    return self._apply(convert)

def _load_by_swap(target, src, assign, kind):
    """load_state_dict with torch.__future__.set_swap_module_params_on_conversion(True):
    ``target.module_load(src, assign)`` (a subclass may override it through
    ``__torch_function__``), swapped into the target object (PyTorch's path)."""
    from ...utils._swap import swap_tensors
    new = target.module_load(src, assign=assign)
    if new is src or new is target:
        raise RuntimeError(
            "module_load returned one of self or other, please .detach() the result if "
            "returning one of the inputs in module_load")
    if kind == "param":
        if not isinstance(new, Parameter):
            new = Parameter(new, target._requires_grad)
        else:
            new.requires_grad_(target._requires_grad)
    swap_tensors(target, new)


def meta_aware_init(cls):
    """Give ``cls`` (a Module subclass) an ``__init__`` that honours ``device='meta'``: the
    constructor then runs inside ``with torch.device('meta')``, so every parameter and
    buffer it makes is a meta tensor and the initialisers draw nothing (as PyTorch's
    ``factory_kwargs``). Other devices go to the constructor unchanged."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "_meta_aware", False):
        return

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        dev = kwargs.get("device")
        if dev is None or not _creation._on_meta(dev):
            return init(self, *args, **kwargs)
        with _creation.device("meta"):
            return init(self, *args, **kwargs)
    __init__._meta_aware = True
    cls.__init__ = __init__


def _cast_floats(self, dt):
    return self._apply(lambda t: t.to(dt) if t.is_floating_point() else t)

def float_(self):
    return self._cast_floats(_dtype.float32)

def double(self):
    return self._cast_floats(_dtype.float64)

def half(self):
    return self._cast_floats(_dtype.float16)

def bfloat16(self):
    return self._cast_floats(_dtype.bfloat16)     # raises TypeError: no bfloat16 arrays

def type_(self, dst_type):
    return self._apply(lambda t: t.type(dst_type))

def cpu(self):
    return self

def cuda(self, device=None):
    from ..._tensor.creation import _require_cpu
    _require_cpu("cuda")

def to_empty(self, *, device=None, recurse=True):
    """Give meta parameters and buffers storage on the CPU (zeros here; PyTorch leaves
    it uninitialised): initialise them afterwards (``reset_parameters()``)."""
    from ..._tensor.creation import _require_cpu
    from ..._tensor.meta import MetaArray
    _require_cpu(device)

    def alloc(t):
        if t._data.__class__ is MetaArray:
            t = Tensor._make_plain(np.zeros(t._data.shape, t._data.dtype))
        return t
    return self._apply(alloc, recurse)


# ------------------------------------------------------------- state dict
def _save_to_state_dict(self, destination, prefix, keep_vars):
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in self._buffers.items():
        if buf is not None and name not in self._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()

def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
    """An ``OrderedDict`` of parameters and persistent buffers, keys like ``'0.weight'``.

    Values are detached tensors sharing memory with the module's (as PyTorch);
    ``keep_vars=True`` returns the parameters themselves.
    """
    if args:
        destination = args[0]
        if len(args) > 1:
            prefix = args[1]
        if len(args) > 2:
            keep_vars = args[2]
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            module.state_dict(destination=destination, prefix=prefix + name + ".",
                              keep_vars=keep_vars)
    for hook in self._state_dict_hooks.values():
        res = hook(self, destination, prefix, {})
        if res is not None:
            destination = res
    return destination

def _load_one(module, name, kind, target, src, key, assign, swap):
    """One entry of load_state_dict, as PyTorch's ``_load_from_state_dict``: copied into
    the existing tensor in place; with ``assign=True`` the given tensor itself becomes the
    buffer, or the parameter (a ``Parameter`` kept as it is, with the target's
    requires_grad; another tensor wrapped in a ``Parameter`` sharing its memory)."""
    if target.is_meta and not src.is_meta and not assign:
        _errors.warn(
            "for %s: copying from a non-meta parameter in the checkpoint to a meta "
            "parameter in the current model, which is a no-op. (Did you mean to "
            "pass `assign=True` to assign items in the state dictionary to their "
            "corresponding key in the module instead of copying them in place?)"
            % key, UserWarning)
    if swap:
        _load_by_swap(target, src, assign, kind)
    elif assign:
        if kind == "param":
            if isinstance(src, Parameter):
                src.requires_grad_(target.requires_grad)
            else:
                src = Parameter(src, target.requires_grad)
        setattr(module, name, src)
    elif not target.is_meta:
        np.copyto(target._data, np.broadcast_to(src._data, target._data.shape),
                  casting="unsafe")
        target._bump_version()


def load_state_dict(self, state_dict, strict=True, assign=False):
    """Copy parameters and buffers from ``state_dict`` into this module's tensors in place
    (``assign=True``: the given tensors become them; see ``_load_one``).

    Returns:
        ``_IncompatibleKeys(missing_keys, unexpected_keys)`` (both lists of str).

    Raises:
        TypeError: when ``state_dict`` is not a mapping.
        RuntimeError: with ``strict=True`` for missing or unexpected keys (with
            ``strict=False`` they are only reported in the result), and always
            for a shape mismatch ("Error(s) in loading state_dict for <Class>: ...").
            As PyTorch, the entries that fit are loaded before it raises.
    """
    from collections.abc import Mapping
    if not isinstance(state_dict, Mapping):
        raise TypeError("Expected state_dict to be dict-like, got %s." % type(state_dict))
    missing_keys, unexpected_keys, error_msgs = [], [], []
    copies = []   # (module, name, kind, target tensor, source value, key)
    for mod_prefix, module in self.named_modules():
        prefix = mod_prefix + "." if mod_prefix else ""
        local = [(k, v, "param") for k, v in module._parameters.items() if v is not None]
        local += [(k, v, "buffer") for k, v in module._buffers.items()
                  if v is not None and k not in module._non_persistent_buffers_set]
        local_names = {k for k, _, _ in local}
        for name, target, kind in local:
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            src = state_dict[key]
            if not isinstance(src, Tensor):
                error_msgs.append(
                    'While copying the parameter named "%s", expected torch.Tensor or '
                    "Tensor-like object from checkpoint but received %s" % (key, type(src)))
                continue
            if target.dim() == 0 and src.dim() == 1 and src.shape[0] == 1:
                src = src[0]
            if tuple(src.shape) != tuple(target.shape):
                error_msgs.append(
                    "size mismatch for %s: copying a param with shape %s from checkpoint, "
                    "the shape in current model is %s." % (key, src.shape, target.shape))
                continue
            copies.append((module, name, kind, target, src, key))
        if True:   # keys are always reported (PyTorch); only strict raises
            for key in state_dict:
                if prefix and not key.startswith(prefix):
                    continue
                rest = key[len(prefix):].split(".", 1)
                if len(rest) > 1:
                    if rest[0] not in module._modules:
                        unexpected_keys.append(key)
                elif rest[0] not in local_names:
                    unexpected_keys.append(key)
    if strict:
        if unexpected_keys:
            error_msgs.insert(0, "Unexpected key(s) in state_dict: %s. " % ", ".join(
                '"%s"' % k for k in unexpected_keys))
        if missing_keys:
            error_msgs.insert(0, "Missing key(s) in state_dict: %s. " % ", ".join(
                '"%s"' % k for k in missing_keys))
    from ... import __future__ as _future
    swap = _future.get_swap_module_params_on_conversion()
    for module, name, kind, target, src, key in copies:   # as PyTorch: copied even when
        _load_one(module, name, kind, target, src, key, assign, swap)   # it raises below
    if error_msgs:
        raise RuntimeError("Error(s) in loading state_dict for %s:\n\t%s"
                           % (type(self).__name__, "\n\t".join(error_msgs)))
    return _IncompatibleKeys(missing_keys, unexpected_keys)


# Module's methods, named as PyTorch's (Module.state_dict, ...); float and type are
# float_ and type_ here, so that this module's code keeps the builtins
for _f in (_apply, to, _cast_floats, float_, double, half, bfloat16, type_, cpu, cuda,
           to_empty, _save_to_state_dict, state_dict, load_state_dict):
    _f.__name__ = _f.__name__.rstrip("_") if _f in (float_, type_) else _f.__name__
    _f.__qualname__ = "Module." + _f.__name__
del _f
