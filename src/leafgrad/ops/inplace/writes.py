"""In-place writes: ``fill_``, ``zero_``, ``copy_``, ``index_put_`` (``x[i] = v``) and the
in-place forms of the pointwise and indexing ops (``addcmul_``, ``index_add_``,
``scatter_``, ``masked_fill_``, ...), each through the shared machinery of
``ops/inplace/arithmetic.py`` (version bump, leaf and view checks, recording).
"""

import numpy as np

from ..._core import errors as _errors, scalars as _scalars
from ..._tensor.tensor import Tensor
from ...autograd.grad_mode import mode
from ...autograd.graph import Node
from .._dispatch import record, to_tensor
from .._registry import node
from .._select import select
from .arithmetic import (PLAIN, CopySlices, _check_inference, _enter_view, _fw_dual, _value_grad,
                         apply)


def _fill_backward(ctx, g):
    # zeros_like(grad), not g * 0: an inf/nan g still gives 0 (PyTorch)
    return (select(False, g),) if ctx.needs_input_grad[0] else (None,)


def _fill_value_backward(ctx, g):
    # fill_(Tensor): zeros for self, grad.sum() for the 0-d value (derivatives.yaml)
    ns, nv = ctx.needs_input_grad
    return (select(False, g) if ns else None), (g.sum() if nv else None)


# PyTorch's names: fill_.Scalar is FillBackward2, fill_.Tensor FillBackward3
FillBackward2 = node("FillBackward2", _fill_backward, saves=False)
FillBackward3 = node("FillBackward3", _fill_value_backward, saves=False)


ZeroBackward0 = node("ZeroBackward0", _fill_backward, saves=False)


def _filled(a, value, cls=FillBackward2):
    if isinstance(value, Tensor):
        if cls is FillBackward2:
            return record(FillBackward3, np.full(a._data.shape, value._data, a._data.dtype),
                          (a, value))
        return record(cls, np.full(a._data.shape, value._data, a._data.dtype), (a,))
    return record(cls, np.full(a._data.shape, value, a._data.dtype), (a,))


def fill_(self, value, _name="fill_"):
    """Set every element to ``value``.

    Raises:
        OverflowError: an int beyond 64 bits; RuntimeError: a number the dtype cannot
        hold (300 into int8), as PyTorch.
    """
    _check_inference(self)
    if not isinstance(value, Tensor):
        value = _scalars.check_scalar_write(value, self._data.dtype)
    if self._base is not None and mode.enabled:
        _enter_view(self, value)
    if (not mode.enabled or not self._requires_grad) and not _fw_dual(self, value):
        if isinstance(value, Tensor) and value._data.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               "with %d dimensions." % value._data.ndim)
        dst = self._data
        if not dst.flags.writeable:
            if _errors.read_only_memory(dst):
                raise _errors.write_refused(dst)
            # an expanded view (stride 0): PyTorch fills its memory, each element once
            dst = dst.view()
            dst.flags.writeable = True
        dst[...] = value._data if isinstance(value, Tensor) else value
        self._bump_version()
        return self
    if _name == "zero_":
        return apply(self, "zero_", lambda a, v: _filled(a, v, ZeroBackward0), value)
    return apply(self, "fill_", _filled, value)


def zero_(self):
    """Set every element to 0 (used by ``optimizer.zero_grad(set_to_none=False)``)."""
    return fill_(self, 0, "zero_")


class CopyBackwards(Node):
    """Node of ``x.copy_(src)`` on a tensor in the graph (PyTorch's ``CopyBackwards``):
    zeros for the old value (selected, not ``g * 0``: an inf/nan upstream gradient
    must not leak into it), ``g`` for ``src`` (the engine casts it to src's dtype and
    sums it to src's shape when src was broadcast)."""

    __slots__ = ()
    saves = False

    def backward(ctx, g):
        ns, nv = ctx.needs_input_grad
        return (Tensor._make_plain(np.zeros_like(g._data)) if ns else None), (g if nv else None)


def _copy(a, src):
    """``src`` cast to a's dtype and broadcast to a's shape, recorded as CopyBackwards
    (the result never depends on a's old value, so NaN/inf there cannot leak)."""
    src = to_tensor(src)
    s = src._data
    if s.shape != a._data.shape:
        try:
            fits = np.broadcast_shapes(a._data.shape, s.shape) == a._data.shape
        except ValueError:
            fits = False
        if not fits:
            raise _errors.copy_shape(a._data.shape, s.shape)
    out = np.empty_like(a._data)
    np.copyto(out, np.broadcast_to(s, out.shape), casting="unsafe")
    return record(CopyBackwards, out, (a, src))


