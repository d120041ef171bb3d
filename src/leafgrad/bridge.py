"""Models and optimizers across: leafgrad <-> real PyTorch.

``to_torch(module)`` builds the same model in PyTorch and copies its parameters and buffers;
``from_torch(torch_module)`` the reverse. ``to_torch(optimizer, torch_params)`` /
``from_torch(torch_optimizer, params)`` move an optimizer with its state, so training
continues where it stopped.

How a module moves (generic, so layers added later move without a table entry):

* A layer of the library's ``nn`` (``Linear``, ``LSTM``, ``TransformerEncoderLayer``, ...)
  becomes the other library's class of the same name, built with the same constructor
  arguments: those recorded when the leafgrad layer was constructed, updated by the
  layer's attributes of the same names (``in_features``, ``eps``, ``batch_first``...; a
  ``bias`` tensor means ``bias=True``). Its parameters and buffers (with their names,
  shapes, ``requires_grad`` and persistence) are then copied, and the two reprs must agree.
* Containers (``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList/Dict``) and
  user-defined ``Module`` subclasses are rebuilt by walking the tree: a user class becomes
  a class of the same name over the other library's ``Module`` whose methods are the
  user's functions with the library's modules swapped in their globals (``torch`` /
  ``nn`` / ``F`` names bound to leafgrad become PyTorch's, and back), so a ``forward``
  written against the PyTorch API runs unchanged in both.

Anything else raises :class:`BridgeError` (a TypeError) naming the layer that cannot move.
Real PyTorch must be importable (it is not under ``leafgrad run``, where ``torch`` is
leafgrad). Tensors are copied, never shared (for sharing use DLPack, see ``from_dlpack``).
"""
import importlib
import inspect
import sys
import types
import typing

import numpy as np

from ._tensor.tensor import Tensor

__all__ = ["to_torch", "from_torch", "BridgeError"]


class BridgeError(TypeError):
    """A module, optimizer or value that has no counterpart in the other library."""


def _real_torch():
    mod = sys.modules.get("torch")
    if mod is not None and mod.__name__ == "leafgrad":
        raise BridgeError("leafgrad.bridge needs real PyTorch, but `torch` is leafgrad here "
                          "(under `leafgrad run`). Fix: run the conversion in a plain Python "
                          "process with PyTorch installed (pip install torch).")
    try:
        import torch
    except ImportError:
        raise BridgeError("leafgrad.bridge needs PyTorch. Fix: pip install torch.") from None
    return torch


class _Side:
    """One library (leafgrad or torch): how to recognise and make its objects."""

    def __init__(self, root):
        self.root = root
        self.name = root.__name__
        self.nn = root.nn
        self.Module = root.nn.Module
        self.Parameter = root.nn.Parameter
        self.Tensor = root.Tensor

    def owns(self, obj):
        mod = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
        return isinstance(mod, str) and (mod == self.name or mod.startswith(self.name + "."))

    def is_tensor(self, v):
        return isinstance(v, self.Tensor)

    def array(self, t):
        if self.name == "leafgrad":
            return np.array(t._data, copy=True)
        return t.detach().cpu().numpy().copy()

    def tensor(self, arr):
        if self.name == "leafgrad":
            return Tensor._make_plain(np.array(arr, copy=True))
        return self.root.from_numpy(np.array(arr, copy=True))


def _sides(direction):
    import leafgrad
    torch = _real_torch()
    lg, th = _Side(leafgrad), _Side(torch)
    return (lg, th) if direction == "to" else (th, lg)


def to_torch(obj, params=None):
    """The PyTorch counterpart of a leafgrad module or optimizer.

    Args:
        obj: a ``leafgrad.nn.Module`` or a ``leafgrad.optim.Optimizer``.
        params: for an optimizer, the PyTorch parameters it should drive (e.g.
            ``torch_model.parameters()``), in the order of the leafgrad optimizer's.

    Raises:
        BridgeError: a layer, value or optimizer with no PyTorch counterpart (named).
    """
    return _convert(obj, params, *_sides("to"))


def from_torch(obj, params=None):
    """The leafgrad counterpart of a PyTorch module or optimizer (see :func:`to_torch`)."""
    return _convert(obj, params, *_sides("from"))


