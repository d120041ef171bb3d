"""Making tensors: ``tensor``, ``zeros``, ``arange``, ``randn``, ... and the random generator.

dtypes follow PyTorch: Python floats give the default dtype (float32),
Python ints give int64, bools give bool; NumPy arrays keep their dtype.
The random factories (``rand``, ``randn``, ...) are in ``_random_ops`` (PyTorch's
CPU streams).
"""
import numbers
import operator

import numpy as np

from .factory_out import takes_out

from .._core import dtype as _dtype, errors as _errors, scalars as _scalars
from .._core.fma import fma64 as _fma64
from . import tensor as _tensor
from .meta import MetaArray, elementwise_strides, meta_like
from .tensor import Size, Tensor, _make_inference
from ..autograd.grad_mode import mode as _mode

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
           "linspace", "logspace", "eye", "rand", "randn", "randint", "randperm", "normal",
           "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like",
           "randint_like", "manual_seed", "seed", "initial_seed", "Generator", "device",
           "get_rng_state", "set_rng_state", "scalar_tensor", "tril_indices", "triu_indices"]


_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


class device:
    """A device name, as PyTorch's (``device('cuda:1')`` constructs); tensors live on the
    CPU only: moving or creating one anywhere else raises (see ``_require_cpu``)."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            # PyTorch: an int is an index on the accelerator, and there is none
            raise RuntimeError("Cannot access accelerator device when none is available. "
                               "leafgrad runs on the CPU only (NumPy). Fix: use "
                               "device='cpu' (or leave it out).")
        s = str(type)
        name, sep, idx = s.partition(":")
        if name not in _DEVICE_TYPES:
            raise RuntimeError("Expected one of %s device type at start of device string: %s"
                               % (", ".join(_DEVICE_TYPES), s))
        if sep:
            if not idx.isdigit():
                raise RuntimeError("Invalid device string: '%s'" % s)
            index = int(idx)
        self.type, self.index = name, index

    def __repr__(self):
        if self.index is None:
            return "device(type='%s')" % self.type
        return "device(type='%s', index=%d)" % (self.type, self.index)

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = device(other)
            except RuntimeError:
                return False
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)

    def __enter__(self):
        """``with torch.device('cpu'):`` makes it the default device of factories inside
        the block, as PyTorch (the CPU or 'meta': other devices raise as
        ``set_default_device``)."""
        if self.type != "meta":
            _require_cpu(self)
        _DEVICE_STACK.append(_DEFAULT_DEVICE[0])
        _DEFAULT_DEVICE[0] = str(self)
        return self

    def __exit__(self, *exc):
        _DEFAULT_DEVICE[0] = _DEVICE_STACK.pop()
        return False


# the default device of factories (torch.set_default_device, with torch.device(...)),
# and the ones that enclosing `with device` blocks restore
_DEFAULT_DEVICE = ["cpu"]
_DEVICE_STACK = []


def _require_cpu(d):
    """Raise when ``d`` (a device or its name; None is the CPU) is not the CPU: PyTorch's
    AssertionError for CUDA (a CPU-only build), RuntimeError for other devices."""
    if d is None:
        return
    d = d if isinstance(d, device) else device(d)
    if d.type == "cpu":
        return
    msg = ("leafgrad runs on the CPU only (NumPy); device '%s' is not available. Fix: use "
           "device='cpu' (or leave it out), or drop the .cuda()/.to('%s') call." % (d, d))
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled: " + msg)
    raise RuntimeError(msg)



def _on_meta(d, like=None):
    """True when a factory with ``device=d`` makes a meta tensor: ``d`` is 'meta', or None
    with ``like`` (the *_like factories' input) on meta, or None (no ``like``) inside
    ``with torch.device('meta')`` / after ``set_default_device('meta')``. Other devices
    than the CPU raise as _require_cpu."""
    if d is None:
        if like is not None:
            return like._data.__class__ is MetaArray
        d = _DEFAULT_DEVICE[0]
        if d == "cpu":
            return False
    d = d if isinstance(d, device) else device(d)
    if d.type == "meta":
        return True
    _require_cpu(d)
    return False


def _meta_new(shape, npdtype, requires_grad):
    """A meta factory's result: a shape and a dtype, no memory (_tensor/meta.py)."""
    return _finish(MetaArray(shape, npdtype), requires_grad)


def _meta_after(fn):
    """For factories of small results (arange, eye, ...): computed on the CPU, then made
    meta when the device (or the default device) is 'meta'."""
    def factory(*args, device=None, **kwargs):
        if not _on_meta(device):
            return fn(*args, **kwargs)
        t = fn(*args, **kwargs)
        t._data = meta_like(t._data)
        return t
    factory.__name__ = factory.__qualname__ = fn.__name__
    factory.__doc__ = fn.__doc__
    factory.__wrapped__ = fn
    return factory


def _require_cpu_or_meta(d):
    """True for the 'meta' device, False for the CPU; other devices raise as _require_cpu."""
    d = d if isinstance(d, device) else device(d)
    if d.type == "meta":
        return True
    _require_cpu(d)
    return False


_check_device = _require_cpu
_tensor._CPU[0] = device("cpu")
_tensor._CPU[1] = device("meta")


# ---------------------------------------------------------------- conversion
def _not_a_number(v, nested):
    """PyTorch's error for a leaf of tensor(data) that is no number: TypeError for bytes (and
    a str given as the data), ValueError for a str inside a list, else RuntimeError."""
    name = type(v).__name__
    if isinstance(v, (bytes, bytearray)) or (isinstance(v, str) and not nested):
        return TypeError("new(): invalid data type '%s'. Fix: pass numbers (nested lists of "
                         "numbers, a NumPy array or a tensor)" % name)
    if isinstance(v, str):
        return ValueError("too many dimensions 'str'. Fix: convert the strings to numbers first")
    return RuntimeError("Could not infer dtype of %s. Fix: pass numbers (nested lists of "
                        "numbers, a NumPy array or a tensor)" % name)


def _infer_dtype(data, numpy_scalars=False):
    """dtype PyTorch infers from nested Python data. ``numpy_scalars``: a NumPy scalar
    counts as its own dtype (``torch.tensor([np.float64(1.5), 2])`` is float64, PyTorch's
    ``infer_scalar_type``); ``torch.full``'s fill value converts it to a Python number."""
    kinds = set()
    for v in _leaves(data):
        if isinstance(v, Tensor):
            kinds.add(v.dtype)
        elif numpy_scalars and isinstance(v, np.generic) and v.dtype.kind in "biufc":
            kinds.add(_dtype.from_numpy_dtype(v.dtype))
        elif isinstance(v, bool) or isinstance(v, np.bool_):
            kinds.add(_dtype.bool_)
        elif isinstance(v, numbers.Integral):
            kinds.add(_dtype.int64)
        elif isinstance(v, numbers.Complex) and not isinstance(v, numbers.Real):
            kinds.add(_dtype.complex64)
        elif isinstance(v, numbers.Real):
            kinds.add(_dtype.get_default_dtype())
        elif isinstance(v, np.ndarray):
            kinds.add(_dtype.from_numpy_dtype(v.dtype))
        else:
            raise _not_a_number(v, v is not data)
    if not kinds:
        return _dtype.get_default_dtype()
    best = None
    for k in kinds:
        best = k if best is None else (k if k._category > best._category else
                                       best if best._category > k._category else
                                       _dtype.promote_types(best, k))
    return best


def _as_array(data, dtype, fname="tensor"):
    """A fresh ndarray for ``data`` with PyTorch's dtype inference."""
    dtype = _dtype.to_dtype(dtype, fname)
    if isinstance(data, Tensor):
        arr = np.array(data._data, copy=True)
        return arr if dtype is None else arr.astype(dtype.np)
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        _check_strides(data)
        return np.array(data, dtype=None if dtype is None else dtype.np, copy=True)
    if isinstance(data, np.generic):
        return np.array(data, dtype=None if dtype is None else dtype.np)
    if isinstance(data, (list, tuple, range)):
        data = _unwrap(data)
    if dtype is None:
        dtype = _infer_dtype(data, numpy_scalars=True)
    try:
        arr = np.array(data, dtype=dtype.np if dtype.np.kind != "b" else None)
    except OverflowError:
        arr = _out_of_range(data, dtype.np)
    except (ValueError, TypeError) as e:
        if "inhomogeneous" in str(e) or "sequence" in str(e):
            raise ValueError("expected sequence of equal-length lists: %s. Fix: make every "
                             "row the same length." % e) from None
        if "NaN" in str(e):     # nan into an integer dtype
            arr = _out_of_range(data, dtype.np)
        else:
            raise TypeError(str(e)) from None
    if arr.dtype == object:
        if dtype.np.kind == "b":       # ints beyond 64 bits: their truth value, as PyTorch
            arr = np.array(data, dtype=np.bool_)
        else:
            raise TypeError("Could not infer dtype of the given data (mixed or ragged "
                            "elements)")
    if arr.dtype != dtype.np:
        arr = arr.astype(dtype.np)
    return arr


def _leaves(data):
    """What nested lists/tuples hold (numbers, tensors, arrays), flattened."""
    stack = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        else:
            yield v


def _numbers(data):
    """The numbers inside nested lists/tuples/tensors, flattened."""
    for v in _leaves(data):
        if isinstance(v, Tensor):
            yield from np.ravel(v._data).tolist()
        else:
            yield v


def _out_of_range(data, npd):
    """NumPy refused a number of ``data`` for ``npd``: raise PyTorch's error for it
    (see ``_scalars``), or build the array as PyTorch does (uint8 takes -1 as 255)."""
    nums = list(_numbers(data))
    _scalars.check_data(nums, npd)
    ints = all(isinstance(v, numbers.Integral) for v in nums)
    with np.errstate(all="ignore"):
        return np.array(data, dtype=np.int64 if ints else np.float64).astype(npd)


def _unwrap(data):
    """Nested lists/tuples/ranges as lists; a tensor inside is a number (its one element, as
    a 0-d array of its dtype for the inference), as PyTorch: more elements raise ValueError."""
    out = []
    for v in data:
        if isinstance(v, Tensor):
            if v._data.size != 1:
                raise ValueError("only one element tensors can be converted to Python scalars "
                                 "(this one has %d). Fix: torch.stack(list_of_tensors) joins "
                                 "tensors into one" % v._data.size)
            out.append(v._data.reshape(()))
        elif isinstance(v, (list, tuple, range)):
            out.append(_unwrap(v))
        else:
            out.append(v)
    return out


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new leaf tensor holding a copy of ``data`` (nested lists, numbers, arrays).

    Args:
        data: Python number, nested list/tuple, NumPy array, or tensor.
        dtype: defaults to float32 for floats, int64 for ints, bool for bools;
            NumPy arrays keep theirs.
        requires_grad: record ops on it for autograd (floating dtypes only).

    Raises:
        RuntimeError: ``requires_grad=True`` with an integer dtype.
        ValueError: ragged nested lists.
    """
    meta = _on_meta(device)
    if isinstance(data, Tensor):
        _errors.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).", UserWarning)
    arr = _as_array(data, dtype)
    if meta:
        arr = meta_like(arr)
    t = Tensor._make_plain(arr) if not _mode.inference else _make_inference(arr)
    if requires_grad:
        if arr.dtype.kind not in "fc":
            raise _errors.int_requires_grad(t.dtype)
        t._requires_grad = True
    return t


def scalar_tensor(s, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor of the number ``s`` (float32 unless ``dtype`` is given).

    Raises:
        OverflowError: for an int beyond 64 bits (PyTorch's Scalar).
    """
    _require_cpu(device)
    if isinstance(s, int) and not _scalars.I64_MIN <= s <= _scalars.U64_MAX:
        raise _scalars.too_big_for_scalar(s)
    return tensor(float(s) if dtype is None else s, dtype=dtype, requires_grad=requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with a NumPy array or tensor when it can."""
    _require_cpu(device)
    dtype = _dtype.to_dtype(dtype, "as_tensor")
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == dtype.np):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


_warned_read_only = []


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray`` (dtype kept). A read-only array gives
    PyTorch's warning (once); writes into the tensor then raise (``_errors.write_refused``).

    Raises:
        TypeError: for unsupported dtypes (object, strings).
        ValueError: an array with a negative stride (as PyTorch).
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError("expected np.ndarray (got %s)" % type(ndarray).__name__)
    _dtype.from_numpy_dtype(ndarray.dtype)
    _check_strides(ndarray)
    if not ndarray.flags.writeable and not _warned_read_only:
        _warned_read_only.append(True)
        _errors.warn("The given NumPy array is not writable, and PyTorch does not support "
                     "non-writable tensors. This means writing to this tensor will result in "
                     "undefined behavior. You may want to copy the array to protect its data "
                     "or make it writable before converting it to a tensor. This type of "
                     "warning will be suppressed for the rest of this program.", UserWarning)
    return Tensor._make_plain(ndarray)


def _check_strides(arr):
    """PyTorch's tensor()/from_numpy()/as_tensor() refuse arrays with a negative stride
    (``a[::-1]``, ``np.flip(a)``): ValueError, before anything is made."""
    if any(st < 0 for st in arr.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around this "
            "by making a copy of your array  with array.copy().) Fix: pass a.copy() (or "
            "np.ascontiguousarray(a)), or flip the tensor instead: torch.flip(t, dims)")


# ------------------------------------------------------------------ factories
def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    try:
        size = tuple(operator.index(s) for s in size)
    except TypeError:
        bad = next((s for s in size if not hasattr(s, "__index__")), None)
        raise TypeError("size must be a tuple of ints, but found element of type %s: %r"
                        % (type(bad).__name__, tuple(size))) from None
    big = next((s for s in size if not _scalars.I64_MIN <= s <= _scalars.I64_MAX), None)
    if big is not None:
        raise TypeError("size: failed to unpack %d (Overflow when unpacking long long): a "
                        "dimension must fit in int64." % big)
    if any(s < 0 for s in size):
        raise RuntimeError("Trying to create tensor with negative dimension %d: %s"
                           % (min(size), list(size)))
    return size


def _finish(arr, requires_grad):
    t = Tensor._make_plain(arr) if not _mode.inference else _make_inference(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _dt(dtype, fname=None):
    return (_dtype.to_dtype(dtype, fname) or _dtype.get_default_dtype()).np


@takes_out("zeros")
def zeros(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Tensor of zeros; float32 unless ``dtype`` is given."""
    if _on_meta(device):
        return _meta_new(_size(size), _dt(dtype, 'zeros'), requires_grad)
    return _finish(np.zeros(_size(size), _dt(dtype, 'zeros')), requires_grad)


@takes_out("ones")
def ones(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Tensor of ones; float32 unless ``dtype`` is given."""
    if _on_meta(device):
        return _meta_new(_size(size), _dt(dtype, 'ones'), requires_grad)
    return _finish(np.ones(_size(size), _dt(dtype, 'ones')), requires_grad)


@takes_out("empty")
def empty(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None,
          memory_format=None):
    """Uninitialised in PyTorch; zeros here (NumPy's empty would leak old memory)."""
    if _on_meta(device):
        return _meta_new(_size(size), _dt(dtype, 'empty'), requires_grad)
    return _finish(np.zeros(_size(size), _dt(dtype, 'empty')), requires_grad)


@takes_out("full")
def full(size, fill_value, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """Tensor filled with ``fill_value``; the dtype follows the value (bool, int64, float32)."""
    meta = _on_meta(device)
    _check_fill(fill_value, "full")
    _dtype.to_dtype(dtype, "full")
    if dtype is None:
        dtype = _infer_dtype(fill_value if not isinstance(fill_value, Tensor) else fill_value.item())
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    fill_value = _scalars.check_scalar_write(fill_value, _dtype.to_dtype(dtype).np)
    shape = _size((size,)) if isinstance(size, int) else _size(tuple(size))
    if meta:
        return _meta_new(shape, _dtype.to_dtype(dtype).np, requires_grad)
    return _finish(np.full(shape, fill_value, _dtype.to_dtype(dtype).np), requires_grad)


def _like_array(input, dtype, memory_format, value):
    """The array of a *_like result filled with ``value`` (None: zeros). PyTorch's default preserve_format
    keeps the input's dim order in memory (zeros_like(x.t()) is transposed too, with x.t()'s
    strides, dense): NumPy's order 'K'; torch.contiguous_format asks for row-major."""
    shape, npd = _like(input, dtype)
    a = input._data
    if a.flags.c_contiguous or memory_format == "contiguous_format" or a.__class__ is not np.ndarray:
        return np.zeros(shape, npd) if value is None else np.full(shape, value, npd)
    if value is None:
        return np.zeros_like(a, npd, "K", False)
    return np.full_like(a, value, npd, "K", False)


def dense_perm(arr):
    """The dim order (outermost first) of a dense array laid out as ``arr`` (None when that is
    the plain C order): *_like factories that draw random numbers fill memory in this order."""
    if arr.flags.c_contiguous:
        return None
    strides = np.empty_like(arr, np.bool_, "K", False).strides
    perm = sorted(range(arr.ndim), key=lambda i: -strides[i])
    return None if perm == list(range(arr.ndim)) else perm


def _check_fill(fill_value, name):
    if not isinstance(fill_value, (numbers.Number, np.generic, Tensor)):
        raise TypeError("%s(): argument 'fill_value' (position 2) must be Number, not %s. "
                        "Fix: pass a number" % (name, type(fill_value).__name__))


def _like(input, dtype, fname=None):
    return input._data.shape, (_dtype.to_dtype(dtype, fname).np if dtype is not None else input._data.dtype)


def zeros_like(input, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
    if _on_meta(device, input):
        return _meta_new(*_like(input, dtype, 'zeros_like'), requires_grad)
    return _finish(_like_array(input, dtype, memory_format, None), requires_grad)


def ones_like(input, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
    if _on_meta(device, input):
        return _meta_new(*_like(input, dtype, 'ones_like'), requires_grad)
    return _finish(_like_array(input, dtype, memory_format, 1), requires_grad)


def empty_like(input, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
    if _on_meta(device, input):
        shape, npd = _like(input, dtype, 'empty_like')
        a = input._data
        if a.__class__ is MetaArray and memory_format in (None, "preserve_format"):
            # preserve_format on meta: PyTorch's elementwise layout of the input
            return _finish(MetaArray(shape, npd, elementwise_strides(shape, [a], npd)),
                           requires_grad)
        return _meta_new(shape, npd, requires_grad)
    return _finish(_like_array(input, dtype, memory_format, None), requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None,
              layout=None):
    _check_fill(fill_value, "full_like")
    shape, npd = _like(input, dtype, 'full_like')
    if _on_meta(device, input):
        return _meta_new(shape, npd, requires_grad)
    return _finish(_like_array(input, dtype, memory_format, fill_value), requires_grad)


def _no_bool_kernel(npd, kernel):
    if np.dtype(npd).kind == "b":
        raise NotImplementedError("\"%s\" not implemented for 'Bool'. Fix: make it in an "
                                  "integer dtype, then .bool()" % kernel)


@takes_out("arange")
@_meta_after
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None,
           layout=None):
    """Values in [start, end) by ``step``: int64 for integer arguments, else float32.

    Raises:
        RuntimeError: for step 0 or a step of the wrong sign.
    """
    _require_cpu(device)
    _dtype.to_dtype(dtype, "arange")
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    for v in vals:
        if isinstance(v, int) and not _scalars.I64_MIN <= v <= _scalars.U64_MAX:
            raise _scalars.too_big_for_scalar(v)
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = _dtype.int64 if all(isinstance(v, int) for v in vals) else _dtype.get_default_dtype()
    dtype = _dtype.to_dtype(dtype)
    _no_bool_kernel(dtype.np, "arange_cpu")
    import math
    if dtype.np.kind not in "iu":
        n = max(0, math.ceil((end - start) / step))
        arr = start + np.arange(n, dtype=np.float64) * step
        return _finish(arr.astype(dtype.np), requires_grad)
    # integer dtypes, as PyTorch's CPU kernel (RangeUtils.h, RangeFactoriesKernel.cpp):
    # start and step are truncated to int64 and the values are start + i * step, cast
    # (wrapping) to the dtype; the length is ceil((end - start) / step) in doubles, except
    # for int64, where end is truncated too and the length is an integer division
    for v in vals:
        _scalars.check_scalar_write(v, np.dtype(np.int64))      # the kernel's int64 scalars
    xs, xe, xst = int(start), int(end), int(step)
    if dtype is _dtype.int64:
        if xst == 0:
            raise ValueError("step must be nonzero: with an integer dtype the step %r is "
                             "truncated to 0. Fix: pass an integer step, or a float dtype"
                             % (step,))
        sgn = (xst > 0) - (xst < 0)
        num = xe - xs + xst - sgn
        n = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)  # C++ division
    else:
        n = math.ceil((end - start) / step)
    arr = xs + np.arange(max(0, n), dtype=np.int64) * xst
    return _finish(arr.astype(dtype.np), requires_grad)


@takes_out("linspace")
@_meta_after
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None):
    """``steps`` evenly spaced values from start to end inclusive (float32)."""
    _require_cpu(device)
    dt = _dt(dtype, "linspace")
    _no_bool_kernel(dt, "linspace_cpu")
    steps = int(steps)
    if steps > 1 and np.dtype(dt).type in (np.float32, np.float64):
        return _finish(_linspace_float(start, end, steps, np.dtype(dt).type), requires_grad)
    # computed in float64 then rounded, symmetric from both ends as PyTorch does
    arr = np.linspace(float(start), float(end), steps, dtype=np.float64)
    if steps > 1:
        step = (float(end) - float(start)) / (steps - 1)
        if dt.itemsize < 8:
            step = float(np.asarray(step, dt))
        i = np.arange(steps)
        half = steps // 2
        arr = np.where(i < half, float(start) + step * i, float(end) - step * (steps - i - 1))
    return _finish(arr.astype(dt), requires_grad)


def _linspace_float(start, end, steps, npdt):
    """PyTorch's CPU linspace kernel (RangeFactoriesKernel.cpp), its scalar loop: start,
    end and step in the output dtype, step = (end - start) / (steps - 1); element i is
    start + step * i below steps // 2 and end - step * (steps - 1 - i) from there, each
    a fused multiply-add (one rounding). PyTorch computes blocks of 2 vector widths
    (2 x 16 float32 with AVX512, 2 x 8 with AVX2) from one base per vector instead, so
    longer tensors can differ from it in the last bit."""
    s, e = npdt(start), npdt(end)
    step = npdt(npdt(e - s) / npdt(steps - 1))
    i = np.arange(steps, dtype=np.float64)
    k = np.where(i < steps // 2, i, -(steps - 1 - i))
    base = np.where(i < steps // 2, np.float64(s), np.float64(e))
    if npdt == np.float32:      # float32 * small integer is exact in float64: one rounding
        return (np.float64(step) * k + base).astype(np.float32)
    return _fma64(np.full(steps, np.float64(step)), k, base)


@_meta_after
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    _require_cpu(device)
    return _finish((base ** linspace(start, end, steps, dtype=_dtype.float64)._data).astype(_dt(dtype)),
                   requires_grad)


@takes_out("eye")
@_meta_after
def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None):
    """Identity matrix n x m (float32)."""
    _require_cpu(device)
    return _finish(np.eye(n, n if m is None else m, dtype=_dt(dtype, "eye")), requires_grad)


def _tri_indices(name, np_fn, row, col, offset, dtype, device):
    _require_cpu(device)
    dt = _dtype.int64 if dtype is None else _dtype.to_dtype(dtype)
    if dt not in (_dtype.int64, _dtype.int32):
        raise NotImplementedError("\"%s\" not implemented for '%s'. Fix: dtype=torch.long "
                                  "(or torch.int32)" % (name, _errors.type_name(dt)))
    for what, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError("%s must be non-negative, got%d. Fix: a size >= 0" % (what, v))
    r, c = np_fn(row, offset, col)
    return Tensor._make_plain(np.stack([r, c]).astype(dt.np).reshape(2, -1))


def tril_indices(row, col, offset=0, *, dtype=None, device=None):
    """The (2, N) row and column indices of the lower triangle of a row x col matrix (on
    and below diagonal ``offset``), row-major; int64, or int32 with ``dtype``.

    Raises:
        RuntimeError: a negative size. NotImplementedError: a dtype other than int64/int32.
    """
    return _tri_indices("tril_indices", np.tril_indices, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None):
    """The (2, N) indices of the upper triangle (on and above diagonal ``offset``), as
    ``tril_indices``."""
    return _tri_indices("triu_indices", np.triu_indices, row, col, offset, dtype, device)


# The generator and the random factories live in _random / _random_ops (PyTorch's
# streams), above this module: they use _finish/_size/_require_cpu from here.


def _legacy_new(cls, *args, dtype=None, requires_grad=False, device=None):
    """``Tensor(2, 3)`` is a 2x3 tensor of zeros, ``Tensor([1, 2])`` float32 data (the
    default dtype); ``cls`` is the class called (a subclass gets an instance of itself)."""
    if dtype is None:
        dtype = _dtype.get_default_dtype()
    if args and all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        arr = np.zeros(args, dtype=dtype.np)
    elif len(args) == 1 and isinstance(args[0], Size):
        arr = np.zeros(tuple(args[0]), dtype=dtype.np)
    else:
        arr = _as_array(args[0] if args else [], dtype)
    self = object.__new__(cls)
    self._data = arr
    self._requires_grad = False
    self._grad = self._grad_fn = self._acc = self._hooks = self._post_hooks = None
    self._base = None
    self._output_nr = 0
    self._vc = None
    self._retains_grad = False
    if requires_grad:
        self.requires_grad_(True)
    return self


# Tensor(data) / Tensor(2, 3): PyTorch's legacy constructor converts like tensor() above
_tensor.use_legacy_new(_legacy_new)


_RANGE_DEPRECATED = (
    "torch.range is deprecated and will be removed in a future release because its behavior "
    "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
    "values in [start, end).")


def _range(start, end, step=1, *, dtype=None, device=None, requires_grad=False, layout=None):
    """Values in [start, end] (end included) by ``step``, in the default dtype unless
    ``dtype`` is given (even for integer arguments); warns (UserWarning) that it is
    deprecated, as PyTorch does.

    As PyTorch's ``range_out`` (RangeFactories.cpp): the arguments are converted to the
    accumulation type (int64 for integer dtypes, double otherwise), the length is
    ``trunc((end - start) / step) + 1`` and element i is ``start + i * step``.

    Raises:
        RuntimeError: for step 0 or a step whose sign does not lead from start to end.
    """
    import math
    import warnings
    warnings.warn(_RANGE_DEPRECATED, UserWarning, stacklevel=3)   # past takes_out
    _require_cpu(device)
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    dtype = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    integer = dtype.np.kind in "iu"
    xs, xe, xst = (int(v) for v in vals) if integer else (float(v) for v in vals)
    if xst == 0:
        raise RuntimeError("step must be nonzero")
    if (xst > 0 and xe < xs) or (xst < 0 and xe > xs):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if integer:
        q = abs(xe - xs) // abs(xst)            # C++ integer division truncates
        n = q + 1
        arr = xs + np.arange(n, dtype=np.int64) * xst
    else:
        n = int(math.trunc((xe - xs) / xst)) + 1
        arr = xs + np.arange(n, dtype=np.float64) * xst
    return _finish(arr.astype(dtype.np), requires_grad)


_range.__name__ = _range.__qualname__ = "range"     # torch.range (not Python's range here)
torch_range = takes_out("range")(_range)
