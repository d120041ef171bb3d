"""``nn.Parameter``: a tensor that a ``Module`` registers as one of its parameters; ``Buffer``;
``UninitializedParameter`` / ``UninitializedBuffer`` of the lazy layers (``modules/lazy.py``).

Follows ``torch.nn.Parameter``
(https://pytorch.org/docs/stable/generated/torch.nn.parameter.Parameter.html):
``Parameter(data=None, requires_grad=True)`` shares ``data``'s memory, is a leaf,
and prints as ``Parameter containing:`` followed by the tensor.
"""
import numpy as np

from .._tensor.aten import WrapperArray
from .._tensor.wrapper_subclass import _as_class
from .._tensor.meta import copy_data

from .._core import errors as _errors
from .._tensor.tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


class _ParameterMeta(type(Tensor)):
    # PyTorch's _ParameterMeta: a tensor subclass instance made a parameter
    # (Parameter(wrapper) keeps the wrapper's class) counts as a Parameter
    def __instancecheck__(cls, obj):
        return super().__instancecheck__(obj) or (
            cls is Parameter and isinstance(obj, Tensor) and
            getattr(obj, "_is_param", False) is True)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A leaf tensor that is registered as a parameter when assigned to a Module attribute.

    Args:
        data (Tensor or None): the values; the parameter shares its memory. ``None``
            gives an empty float32 tensor (shape ``(0,)``).
        requires_grad (bool): default ``True``.

    Raises:
        RuntimeError: ``requires_grad=True`` with an integer/bool dtype (as PyTorch).
    """

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            t = Tensor._make_plain(np.zeros((0,), dtype=np.float32))
        elif isinstance(data, Tensor) and data._data.__class__ is WrapperArray:
            # a wrapper subclass stays one (PyTorch: data.detach(), marked _is_param)
            t = data.detach()
            if type(t) is not type(data):
                raise RuntimeError(
                    "Creating a Parameter from an instance of type %s requires that "
                    "detach() returns an instance of the same type, but return type %s was "
                    "found instead. To use the type as a Parameter, please correct the "
                    "detach() semantics defined by its __torch_dispatch__() implementation."
                    % (type(data).__name__, type(t).__name__))
            t.requires_grad_(requires_grad)
            t._is_param = True
            return t
        elif isinstance(data, Tensor):
            t = Tensor._make_plain(data._data)
            t._share_version(data)      # shares memory and version counter with data
        else:
            raise TypeError("Parameter(): argument 'data' must be Tensor, not %s"
                            % type(data).__name__)
        if cls is Parameter:
            t.__class__ = cls                   # same slot layout (__slots__ = ())
        else:
            t = _as_class(t, cls)               # a subclass may add a __dict__
        if requires_grad:                       # here, not in __init__ (as PyTorch): a
            if t._data.dtype.kind not in "fc":  # subclass's own __init__ keeps it
                raise _errors.int_requires_grad(t.dtype)
            t._requires_grad = True
        return t

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        # as PyTorch: type(self)(data clone, requires_grad), so a subclass stays one
        result = type(self)(Tensor._make_plain(copy_data(self._data)), self._requires_grad)
        if self._grad is not None:
            result._grad = Tensor._make_plain(np.array(self._grad._data, copy=True))
        memo[id(self)] = result
        return result


class Buffer:
    """``nn.Buffer(data, persistent=True)``: assign to a Module attribute to register a buffer.

    Here it is a marker: on assignment the module stores ``data`` (a plain tensor).
    """

    def __init__(self, data=None, *, persistent=True):
        from .._tensor.creation import empty
        self.data = empty(0) if data is None else data
        self.persistent = persistent


def is_lazy(param):
    return False


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet; ``materialize(shape)`` gives it data
    (uninitialised memory, as ``torch.empty``) and makes it a plain ``Parameter``."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        p = Parameter.__new__(cls, None, requires_grad)
        if dtype is not None:
            from .._core.dtype import to_dtype
            p._data = p._data.astype(to_dtype(dtype).np)
        return p

    def __init__(self, requires_grad=True, device=None, dtype=None):
        super().__init__(None, requires_grad)

    def materialize(self, shape, device=None, dtype=None):
        dt = self._data.dtype if dtype is None else dtype.np
        self._data = np.empty(tuple(shape), dt)
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedParameter>"

    __str__ = __repr__


class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet (``torch.nn.UninitializedBuffer``);
    ``materialize(shape)`` gives it data and makes it a plain ``Tensor``."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        from .._core.dtype import to_dtype
        from .._core.dtype import get_default_dtype
        dt = to_dtype(dtype).np if dtype is not None else get_default_dtype().np
        t = Tensor._make_plain(np.empty((0,), dt))
        t.__class__ = cls
        t.requires_grad_(requires_grad)
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def materialize(self, shape, device=None, dtype=None):
        dt = self._data.dtype if dtype is None else dtype.np
        self._data = np.empty(tuple(shape), dt)
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedBuffer>"

    __str__ = __repr__