def _convert(obj, params, src, dst):
    if isinstance(obj, src.Module):
        return _Mover(src, dst).module(obj, type(obj).__name__)
    if isinstance(obj, src.root.optim.Optimizer):
        if params is None:
            raise BridgeError("moving an optimizer needs the parameters it will drive. Fix: "
                              "%s(optimizer, moved_model.parameters())" % (
                                  "to_torch" if dst.name == "torch" else "from_torch"))
        return _optimizer(obj, list(params), src, dst)
    raise BridgeError("leafgrad.bridge moves nn.Module and optim.Optimizer objects, not %s"
                      % type(obj).__name__)


_CONTAINERS = ("Sequential", "ModuleList", "ModuleDict")
_PARAM_CONTAINERS = ("ParameterList", "ParameterDict")
_INTERNAL = {"training", "_parameters", "_buffers", "_non_persistent_buffers_set", "_modules",
             "_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
             "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
             "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
             "_load_state_dict_post_hooks", "_backward_hooks", "_backward_pre_hooks",
             "_is_full_backward_hook", "_ctor_args", "_compiled_call_impl"}


class _Mover:
    def __init__(self, src, dst):
        self.src, self.dst = src, dst
        self.memo = {}
        self.classes = {}
        self.functions = {}

    # -- values ---------------------------------------------------------------------------
    def value(self, v, where):
        """A constructor argument or attribute in the other library's terms."""
        src, dst = self.src, self.dst
        if isinstance(v, src.Module):
            return self.module(v, where)
        if src.is_tensor(v):
            t = dst.tensor(src.array(v))
            if isinstance(v, src.Parameter):
                return dst.Parameter(t, requires_grad=v.requires_grad)
            return t.requires_grad_(True) if v.requires_grad else t
        if isinstance(v, (list, tuple)):
            out = [self.value(x, where) for x in v]
            return type(v)(out) if type(v) in (list, tuple) else type(v)(*out) \
                if hasattr(v, "_fields") else type(v)(out)
        if isinstance(v, dict):
            return type(v)((k, self.value(x, where)) for k, x in v.items())
        if type(v).__name__ == "dtype" and src.owns(type(v)):
            return getattr(dst.root, str(v).replace("torch.", ""))
        if type(v).__name__ == "device" and src.owns(type(v)):
            return dst.root.device(str(v))
        if isinstance(v, types.ModuleType) and src.owns(v):
            return self.module_object(v)
        if callable(v) and src.owns(v) and hasattr(v, "__qualname__"):
            return self.counterpart(v, where)
        if isinstance(v, types.FunctionType):
            return self.function(v)
        return v

    def module_object(self, mod):
        name = self.dst.name + mod.__name__[len(self.src.name):]
        try:
            return importlib.import_module(name)
        except ImportError:
            raise BridgeError("%s has no module %s" % (self.dst.name, name)) from None

    def counterpart(self, obj, where):
        """``leafgrad.nn.functional.relu`` -> ``torch.nn.functional.relu`` (by name)."""
        try:
            mod = self.module_object(sys.modules[obj.__module__])
        except (KeyError, BridgeError):
            mod = None
        for holder in (mod, self.dst.root.nn.functional, self.dst.root):
            if holder is not None and hasattr(holder, obj.__name__):
                return getattr(holder, obj.__name__)
        raise BridgeError("%s: %s.%s has no counterpart in %s"
                          % (where, obj.__module__, obj.__qualname__, self.dst.name))

    def function(self, f):
        """A user function with the library's names in its globals swapped."""
        if id(f) in self.functions:
            return self.functions[id(f)]
        g = dict(f.__globals__)
        new = types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)
        new.__kwdefaults__ = f.__kwdefaults__
        new.__qualname__, new.__doc__, new.__module__ = f.__qualname__, f.__doc__, f.__module__
        self.functions[id(f)] = new
        for name in f.__code__.co_names:
            if name in g:
                g[name] = self.global_value(g[name], f.__module__)
        return new

    def global_value(self, v, home):
        if isinstance(v, types.ModuleType):
            return self.module_object(v) if self.src.owns(v) else v
        if isinstance(v, types.FunctionType) and v.__module__ == home:
            return self.function(v)
        if isinstance(v, type) and issubclass(v, self.src.Module) and not self.src.owns(v):
            return self.user_class(v)
        if callable(v) and self.src.owns(v) and hasattr(v, "__qualname__"):
            try:
                return self.counterpart(v, "a global")
            except BridgeError:
                return v
        return v

    # -- modules --------------------------------------------------------------------------
    def module(self, m, where):
        if id(m) in self.memo:
            return self.memo[id(m)]
        cls = type(m)
        if self.src.owns(cls):
            name = cls.__name__
            target = getattr(self.dst.nn, name, None)
            if target is None or not isinstance(target, type):
                raise BridgeError("%s (%s) cannot move: %s.nn has no %s"
                                  % (where, name, self.dst.name, name))
            if name in _PARAM_CONTAINERS:
                items = [(k, self.value(p, where)) for k, p in m._parameters.items()]
                out = target([p for _, p in items]) if name == "ParameterList" else \
                    target(dict(items))
                self.memo[id(m)] = out
            elif name in _CONTAINERS:
                out = target()
                self.memo[id(m)] = out
                self.fill(m, out, where)
            else:
                out = self.library_layer(m, target, where)
                self.memo[id(m)] = out
                self.copy_state(m, out, where)
                if repr(out) != repr(m):
                    raise BridgeError(
                        "%s cannot move exactly: the %s built from its constructor arguments "
                        "prints as\n%r\nbut the original prints as\n%r" % (where, name, out, m))
        else:
            try:
                newcls = self.user_class(cls)
            except BridgeError as exc:
                raise BridgeError("%s: %s" % (where, exc)) from None
            out = newcls.__new__(newcls)
            self.dst.Module.__init__(out)
            self.memo[id(m)] = out
            for k, v in m.__dict__.items():
                if k not in _INTERNAL:
                    out.__dict__[k] = self.value(v, "%s.%s" % (where, k))
            self.fill(m, out, where)
        out.training = m.training          # this module only: children keep their own flags
        return out

    def fill(self, m, out, where):
        """Children, parameters and buffers of a container or user module, by walking."""
        for name, p in m._parameters.items():
            out.register_parameter(name, None if p is None else self.value(p, where))
        for name, b in m._buffers.items():
            out.register_buffer(name, None if b is None else self.value(b, where),
                                persistent=name not in m._non_persistent_buffers_set)
        for name, child in m._modules.items():
            out.add_module(name, None if child is None else
                           self.module(child, "%s.%s" % (where, name)))

    def user_class(self, cls):
        if cls in self.classes:
            return self.classes[cls]
        bases = [b for b in cls.__mro__[1:] if b is not object]
        lib = [b for b in bases if self.src.owns(b) and b is not self.src.Module]
        if lib:
            raise BridgeError("%s subclasses %s.nn.%s: a subclass of a library layer cannot "
                              "move. Fix: hold the layer as a child (self.layer = nn.%s(...)) "
                              "instead of subclassing it." % (cls.__qualname__, self.src.name,
                                                              lib[0].__name__, lib[0].__name__))
        origin = cls.__dict__.get("_bridge_origin")
        if origin is not None and issubclass(origin, self.dst.Module):
            return origin               # moving back: the user's own class again
        ns = {"__module__": cls.__module__, "__qualname__": cls.__qualname__,
              "__doc__": cls.__doc__, "_bridge_origin": cls}
        newcls = type(cls.__name__, (self.dst.Module,), ns)
        self.classes[cls] = newcls
        for klass in reversed([c for c in cls.__mro__ if c not in (object, self.src.Module)]):
            for k, v in vars(klass).items():
                if k in ("__dict__", "__weakref__", "__module__", "__qualname__", "__doc__",
                         "__init__", "__slots__", "_bridge_origin"):
                    continue
                setattr(newcls, k, self.attribute(v))
        return newcls

    def attribute(self, v):
        if isinstance(v, types.FunctionType):
            return self.function(v)
        if isinstance(v, (staticmethod, classmethod)):
            return type(v)(self.attribute(v.__func__))
        if isinstance(v, property):
            return property(*(None if f is None else self.attribute(f)
                              for f in (v.fget, v.fset, v.fdel)), v.__doc__)
        return v

    def library_layer(self, m, target, where):
        kwargs = self.constructor_args(m, target, where)
        try:
            return target(**kwargs)
        except Exception as exc:
            raise BridgeError("%s (%s) cannot move: %s.nn.%s(%s) raised %s: %s"
                              % (where, type(m).__name__, self.dst.name, target.__name__,
                                 ", ".join("%s=%r" % kv for kv in kwargs.items()),
                                 type(exc).__name__, exc)) from None

    def constructor_args(self, m, target, where):
        params = _signature(target)
        own = _signature(type(m))       # names the source layer's constructor takes
        recorded = {}
        rec = m.__dict__.get("_ctor_args")
        if rec is not None:
            try:
                recorded = dict(inspect.signature(type(m).__init__).bind(m, *rec[0], **rec[1])
                                .arguments)
                recorded.pop(next(iter(inspect.signature(type(m).__init__).parameters)))
            except TypeError:
                recorded = dict(rec[1])
            for k, p in inspect.signature(type(m).__init__).parameters.items():
                if p.kind == p.VAR_KEYWORD and k in recorded:
                    recorded.update(recorded.pop(k))
        hint = _HINTS.get(type(m).__name__)
        if hint is not None:
            try:
                recorded = dict(recorded, **hint(m))
            except AttributeError:
                pass
        kwargs = {}
        for name, default in params.items():
            if name in ("device", "mode") or name.startswith("_"):
                continue
            if name == "dtype":
                first = next((t for t in list(m.parameters()) + list(m.buffers())
                              if t.is_floating_point()), None)
                if first is not None:
                    kwargs["dtype"] = self.value(first.dtype, where)
                continue
            if name not in own:
                continue
            if name in recorded and hint is not None:
                kwargs[name] = self.value(recorded[name], "%s.%s" % (where, name))
            elif name in m.__dict__ or name in m._parameters or name in m._buffers or \
                    name in m._modules or (
                    hasattr(type(m), name) and isinstance(getattr(type(m), name), property)):
                v = getattr(m, name)
                if isinstance(default, bool) and (v is None or self.src.is_tensor(v)):
                    v = v is not None
                elif callable(v) and not self.src.is_tensor(v) and name in recorded:
                    v = recorded[name]
                if _plain(v) and _plain(default) and v == default and type(v) is type(default):
                    continue
                kwargs[name] = self.value(v, "%s.%s" % (where, name))
            elif name in recorded:
                kwargs[name] = self.value(recorded[name], "%s.%s" % (where, name))
            elif default is inspect.Parameter.empty:
                raise BridgeError("%s (%s) cannot move: its constructor argument %r is neither "
                                  "recorded nor an attribute" % (where, type(m).__name__, name))
        return kwargs

    def copy_state(self, m, out, where):
        """Parameters and buffers of a library layer, by name, into the one just built."""
        for kind in ("_parameters", "_buffers"):
            mine, theirs = getattr(m, kind), getattr(out, kind)
            if [k for k, v in mine.items() if v is not None] != \
                    [k for k, v in theirs.items() if v is not None]:
                raise BridgeError("%s (%s) cannot move: its %s are %s, the rebuilt layer's are "
                                  "%s" % (where, type(m).__name__, kind[1:],
                                          [k for k, v in mine.items() if v is not None],
                                          [k for k, v in theirs.items() if v is not None]))
            for k, v in mine.items():
                if v is None:
                    continue
                if tuple(v.shape) != tuple(theirs[k].shape):
                    raise BridgeError("%s (%s) cannot move: %s has shape %s, the rebuilt "
                                      "layer's %s" % (where, type(m).__name__, k,
                                                      tuple(v.shape), tuple(theirs[k].shape)))
                if kind == "_parameters":
                    out._parameters[k] = self.value(v, where)
                else:
                    out._buffers[k] = self.value(v, where)
                    if k in m._non_persistent_buffers_set:
                        out._non_persistent_buffers_set.add(k)
        for name, child in m._modules.items():
            other = out._modules.get(name)
            sub = "%s.%s" % (where, name)
            if child is None or other is None or type(other).__name__ != type(child).__name__:
                raise BridgeError("%s cannot move: its child %r does not match the rebuilt "
                                  "layer's" % (where, name))
            if self.src.owns(type(child)):
                self.copy_state(child, other, sub)
            else:
                out._modules[name] = self.module(child, sub)
            other.training = child.training


