"""PyTorch's indexing rule, in one place: a key as PyTorch reads it (``x[key]``,
``x[key] = v``, ``index_put_``), turned into two NumPy steps.

PyTorch applies a key left to right (torch/csrc/autograd/python_variable_indexing.cpp,
``applySlicing``): an int (or a 0-d integer tensor) selects and its dim goes, a slice
slices (steps must be positive), None inserts a dim, ``...`` stands for the dims no other
entry takes, a Python bool (or 0-d bool tensor) inserts a dim indexed by ``[0]`` (True) or
``[]`` (False). That much is a view. The tensor and list entries met on the way are then
applied together to that view (``at::index``), each at the view dim where it was met.

NumPy's rule for a key of arrays and whole slices only is PyTorch's ``at::index`` rule
(index dims replace the indexed dims in place when the indexed dims are adjacent, else go
first; bool masks stand for their ``nonzero()``), so ``Index`` keeps the two steps apart:
``basic`` (a NumPy basic key: the view) and ``adv`` (arrays and whole slices over the
view's dims, or None). In one NumPy key the ints would count as arrays, which moves the
index dims elsewhere (``arange(24.).reshape(2, 3, 4)[0, :, [1, 2]]`` is (3, 2) in PyTorch).
"""

import numpy as np

from ..._core import errors as _errors
from ..._tensor.meta import MetaArray

_INTP = np.dtype(np.intp)
_ALL = slice(None)
_INDEX_TYPES = (int, np.integer)


def _is_sequence(k):
    """PyTorch's ``PySequence_Check`` for an index entry: range, deque, any object with
    ``__len__`` and ``__getitem__`` other than a dict or text (lists/tuples are tested first)."""
    return (isinstance(k, range) or (hasattr(k, "__getitem__") and hasattr(k, "__len__")
            and not isinstance(k, (dict, str, bytes, bytearray))))


class Index:
    """A parsed key: ``arr[basic][adv]`` is ``x[key]`` in PyTorch's placement.

    ``basic`` always ends in ``...`` so that it gives a view, also for a 0-d result;
    ``adv`` is None when the key has no tensor/list entries (the result is a view).
    ``node`` is the name of PyTorch's backward node for a basic key. ``empty``: the shape
    of a result without elements whose index NumPy would refuse (out of range where
    PyTorch reads nothing); such an Index reads zeros of that shape and writes nothing.
    ``sliced``: PyTorch's setitem takes a view first (an int, None, a bool, a slice that is
    not the whole dim): its in-place write is then recorded as CopySlices. ``one_mask``:
    the only tensor index is one boolean mask (PyTorch's index_put_ then masked-fills a
    one-element value, casting it).
    """

    __slots__ = ("basic", "adv", "node", "empty", "sliced", "one_mask")

    def __init__(self, basic, adv, node="IndexBackward0", empty=None, sliced=True,
                 one_mask=False):
        self.basic, self.adv, self.node, self.empty = basic, adv, node, empty
        self.sliced, self.one_mask = sliced, one_mask

    @property
    def is_view(self):
        return self.adv is None

    def get(self, arr):
        """``arr[key]``: a view for a basic key, a new array otherwise."""
        if self.empty is not None:
            return np.zeros(self.empty, arr.dtype)
        v = arr[self.basic]
        return v if self.adv is None else v[self.adv]

    def set(self, arr, value):
        """``arr[key] = value`` in place (NumPy broadcasting and casting)."""
        if self.empty is not None:
            np.broadcast_to(np.reshape(value, lead1_stripped(np.shape(value), self.empty)),
                            self.empty)      # the value must still fit
        elif self.adv is None:
            arr[self.basic] = value
        else:
            arr[self.basic][self.adv] = value

    def add_at(self, arr, value):
        """``arr[key] += value`` in place, repeated indices adding up."""
        if self.empty is not None:
            np.broadcast_to(np.reshape(value, lead1_stripped(np.shape(value), self.empty)),
                            self.empty)
        elif self.adv is None:
            arr[self.basic] += value
        else:
            np.add.at(arr[self.basic], self.adv, value)

    def written(self, shape):
        """A bool array of ``shape``: True where ``x[key] = v`` writes."""
        m = np.zeros(shape, bool)
        self.set(m, True)
        return m