def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast, cast to self's dtype) into self."""
    _check_inference(self)
    if self._base is not None and mode.enabled:
        _enter_view(self, src)
    if (not mode.enabled or not (self._requires_grad or getattr(src, "_requires_grad", False))) \
            and not _fw_dual(self, src):
        s = src._data if isinstance(src, Tensor) else np.asarray(src)
        if not self._data.flags.writeable and self._data.size:
            raise _errors.write_refused(self._data)
        try:
            np.copyto(self._data, np.broadcast_to(s, self._data.shape), casting="unsafe")
        except ValueError:
            raise _errors.copy_shape(self._data.shape, np.shape(s)) from None
        self._bump_version()
        return self
    return apply(self, "copy_", _copy, src)


class _IndexPut(CopySlices):
    """``x[mask] = v`` / ``x[idx] = v``: PyTorch's ``index_put_``, named so."""

    __slots__ = ()

    def name(self):
        return "IndexPutBackward0"


_IndexPut.__name__ = _IndexPut.__qualname__ = "IndexPutBackward0"


class _FillSet(CopySlices):
    """``x[...] = number`` (a key that takes no view): PyTorch's ``fill_`` on x itself."""

    __slots__ = ()

    def name(self):
        return "FillBackward3"


class _CopySet(CopySlices):
    """``x[:] = t`` (a key that takes no view): PyTorch's ``copy_`` on x itself."""

    __slots__ = ()

    def name(self):
        return "CopyBackwards"


_FillSet.__name__ = _FillSet.__qualname__ = "FillBackward3"
_CopySet.__name__ = _CopySet.__qualname__ = "CopyBackwards"


def _set_node(idx, shape, vshape):
    """PyTorch's node for ``x[key] = v`` (torch/csrc/autograd/python_variable_indexing.cpp,
    at::indexing::set_item): a key that takes a view writes into it (CopySlices); else
    index_put_ for tensor indices, copy_ for a value of x's shape or of more dims than 0,
    fill_ for a 0-d value."""
    if idx.sliced:
        return CopySlices
    if idx.adv is not None:
        return _IndexPut
    return _CopySet if vshape == shape or len(vshape) else _FillSet


def _setitem_error(arr, idx, v):
    return _errors.setitem_shape(idx.get(arr).shape, np.shape(v), idx.adv is not None)


def _put(arr, idx, v, accumulate):
    """``arr[idx] = v`` (or ``+=`` with repeats adding up) in place; PyTorch's errors."""
    if not arr.flags.writeable and idx.get(arr).size:
        # an expanded tensor: elements share memory (PyTorch refuses the write too), or
        # a read-only buffer's memory
        raise _errors.write_refused(arr)
    try:
        if accumulate:
            idx.add_at(arr, v)
        else:
            idx.set(arr, v)
    except ValueError:
        raise _setitem_error(arr, idx, v) from None


def _index_put(a, idx, value):
    out = a._data.copy()
    v = value._data if isinstance(value, Tensor) else value
    _put(out, idx, v, False)
    vt = value if isinstance(value, Tensor) else None
    return record(_set_node(idx, out.shape, np.shape(v)), out, (a, vt),
                  args=(idx, tuple(np.shape(v))))


class _IndexPutAcc(Node):
    """``index_put_(..., accumulate=True)``: g for self, ``g[key]`` (summed to the
    value's shape) for the values."""

    __slots__ = ()
    saves = False

    def backward(ctx, g):
        key, vshape = ctx.args
        ns, nv = ctx.needs_input_grad
        gv = None
        if nv:
            gv = _value_grad(PLAIN.getitem(g, key), vshape)
        return (g if ns else None), gv


_IndexPutAcc.__name__ = _IndexPutAcc.__qualname__ = "IndexPutBackward0"


def _index_put_acc(a, idx, value):
    out = a._data.copy()
    v = value._data if isinstance(value, Tensor) else value
    _put(out, idx, v, True)
    vt = value if isinstance(value, Tensor) else None
    return record(_IndexPutAcc, out, (a, vt), args=(idx, tuple(np.shape(v))))


def _put_dtype_differs(self, key, value, one_mask):
    """PyTorch: a tensor/list index goes through index_put_, which does not cast (a
    one-element value under one boolean mask is masked_fill_, which does; a bare True is a
    copy into self.unsqueeze(0), which does too)."""
    return isinstance(value, Tensor) and value._data.dtype != self._data.dtype and \
        key is not True and not (one_mask and value._data.size == 1)


