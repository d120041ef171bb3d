"""PyTorch's ATen-level extension points, as far as leafgrad has them: ``torch.ops.aten``
(a few operators, as ``OpOverload`` objects) and ``Tensor._make_wrapper_subclass``
(tensor subclasses whose ops go to ``__torch_dispatch__``).

leafgrad's ops are Python functions over NumPy arrays, with no ATen dispatcher below
them. What a wrapper subclass needs for ``nn.Module``'s conversions and
``load_state_dict`` (the recipe "Extension points in nn.Module for load_state_dict and
tensor subclasses") is dispatched: ``detach`` (``Parameter(wrapper)``, ``state_dict``),
``_to_copy`` (``to``, ``float()``, ``double()``, ``module.to(dtype)``) and ``clone`` call
the subclass's ``__torch_dispatch__`` with ``torch.ops.aten.<op>.default``
(``_tensor/wrapper_subclass.py`` makes the instances). Any other op
on a wrapper raises NotImplementedError saying so (its data has a shape and a dtype but
no values: it never computes made-up numbers). Other ``torch.ops.aten`` names raise
PyTorch's AttributeError.

Source: torch/_ops.py (OpOverload, _OpNamespace), torch/csrc/autograd/python_variable.cpp
(_make_wrapper_subclass).
"""
from .meta import MetaArray


class OpOverload:
    """``torch.ops.aten.<name>.default``: callable (leafgrad's op), printed and compared
    as PyTorch's (``str(aten.detach.default) == 'aten.detach.default'``)."""
    __slots__ = ("_name", "_fn")

    def __init__(self, name, fn):
        self._name, self._fn = name, fn

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def name(self):
        return "aten::" + self._name

    def __repr__(self):
        return "<OpOverload(op='aten.%s', overload='default')>" % self._name

    def __str__(self):
        return "aten.%s.default" % self._name


class OpOverloadPacket:
    """``torch.ops.aten.<name>``: its ``default`` overload; callable as the op."""
    __slots__ = ("_name", "default")

    def __init__(self, name, fn):
        self._name = name
        self.default = OpOverload(name, fn)

    def __call__(self, *args, **kwargs):
        return self.default(*args, **kwargs)

    def overloads(self):
        return ["default"]

    def __repr__(self):
        return "<OpOverloadPacket(op='aten.%s')>" % self._name

    def __str__(self):
        return "aten.%s" % self._name


def _to_copy(x, *, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None):
    return x.to(device=device, dtype=dtype, copy=True)


_OPS = {"detach": lambda x: x.detach(), "_to_copy": _to_copy, "clone": lambda x, **k: x.clone()}


class _OpNamespace:
    """``torch.ops.<name>``: an operator namespace (``aten`` has the ops of ``_OPS``)."""
    __slots__ = ("name", "_packets")

    def __init__(self, name, ops=None):
        self.name = name
        self._packets = {n: OpOverloadPacket(n, f) for n, f in (ops or {}).items()}

    def __repr__(self):
        return "<module 'torch.ops.%s' from 'torch.ops'>" % self.name

    def __getattr__(self, op):
        if op.startswith("__"):
            raise AttributeError(op)
        p = self._packets.get(op)
        if p is not None:
            return p
        raise AttributeError(
            "'_OpNamespace' '%s' object has no attribute '%s': leafgrad has no ATen operator "
            "registry (its ops are Python functions on NumPy arrays; torch.ops.aten has only "
            "%s). Fix: call the torch function or Tensor method directly (torch.%s / "
            "Tensor.%s)" % (self.name, op, ", ".join(sorted(self._packets)), op.lstrip("_"),
                            op.lstrip("_")))


aten = _OpNamespace("aten", _OPS)


def _refuse(what):
    return NotImplementedError(
        "%s a tensor subclass made with Tensor._make_wrapper_subclass: leafgrad sends only "
        "detach, _to_copy (to / casts) and clone to its __torch_dispatch__ (it has no ATen "
        "dispatcher), and the wrapper itself has no values. Fix: compute on the wrapped "
        "tensor (e.g. its .elem), or implement the op as a method of the subclass." % what)


class WrapperArray(MetaArray):
    """The data of a wrapper subclass instance: its shape, dtype and device; no values,
    and no op runs on it (NumPy's protocols raise NotImplementedError)."""
    __slots__ = ("device",)

    def __init__(self, shape, dtype, device):
        MetaArray.__init__(self, shape, dtype)
        self.device = device

    def copy(self, order="C"):
        return WrapperArray(self.shape, self.dtype, self.device)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise _refuse("np.%s on" % ufunc.__name__)

    def __array_function__(self, func, types, args, kwargs):
        raise _refuse("np.%s on" % getattr(func, "__name__", func))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _refuse("ndarray.%s on" % name)

    def __getitem__(self, key):
        raise _refuse("indexing")

    def __setitem__(self, key, value):
        raise _refuse("writing into")


def dispatch(t, name, args, kwargs):
    """``type(t).__torch_dispatch__(aten.<name>.default, types, args, kwargs)``."""
    cls = type(t)
    handler = getattr(cls, "__torch_dispatch__", None)
    if handler is None:
        raise _refuse("%s of" % name)
    return handler(getattr(aten, name).default, (cls,), tuple(args), dict(kwargs))