def _layer_args(layer):
    return dict(dim_feedforward=layer.linear1.out_features, dropout=layer.dropout.p,
                activation=layer.activation, layer_norm_eps=layer.norm1.eps,
                norm_first=layer.norm_first, bias=layer.linear1.bias is not None)


# constructor arguments that PyTorch's layers keep under other names (read from either side)
_HINTS = {
    "PairwiseDistance": lambda m: dict(p=m.norm),
    # both keep cutoffs + [n_classes]
    "AdaptiveLogSoftmaxWithLoss": lambda m: dict(cutoffs=list(m.cutoffs[:-1])),
    "LinearCrossEntropyLoss": lambda m: dict(in_features=m.linear.in_features,
                                             bias=m.linear.bias is not None),
    "MultiheadAttention": lambda m: dict(bias=m.in_proj_bias is not None or
                                         m.out_proj.bias is not None,
                                         add_bias_kv=m.bias_k is not None),
    "TransformerEncoderLayer": lambda m: dict(_layer_args(m), d_model=m.self_attn.embed_dim,
                                              nhead=m.self_attn.num_heads,
                                              batch_first=m.self_attn.batch_first),
    "TransformerDecoderLayer": lambda m: dict(_layer_args(m), d_model=m.self_attn.embed_dim,
                                              nhead=m.self_attn.num_heads,
                                              batch_first=m.self_attn.batch_first),
    "TransformerEncoder": lambda m: dict(encoder_layer=m.layers[0], num_layers=len(m.layers)),
    "TransformerDecoder": lambda m: dict(decoder_layer=m.layers[0], num_layers=len(m.layers)),
    "Transformer": lambda m: dict(_layer_args(m.encoder.layers[0]),
                                  num_encoder_layers=len(m.encoder.layers),
                                  num_decoder_layers=len(m.decoder.layers)),
}