def index_put_(self, key, value, accumulate=False):
    """``self[key] = value`` (PyTorch's indexing rule, ``ops/shape/_index_rule.py``); with
    ``accumulate``, ``self[key] += value`` where repeated indices add up (``np.add.at``;
    gradient ``g`` for self and ``g[key]`` for the values). ``self[False] = v`` changes
    nothing and leaves the version alone, as PyTorch.

    Raises:
        IndexError/ValueError: a key PyTorch refuses (see ``indexing.getitem``);
        ValueError: an int beyond int64; RuntimeError: a number the dtype cannot hold,
        a value that does not broadcast to ``self[key]``.
    """
    from ..shape._index_rule import Index, lead1_stripped, parse
    _check_inference(self)
    if not isinstance(value, Tensor):
        # PyTorch makes the value a tensor first: its errors come before the key's
        value = _scalars.setitem_value(value, self._data.dtype)
    if key is False:
        return self

    def value_check(target, one_mask):
        # PyTorch's index_put_ order: the value's shape, its dtype, then the indices' range
        vshape = np.shape(value._data if isinstance(value, Tensor) else value)
        try:
            fits = np.broadcast_shapes(lead1_stripped(vshape, target), target) == tuple(target)
        except ValueError:
            fits = False
        if not fits:
            raise _errors.setitem_shape(target, vshape, True)
        if _put_dtype_differs(self, key, value, one_mask):
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got %s for the "
                "destination and %s for the source. Fix: convert the value first, e.g. "
                "x[idx] = value.to(x.dtype)." % (_errors.type_name(self.dtype),
                                                  _errors.type_name(value.dtype)))

    idx = key if type(key) is Index else parse(self._data.shape, key, Tensor, value_check)
    if idx.one_mask and isinstance(value, Tensor) and value._data.size == 1 and \
            value._data.dtype != self._data.dtype:
        # PyTorch's masked_fill_(mask, value.item()): the number's overflow check
        _scalars.check_scalar_write(value._data.reshape(()).item(), self._data.dtype)
    if idx.adv is not None and _put_dtype_differs(self, key, value, idx.one_mask):
        # the target's shape from a zero-stride probe (no copy of self)
        value_check(idx.get(np.broadcast_to(np.zeros((), np.int8), self._data.shape)).shape,
                    idx.one_mask)
    if self._base is not None and mode.enabled:
        _enter_view(self, value)
    if (not mode.enabled or not (self._requires_grad or getattr(value, "_requires_grad", False))) \
            and not _fw_dual(self, value):
        _put(self._data, idx, value._data if isinstance(value, Tensor) else value, accumulate)
        self._bump_version()
        return self
    return apply(self, "__setitem__" if not accumulate else "index_put_",
                 _index_put_acc if accumulate else _index_put, idx, value)


def addcmul_(self, tensor1, tensor2, *deprecated, value=1):
    """In-place ``addcmul``; returns self. PyTorch's deprecated ``addcmul_(value, t1, t2)``
    works, with its warning."""
    if deprecated and len(deprecated) == 1 and isinstance(tensor1, (int, float, complex)):
        _errors.deprecated_overload(
            "addcmul_(Number value, Tensor tensor1, Tensor tensor2)",
            "addcmul_(Tensor tensor1, Tensor tensor2, *, Number value = 1)")
        value, tensor1, tensor2 = tensor1, tensor2, deprecated[0]
    elif deprecated:
        raise TypeError("addcmul_() takes 2 positional arguments but %d were given. Fix: "
                        "t.addcmul_(tensor1, tensor2, value=v)" % (2 + len(deprecated)))
    return apply(self, "addcmul_", lambda a, t1, t2: PLAIN.addcmul(a, t1, t2, value=value),
                 tensor1, tensor2)


def addcdiv_(self, tensor1, tensor2, *, value=1):
    """In-place ``addcdiv``; returns self."""
    return apply(self, "addcdiv_", lambda a, t1, t2: PLAIN.addcdiv(a, t1, t2, value=value),
                 tensor1, tensor2)


def index_add_(self, dim, index, source, *, alpha=1):
    """In-place ``index_add``; returns self."""
    return apply(self, "index_add_", lambda a, s: PLAIN.index_add(a, dim, index, s, alpha=alpha),
                 source)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    """In-place ``scatter`` (see ``indexed_writes.scatter``); returns self."""
    if src is None:
        src = value
    if isinstance(src, Tensor):
        return apply(self, "scatter_",
                     lambda a, s: PLAIN.scatter(a, dim, index, s, reduce=reduce), src)
    return apply(self, "scatter_", lambda a: PLAIN.scatter(a, dim, index, src, reduce=reduce))


def scatter_add_(self, dim, index, src):
    """In-place ``scatter_add``; returns self."""
    return apply(self, "scatter_add_", lambda a, s: PLAIN.scatter_add(a, dim, index, s), src)


def masked_fill_(self, mask, value):
    return apply(self, "masked_fill_", lambda a, v: PLAIN.masked_fill(a, mask, v), value)
