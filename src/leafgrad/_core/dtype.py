"""Data types: ``leafgrad.float32`` and friends, and PyTorch's type promotion.

Each :class:`dtype` wraps one NumPy dtype. Promotion follows PyTorch's rules
(https://pytorch.org/docs/stable/tensor_attributes.html#type-promotion-doc):
categories bool < integer < floating; tensors with dimensions outrank
zero-dimensional tensors, which outrank Python numbers, unless the lower
priority operand is of a higher category.
"""
import numpy as np

__all__ = ["dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64",
           "uint8", "bool", "complex64", "complex128", "get_default_dtype", "set_default_dtype"]


class dtype:
    """A tensor element type (``leafgrad.float32``, ...); ``repr`` as in PyTorch."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_category")

    def __init__(self, name, np_dtype, category):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = self.np.kind in "fic"
        self.itemsize = self.np.itemsize
        self._category = category

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)


bool_ = dtype("bool", np.bool_, 0)
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float16 = dtype("float16", np.float16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)
complex64 = dtype("complex64", np.complex64, 3)
complex128 = dtype("complex128", np.complex128, 3)
globals()["bool"] = bool_


class _Unavailable(dtype):
    """A PyTorch dtype NumPy has no array type for (``bfloat16``): the name exists, so
    code that only names or compares it runs; making a tensor of it raises TypeError."""
    __slots__ = ()

    def __init__(self, name, itemsize):
        self.name, self.itemsize, self._category = name, itemsize, 2
        self.is_floating_point, self.is_complex, self.is_signed = True, False, True

    @property
    def np(self):
        # every path that would make an array of this dtype asks for its NumPy type
        raise TypeError(
            "leafgrad has no %s tensors: NumPy has no %s array type. Fix: use torch.float32 "
            "(or torch.float16 for half precision); to train in %s, move to PyTorch "
            "(leafgrad checkpoints load there)." % ((self.name,) * 3))


bfloat16 = _Unavailable("bfloat16", 2)

half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128

_ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
_FROM_NP = {d.np: d for d in _ALL}
_NAMES = {d.name: d for d in _ALL}


def _by_name(name):
    return _NAMES[name]


class _Default:
    __slots__ = ("dtype",)


_default = _Default()
_default.dtype = float32


def get_default_dtype():
    """The dtype of tensors made from Python floats (``float32`` unless changed)."""
    return _default.dtype


def set_default_dtype(d):
    """Set the floating dtype used for Python floats; only float32/float64 allowed.

    Raises:
        TypeError: for a non-floating dtype, as PyTorch does.
    """
    if not isinstance(d, dtype) or d not in (float32, float64, float16):
        raise TypeError("only floating-point types are supported as the default type")
    _default.dtype = d


def from_numpy_dtype(npd):
    """The leafgrad dtype of a NumPy dtype; TypeError for unsupported ones."""
    try:
        return _FROM_NP[np.dtype(npd)]
    except KeyError:
        raise TypeError(
            "can't convert np.ndarray of type %s. The only supported types are: float64, "
            "float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
            "and bool." % np.dtype(npd)) from None


def to_dtype(d, fname=None):
    """A ``dtype=`` argument as PyTorch's argument parser reads it: a dtype, ``None``, or
    Python's ``float``/``int``/``bool``/``complex`` (float64, int64, bool, complex128).

    ``fname`` names the function in the message (PyTorch's ``zeros(): argument ...``).

    Raises:
        TypeError: anything else (a string such as ``"float32"``, ``str``, a NumPy type),
        as PyTorch does, with its message and the fix."""
    if d is None or isinstance(d, dtype):
        return d
    import builtins
    if d is builtins.complex:
        return complex128
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool_
    from .errors import py_type_name
    raise TypeError("%sargument 'dtype' must be torch.dtype, not %s. Fix: pass a torch "
                    "dtype: dtype=torch.%s"
                    % ("" if fname is None else fname + "(): ", py_type_name(d),
                       d if isinstance(d, str) and d in _NAMES else "float32"))


def promote_types(a, b):
    """PyTorch's ``promote_types``: the higher category wins outright (int64 with
    float32 gives float32, unlike NumPy); within a category the wider type wins."""
    if a is b:
        return a
    if a._category != b._category:
        hi, lo = (a, b) if a._category > b._category else (b, a)
        if hi is complex64 and lo is float64:
            return complex128       # complex64 with float64: complex128, as PyTorch
        return hi
    return _FROM_NP[np.promote_types(a.np, b.np)]


def scalar_dtype(v):
    """dtype a Python number takes when it is a 'wrapped number' in an op."""
    t = type(v)
    if t is builtins_bool:
        return bool_
    if t is builtins_int:
        return int64
    if t is builtins_complex:
        return complex64
    return _default.dtype


import builtins as _b  # noqa: E402

builtins_bool, builtins_int, builtins_complex = _b.bool, _b.int, _b.complex


def result_type(*operands):
    """Result dtype of an op over tensors and Python numbers (PyTorch's rules).

    ``operands`` are Tensors (anything with ``_data`` and ``dtype``) or Python
    numbers.
    """
    dim_r = zero_r = wrap_r = None
    for o in operands:
        d = getattr(o, "dtype", None)
        if d is not None and hasattr(o, "_data"):
            if o._data.ndim:
                dim_r = d if dim_r is None else promote_types(dim_r, d)
            else:
                zero_r = d if zero_r is None else promote_types(zero_r, d)
        else:
            d = scalar_dtype(o)
            wrap_r = d if wrap_r is None else (d if d._category > wrap_r._category else wrap_r)
    r = dim_r
    for other in (zero_r, wrap_r):
        if other is None:
            continue
        if r is None:
            r = other
        elif other._category > r._category:
            r = promote_types(r, other)
    return r