def lead1_stripped(vshape, target):
    """A value's shape less the leading size-1 dims it has beyond ``target``'s (PyTorch's
    setitem drops them, as NumPy's assignment does)."""
    vshape = tuple(vshape)
    while len(vshape) > len(target) and vshape[0] == 1:
        vshape = vshape[1:]
    return vshape


def of_arrays(arrays):
    """The Index of a key made of int arrays only (one per leading dim)."""
    return Index((Ellipsis,), tuple(arrays))


def _warn_sequence():
    _errors.warn(
        "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
        "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will "
        "be interpreted as tensor index, x[torch.tensor(seq)], which will result either in an "
        "error or a different result", UserWarning)


def _as_tuple(key, Tensor):
    """PyTorch's ``treatSequenceAsTuple``: a list with a tensor, list, slice, ``...`` or
    None in it (and fewer than 32 entries) is a tuple of indices, else one index."""
    if type(key) is tuple:
        return key
    if (isinstance(key, list) or (not isinstance(key, (Tensor, np.ndarray, tuple))
                                  and _is_sequence(key))) and len(key) < 32 and any(
            e is None or e is Ellipsis or isinstance(e, (Tensor, list, tuple, slice, np.ndarray))
            or _is_sequence(e) for e in key):
        _warn_sequence()
        return tuple(key)
    return (key,)


def _seq_array(seq, Tensor):
    """A list as an index array, as PyTorch's ``indexing_tensor_from_data``: all bools ->
    a bool mask, else int64 (floats are truncated; an empty list is int64)."""
    def plain(e):
        if isinstance(e, Tensor):
            return e.item()
        if isinstance(e, (list, tuple)) or _is_sequence(e):
            return [plain(v) for v in e]
        return e
    a = np.asarray(plain(seq))
    if a.dtype == np.bool_:
        return a
    if a.size == 0 or a.dtype.kind == "f":
        return a.astype(np.int64)
    if a.dtype.kind not in "iu":
        raise IndexError(_errors.index_type(type(seq).__name__))
    return a


def _entry(k, Tensor):
    """One key entry as (kind, value, dims it takes); an entry PyTorch refuses is
    ("bad", its error, 1): PyTorch raises it only when it reaches it, left to right."""
    try:
        return _entry_kind(k, Tensor)
    except (IndexError, TypeError) as e:
        return "bad", e, 1


def _entry_kind(k, Tensor):
    if k is None:
        return "new", None, 0
    if k is Ellipsis:
        return "ell", None, 0
    if isinstance(k, (bool, np.bool_)):
        return "bool", bool(k), 0
    if isinstance(k, _INDEX_TYPES):
        return "int", int(k), 1
    if type(k) is slice:
        return "slice", k, 1
    if isinstance(k, Tensor):
        a = k._data
    elif isinstance(k, (list, tuple)):
        a = _seq_array(k, Tensor)
    elif isinstance(k, np.ndarray):
        a = k
    else:
        if hasattr(k, "__index__") and not isinstance(k, float):
            return "int", k.__index__(), 1
        if isinstance(k, (str, bytes)):      # PyTorch tries to build a tensor from it
            name = type(k).__name__
            raise TypeError("new(): invalid data type '%s'. " % name + _errors.index_type(name))
        if _is_sequence(k):         # range, deque, ...: a tensor built from its items
            return _entry_kind(list(k), Tensor)
        raise IndexError(_errors.index_type(type(k).__name__))
    kind = a.dtype.kind
    if kind not in "biu":
        # refused by the at::index stage, after the basic entries (a 0-d one at once)
        if a.ndim == 0:
            raise IndexError(_errors.index_tensor_dtype())
        return "float", a, 1
    if a.dtype == np.uint8 or kind == "b":
        if kind == "u" and a.dtype == np.uint8:
            _errors.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                         "dtype torch.bool instead.", UserWarning)
        if a.ndim == 0:
            return "bool", bool(a), 0
        return "mask", a.astype(bool, copy=False), a.ndim
    if a.ndim == 0:
        return "int", int(a), 1
    return "arr", a, 1


