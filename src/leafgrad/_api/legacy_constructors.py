"""PyTorch's legacy typed constructors: ``torch.FloatTensor``, ``torch.LongTensor``, ...

``torch.LongTensor([1, 2])`` is an int64 tensor, ``torch.FloatTensor(2, 3)`` a
2x3 float32 tensor (uninitialised in PyTorch, zeros here), and
``isinstance(t, torch.LongTensor)`` tests the dtype, as in PyTorch. The
results are ordinary ``Tensor`` objects (``type(torch.LongTensor([1]))`` is
``torch.Tensor``, as in PyTorch).
"""
from .._core import dtype as _dtype
from .._tensor.tensor import Size, Tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


def _is_size(args):
    return all(isinstance(a, int) and not isinstance(a, bool) for a in args)


class _LegacyTensorType(type):
    """Metaclass: calling the class builds a Tensor of its dtype; isinstance tests the dtype."""

    def __call__(cls, *args, device=None):
        from .._tensor import creation as _creation
        _creation._require_cpu(device)
        dt = cls.dtype
        if not args:
            return _creation.empty(0, dtype=dt)
        if len(args) == 1 and isinstance(args[0], Size):
            args = tuple(args[0])
        if _is_size(args):
            for n in args:
                if n < 0:
                    raise RuntimeError("Trying to create tensor with negative dimension %d: %s. "
                                       "Fix: sizes must be >= 0." % (n, list(args)))
            return _creation.zeros(*args, dtype=dt)
        if len(args) > 1:
            raise TypeError("new() received an invalid combination of arguments: %s(%s). Fix: "
                            "pass sizes as ints (%s(2, 3)) or one sequence of values "
                            "(%s([1, 2]))" % (cls.__name__, ", ".join(type(a).__name__
                                                                      for a in args),
                                              cls.__name__, cls.__name__))
        data = args[0]
        if isinstance(data, Tensor):
            if data.dtype is not dt:
                raise TypeError("expected %s (got %s): %s(tensor) does not convert. Fix: "
                                "tensor.to(%s)" % (dt, data.dtype, cls.__name__, dt))
            return data.detach()
        if isinstance(data, (int, float, bool, complex)):
            raise TypeError("new(): data must be a sequence (got %s). Fix: %s([%r]) for one "
                            "value" % (type(data).__name__, cls.__name__, data))
        return _creation.tensor(data, dtype=dt)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __repr__(cls):
        return "<class 'torch.%s'>" % cls.__name__


def _legacy(name, dt):
    return _LegacyTensorType(name, (), {"dtype": dt, "__module__": "leafgrad",
                                        "__doc__": "Legacy constructor for %s tensors." % dt})


FloatTensor = _legacy("FloatTensor", _dtype.float32)
DoubleTensor = _legacy("DoubleTensor", _dtype.float64)
HalfTensor = _legacy("HalfTensor", _dtype.float16)
LongTensor = _legacy("LongTensor", _dtype.int64)
IntTensor = _legacy("IntTensor", _dtype.int32)
ShortTensor = _legacy("ShortTensor", _dtype.int16)
CharTensor = _legacy("CharTensor", _dtype.int8)
ByteTensor = _legacy("ByteTensor", _dtype.uint8)
BoolTensor = _legacy("BoolTensor", _dtype.bool_)