def _plain(v):
    return v is None or type(v) in (bool, int, float, str, tuple)


def _signature(cls):
    """Constructor parameter names -> defaults, over the class's ``__init__`` and its typing
    overloads (PyTorch's ``RNN.__init__(self, *args, **kwargs)`` declares its real
    parameters as overloads), else over its bases."""
    out = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if not isinstance(init, types.FunctionType):
            continue
        overloads = list(typing.get_overloads(init))
        done = bool(overloads)
        for fn in overloads + [init]:
            sig = inspect.signature(fn)
            var = False
            for i, (k, p) in enumerate(sig.parameters.items()):
                if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                    var = True
                elif i:
                    out.setdefault(k, p.default)
            done = done or (fn is init and not var)
        if done:
            break
    return out


# -- optimizers ----------------------------------------------------------------------------

def _optimizer(opt, params, src, dst):
    name = type(opt).__name__
    target = getattr(dst.root.optim, name, None)
    if target is None:
        raise BridgeError("optimizer %s cannot move: %s.optim has no %s" % (name, dst.name, name))
    n = sum(len(g["params"]) for g in opt.param_groups)
    if len(params) != n:
        raise BridgeError("the %s drives %d parameters, but %d were given to drive in %s"
                          % (name, n, len(params), dst.name))
    groups, i = [], 0
    for g in opt.param_groups:
        k = len(g["params"])
        groups.append({"params": params[i:i + k]})
        i += k
    new = target(groups, **{k: v for k, v in opt.defaults.items()
                            if k in _signature(target)})
    sd = opt.state_dict()
    mover = _Mover(src, dst)
    state = {}
    for k, st in sd["state"].items():
        state[k] = {key: mover.value(v, "%s state" % name) for key, v in st.items()}
    new.load_state_dict({"state": state, "param_groups": [
        {key: mover.value(v, name) for key, v in g.items()} for g in sd["param_groups"]]})
    return new