def _slice(k):
    step = k.step
    if step is not None:
        step = step.__index__()
        if step == 0:
            raise ValueError("slice step cannot be zero")
        if step < 0:
            raise ValueError(_errors.negative_step(step))
    return k


def _check_arrays(shape, basic, adv, checks, masks, value_check=None):
    """Check the index arrays as PyTorch's ``at::index`` does, after the basic entries:
    masks fit the dims they index, the arrays broadcast together, and they lie in range
    where the result has elements (PyTorch reads only those: an out-of-range index that
    selects nothing passes). Returns None, or the shape of such an empty result (NumPy
    would refuse the index, so the Index then reads and writes nothing itself).
    ``value_check(result_shape, one_mask)``: setitem's checks of the value, which
    PyTorch's index_put_ makes before the indices' range (a RuntimeError first)."""
    if any(a.dtype.kind not in "biu" for a in adv.values()):
        raise IndexError(_errors.index_tensor_dtype())
    for m, src, at in masks:
        part = tuple(shape[src:src + m.ndim])
        if m.shape != part:
            bad = next(i for i, (a, b) in enumerate(zip(m.shape, part)) if a != b)
            raise IndexError(_errors.mask_shape(m.shape, shape, bad, src + bad))
    shapes = [(int(np.count_nonzero(a)),) if a.dtype == np.bool_ else a.shape
              for a in adv.values()]
    try:
        bshape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError(_errors.index_broadcast(shapes)) from None
    if not int(np.prod(bshape)):
        bad = None
        checks = ()
    else:
        # PyTorch refuses any index into a size-0 dim once the indices select something
        for a, dim, n, at in checks:
            if not n:
                raise IndexError(_errors.index_range(int(a.flat[0]), dim, n))
    bad = None
    for a, dim, n, at in checks:
        if a.size and a.__class__ is not MetaArray:     # meta indices: no values to check
            lo, hi = a.min(), a.max()
            if lo < -n or hi >= n:
                bad = int(lo if lo < -n else hi), dim, n
                break
    if bad is None:
        return None
    out = _result_shape(shape, basic, adv, bshape)
    if int(np.prod(out)):
        if value_check is not None:
            value_check(out, len(adv) == 1 and len(masks) == 1)
        raise IndexError(_errors.index_range(*bad))
    return out


def _result_shape(shape, basic, adv, bshape):
    """The shape of ``x[key]`` (NumPy's placement rule), from a zero-stride probe."""
    vshape = np.broadcast_to(np.zeros((), np.int8), shape)[basic].shape
    covered = []
    for at in sorted(adv):
        a = adv[at]
        covered.extend(range(at, at + (a.ndim if a.dtype == np.bool_ else 1)))
    rest = [n for i, n in enumerate(vshape) if i not in covered]
    if covered == list(range(covered[0], covered[-1] + 1)):
        return vshape[:covered[0]] + tuple(bshape) + vshape[covered[-1] + 1:]
    return tuple(bshape) + tuple(rest)


def _whole(k, n):
    """PyTorch skips a slice (no SliceBackward0) when its raw start is 0 or None, its step
    1 and its stop at least the size (``x[-3:]`` of a size-3 dim is still a slice)."""
    return ((k.start is None or k.start.__index__() == 0) and k.step in (None, 1)
            and (k.stop is None or k.stop.__index__() >= n))


def parse(shape, key, Tensor, value_check=None):
    """``key`` as PyTorch reads it for a tensor of ``shape``: an :class:`Index`.

    Raises:
        IndexError: an entry of a type PyTorch refuses, a float tensor, too many
            indices, an index out of range, a mask whose shape does not match; the
            messages start as PyTorch's.
        ValueError: a slice step that is zero or negative (as PyTorch).
    """
    ndim = len(shape)
    if isinstance(key, _INDEX_TYPES) and not isinstance(key, (bool, np.bool_)):
        # x[i], the most common key
        if ndim == 0:
            raise IndexError(_errors.index_0d())
        n = shape[0]
        if not -n <= key < n:
            raise IndexError(_errors.index_range(key, 0, n))
        return Index((int(key), Ellipsis), None, "SelectBackward0")
    if type(key) is slice:      # PyTorch checks a bare slice's step before the dims
        _slice(key)
    entries = [_entry(k, Tensor) for k in _as_tuple(key, Tensor)]
    taken = sum(d for _, _, d in entries)
    if taken > ndim:
        if ndim == 0 and any(kind == "int" for kind, _, _ in entries):
            raise IndexError(_errors.index_0d())
        raise IndexError(_errors.too_many_indices(ndim))
    basic = []
    checks = []         # (index array, dim of x, its size, view dim): checked at the end
    masks = []          # (mask, dim of x, view dim): checked at the end
    adv = {}            # view dim -> array
    src = res = 0       # the dim of x, and of the view, the next entry applies to
    node = "AliasBackward0"
    sliced = False
    for kind, v, d in entries:
        if (d and src + d > ndim) or (src > ndim and kind != "ell"):
            # PyTorch lets every ``...`` span the dims no other entry takes, so a second
            # one runs past the last dim: harmless at the end of a key, an error before more
            raise IndexError(_errors.too_many_indices(ndim))
        if kind == "bad":
            raise v
        if kind == "int":
            n = shape[src]
            if not -n <= v < n:
                raise IndexError(_errors.index_range(v, src, n))
            basic.append(v)
            src += 1
            node = "SelectBackward0"
        elif kind == "slice":
            basic.append(_slice(v))
            if not _whole(v, shape[src]):
                node = "SliceBackward0"
            src += 1
            res += 1
        elif kind == "new":
            basic.append(None)
            res += 1
            node = "UnsqueezeBackward0"
        elif kind == "ell":
            n = ndim - taken
            basic.extend([_ALL] * max(0, min(n, ndim - src)))
            src += n
            res += n
        elif kind == "bool":
            sliced = True          # PyTorch: unsqueeze, then a tensor index
            basic.append(None)
            adv[res] = np.zeros(1 if v else 0, _INTP)
            res += 1
        elif kind == "float":
            basic.append(_ALL)
            adv[res] = v
            src += 1
            res += 1
        elif kind == "arr":
            checks.append((v, src, shape[src], res))
            basic.append(_ALL)
            adv[res] = v
            src += 1
            res += 1
        else:   # mask
            masks.append((v, src, res))
            basic.extend([_ALL] * d)
            adv[res] = v
            src += d
            res += d
    basic.append(Ellipsis)
    sliced = sliced or node != "AliasBackward0"
    if not adv:
        if type(key) is slice:
            node = "SliceBackward0"     # PyTorch records a bare slice even when whole
        return Index(tuple(basic), None, node, sliced=sliced)
    empty = _check_arrays(shape, tuple(basic), adv, checks, masks, value_check)
    return Index(tuple(basic), _advanced_key(adv), empty=empty, sliced=sliced,
                 one_mask=len(adv) == 1 and len(masks) == 1)


def _advanced_key(adv):
    """The NumPy key applied to the view: ``adv`` (view dim -> index array or
    mask) with ``:`` for the dims between, each mask as its nonzero()."""
    last = max(adv) + 1
    key = []
    i = 0
    while i < last:
        a = adv.get(i)
        if a is None:
            key.append(_ALL)
            i += 1
        elif a.dtype == np.bool_:
            # a mask is its nonzero() (as in PyTorch and NumPy); NumPy's own masked
            # assignment refuses values of 2 or more dims that broadcast
            key.extend(np.nonzero(a))
            i += a.ndim
        else:
            key.append(a)
            i += 1
    return tuple(key)
