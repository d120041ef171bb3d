"""The in-place machinery (``apply``: version bump, leaf and view checks, recording) and
the in-place arithmetic (``add_``, ``mul_``, ``+=``, ``exp_``, ``clamp_``, ...).
``fill_``, ``copy_``, ``x[i] = v`` and the in-place indexing ops: ``ops/inplace/writes.py``.

PyTorch's semantics:

* on a leaf that requires grad (or a view of one) they raise, unless grad
  mode is off (``with torch.no_grad():`` is how parameters are updated);
* on a tensor in a graph they are recorded: the tensor gets the in-place
  op's node as its new ``grad_fn`` (the old value is kept for backward);
* every in-place change bumps the version counter shared with views, so a
  node that saved the tensor detects the change at backward time.

The result keeps the tensor's dtype; a result that cannot be cast to it
(float into an integer tensor) raises, as in PyTorch.
"""
import numpy as np

from ...autograd._batching_state import Unbatchable as _Unbatchable, depth as _batching
from ..._core import dtype as _dtype, errors as _errors, scalars as _scalars
from ..._tensor import tensor as _tensor
from ..._tensor.tensor import InferenceTensor, Tensor
from ...autograd.grad_mode import mode
from .._dispatch import _fw_level, record
from ..shape._index_rule import Index, of_arrays
from ...autograd.graph import Node

from ..._core.quiet import quiet as _quiet


def _check_inference(self):
    if type(self) is InferenceTensor and not mode.inference:
        raise RuntimeError(_errors.inference_inplace())
    if _batching[0]:        # a batched vmap run: the per-sample loop takes over (no write)
        raise _Unbatchable()


def _check_leaf(self, name):
    if self._requires_grad and self._grad_fn is None:
        raise _errors.inplace_leaf(name)
    base = self._base
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise _errors.InplaceLeafError(
            "a view of a leaf Variable that requires grad is being used in an in-place "
            "operation (%s). Fix: do it inside `with torch.no_grad():`, or work on a "
            ".clone() of the leaf." % name)


def _cast_error(src, dst):
    return RuntimeError(
        "result type %s can't be cast to the desired output type %s: an in-place op keeps the "
        "tensor's dtype. Fix: convert first (x = x.float()) or use the out-of-place op."
        % (_errors.type_name(np.dtype(src).name), _errors.type_name(np.dtype(dst).name)))


_OVERLAP = _errors.OVERLAP


def _write(self, arr):
    """Store ``arr`` into self's memory (views of self see it) and bump the version."""
    dst = self._data
    if arr.shape != dst.shape:
        try:
            arr = np.broadcast_to(arr, dst.shape)
        except ValueError:
            raise RuntimeError(
                "output with shape %s doesn't match the broadcast shape %s: an in-place op "
                "cannot change the tensor's shape. Fix: use the out-of-place op."
                % (list(dst.shape), list(arr.shape))) from None
    if arr.dtype != dst.dtype and not np.can_cast(arr.dtype, dst.dtype, "same_kind"):
        raise _cast_error(arr.dtype, dst.dtype)
    if not dst.flags.writeable:
        # an expanded/broadcast view (PyTorch refuses too) or a read-only buffer
        raise _errors.write_refused(dst)
    np.copyto(dst, arr, casting="unsafe")
    self._bump_version()


def _fw_dual(*tensors):
    """Forward AD is active and one of ``tensors`` has a tangent (the in-place fast
    paths then take the recorded path, which computes tangents)."""
    lv = _fw_level[0]
    return lv is not None and lv.any_dual([t for t in tensors if isinstance(t, Tensor)])


def _fw_carry(src, dst):
    """Forward AD: ``dst``, overwritten in place by ``src``'s values, takes its tangent."""
    lv = _fw_level[0]
    if lv is not None:
        lv.carry(src, dst)


def _run_recorded(self, fn, others):
    """``fn`` on a recorded copy of self's value (the old value stays in the graph); the
    result is written into self and returned."""
    if self._grad_fn is not None:
        old = Tensor._make_nonleaf(self._data.copy(), self._grad_fn, self._output_nr)
    else:
        old = Tensor._make_plain(self._data.copy())
    if _fw_level[0] is not None:
        _fw_level[0].set(old, _fw_level[0].tangent(self))
    new = fn(old, *others)
    _write(self, new._data)
    _fw_carry(new, self)
    node = new._grad_fn
    if node is not None and node._out is not None:   # the saved result is now self
        node._out_version = (self._version_counter(), self._version)
    return new


def apply(self, name, fn, *others):
    """Run ``fn(self, *others)`` (an out-of-place leafgrad op) and store the
    result in ``self``; record it for autograd when needed."""
    _check_inference(self)
    if self._base is not None and mode.enabled:
        _enter_view(self, *others)
    if mode.enabled and (self._requires_grad or any(
            isinstance(o, Tensor) and o._requires_grad for o in others)):
        if self._base is not None:
            return _apply_on_view(self, name, fn, others)
        _check_leaf(self, name)
        new = _run_recorded(self, fn, others)
        if new._grad_fn is not None:
            self._grad_fn, self._output_nr = new._grad_fn, new._output_nr
            self._requires_grad = True
        return self
    prev = mode.enabled
    mode.enabled = False
    try:
        new = fn(self, *others)
    finally:
        mode.enabled = prev
    _write(self, new._data)
    _fw_carry(new, self)
    return self


_NO_GRAD_VIEW = (
    "A view was created in no_grad mode and %s with grad mode enabled. Given that this "
    "use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
    "moving both the view and the inplace either both inside the no_grad block (if you don't "
    "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")


def _view_key(view, base):
    """The elements of ``view`` as an ``Index`` (int arrays, one per base dim) into
    ``base``: found from the arrays' strides and data pointers, so any strided view
    (slice, select, view, t, permute, expand, diagonal, ...) of any strided base works.

    Raises:
        RuntimeError: where the view cannot be expressed as elements of its base.
    """
    b, d = base._data, view._data
    isz = b.itemsize

    def bounds(a):
        lo = hi = a.__array_interface__["data"][0]
        if a.size == 0:
            return lo, lo
        for n, st in zip(a.shape, a.strides):
            if st < 0:
                lo += (n - 1) * st
            else:
                hi += (n - 1) * st
        return lo, hi + a.itemsize

    lo, hi = bounds(b)
    vlo, vhi = bounds(d)
    if (d.dtype != b.dtype or any(st % isz for st in b.strides + d.strides)
            or (b.size and any(st == 0 and n > 1 for n, st in zip(b.shape, b.strides)))
            or (d.size and not (lo <= vlo and vhi <= hi and (vlo - lo) % isz == 0))):
        raise RuntimeError(
            "leafgrad cannot express this view (shape %s, strides %s) as elements of its base "
            "(shape %s, strides %s) to record an in-place operation on it. Fix: use the "
            "out-of-place op, or modify a .clone() of the view."
            % (list(d.shape), list(d.strides), list(b.shape), list(b.strides)))
    # pos: for each memory slot of the base, the base element stored there (C order)
    pos = np.full((hi - lo) // isz, -1, np.intp)
    w = pos.itemsize
    as_strided = np.lib.stride_tricks.as_strided
    start = (b.__array_interface__["data"][0] - lo) // isz
    as_strided(pos[start:], b.shape, tuple(st // isz * w for st in b.strides))[...] = \
        np.arange(b.size).reshape(b.shape)
    if d.size == 0:
        idx = np.zeros(d.shape, np.intp)
    else:
        idx = as_strided(pos[(d.__array_interface__["data"][0] - lo) // isz:], d.shape,
                         tuple(st // isz * w for st in d.strides)).copy()
        if (idx < 0).any():
            raise RuntimeError(
                "leafgrad cannot record an in-place operation on a view that covers memory "
                "outside its base's elements. Fix: use the out-of-place op, or modify a "
                ".clone() of the view.")
    if b.ndim == 0:     # every element of the view is the base's one element
        return Index((None, Ellipsis), (idx,))
    return of_arrays(np.unravel_index(idx, b.shape))


def _part_of_complex(view, base):
    """A real view (``real``, ``imag``, ``view_as_real``) of a complex base: its elements
    are those of the base's float view ``view_as_real(base)``."""
    return view._data.dtype != base._data.dtype and base._data.dtype.kind == "c"


def _float_base(base, recorded):
    """``view_as_real(base)``: recorded (for the graph) or plain (for ``_view_key``)."""
    from ..elementwise.complex import view_as_real
    if recorded:
        return view_as_real(base)
    return Tensor._make_plain(view_as_real(Tensor._make_plain(base._data))._data)


def _regenerate(view, base, key):
    """Give ``view`` a grad_fn that takes its elements from ``base``'s current graph."""
    prev = mode.enabled
    mode.enabled = True
    try:
        if _part_of_complex(view, base):
            base = _float_base(base, True)
        b = base._data
        r = record(PLAIN.AsStridedBackward0, view._data, (base,), args=(b.shape, key, b.dtype))
    finally:
        mode.enabled = prev
    view._grad_fn, view._output_nr, view._requires_grad = r._grad_fn, 0, r._requires_grad
    meta = view._vmeta
    meta[0], meta[2] = view._vc[0], base._grad_fn


def _refresh_view(view):
    """Called on a view whose version moved since its grad_fn was made: when the base or
    another view of it was changed in place, the view's grad_fn is regenerated as a view
    of the base's current graph (PyTorch does the same, lazily, as AsStridedBackward0)."""
    meta, base = view._vmeta, view._base
    if meta[0] == view._vc[0]:
        return
    if meta[1]:
        if base._grad_fn is not meta[2]:
            raise RuntimeError(_NO_GRAD_VIEW % "its base or another view of its base has "
                               "been modified inplace")
        meta[0] = view._vc[0]
        return
    if not base._requires_grad:
        meta[0] = view._vc[0]
        return
    if meta[3] is not None:
        raise RuntimeError(
            "Output %d of %s is a view and its base or another view of its base has been "
            "modified inplace. This view is the output of a function that returns multiple "
            "views. Such functions do not allow the output views to be modified inplace. You "
            "should replace the inplace operation by an out-of-place one. Fix: take the views "
            "(unbind/split/chunk) after the in-place change, or clone them first."
            % (view._output_nr, meta[3]))
    _regenerate(view, base, _view_key(view, _float_base(base, False)
                                      if _part_of_complex(view, base) else base))


def _enter_view(self, *others):
    """An in-place op with grad mode on, on a view: bring its grad_fn up to date; refuse
    a view made in no_grad mode when the op would be recorded (as PyTorch)."""
    _refresh_view(self)
    if self._vmeta[1] and (self._base._requires_grad or any(
            isinstance(o, Tensor) and o._requires_grad for o in others)):
        raise RuntimeError(_NO_GRAD_VIEW % "is being modified inplace")


def _apply_on_view(self, name, fn, others):
    """An in-place op on a view of ``base`` (PyTorch's rule): the op is recorded out of
    place on the view, the result is written into the view's memory, the base gets a
    CopySlices node (the view's region from the result, the rest from its previous
    graph), and the view becomes a view of the base's new graph."""
    base = self._base
    meta = self._vmeta
    _check_leaf(self, name)
    if meta[3] is not None:
        raise RuntimeError(
            "Output %d of %s is a view and is being modified inplace. This view is the output "
            "of a function that returns multiple views. Such functions do not allow the output "
            "views to be modified inplace. You should replace the inplace operation by an "
            "out-of-place one." % (self._output_nr, meta[3]))
    if not self._data.flags.writeable:
        raise _errors.write_refused(self._data)
    part = _part_of_complex(self, base)
    key = _view_key(self, _float_base(base, False) if part else base)
    new = _run_recorded(self, fn, others)
    if new._grad_fn is None:
        return self
    if base._requires_grad:
        prev = Tensor._make_nonleaf(base._data, base._grad_fn, base._output_nr)
    else:
        prev = Tensor._make_plain(base._data)
    if part:    # the copy is made on the float view; the base is its complex view
        from ..elementwise.complex import view_as_complex
        prev = _float_base(prev, True)
        res = view_as_complex(record(CopySlices, prev._data, (prev, new),
                                     args=(key, tuple(new.shape))))
    else:
        res = record(CopySlices, base._data, (prev, new), args=(key, tuple(new.shape)))
    base._grad_fn, base._output_nr, base._requires_grad = res._grad_fn, 0, True
    _regenerate(self, base, key)
    return self


def _fits(shape, other_shape):
    """PyTorch's in-place shape rule: ``other`` broadcasts to ``shape`` without growing it."""
    try:
        full = np.broadcast_shapes(shape, other_shape)
    except ValueError:
        full = None
    if full != tuple(shape):
        raise RuntimeError(
            "output with shape %s doesn't match the broadcast shape %s: an in-place op "
            "cannot change the tensor's shape. Fix: use the out-of-place op."
            % (list(shape), list(full) if full is not None else list(other_shape)))


_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def _alpha_operand(self, other, alpha):
    """``alpha * other`` for ``self.add_/sub_(other, alpha=)``, after PyTorch's checks in
    its order: the shape, the common dtype's cast into ``self``, then alpha against the
    common dtype (``PLAIN.alpha_scaled``, which scales in that dtype)."""
    if isinstance(other, Tensor):
        _fits(self._data.shape, other._data.shape)
    common = _dtype.result_type(self, other).np
    if _RANK[common.kind] > _RANK[self._data.dtype.kind]:
        raise _cast_error(common, self._data.dtype)
    return PLAIN.alpha_scaled(self, other, alpha)


def _ufunc_into(np_fn, x, o):
    """``x = np_fn(x, o)`` in place, with PyTorch's casting rule: an integer result goes
    into any integer tensor (int64 into uint8 wraps; NumPy's same_kind refuses it), a
    float into a float one; anything else is PyTorch's RuntimeError."""
    with _quiet():
        try:
            np_fn(x, o, out=x, casting="same_kind")
        except (TypeError, getattr(getattr(np, "exceptions", None), "DTypePromotionError",
                                   TypeError)):
            res = np.result_type(x, o)
            if not (res.kind in "biu" and x.dtype.kind in "iu"):
                raise _cast_error(res if res != x.dtype else np.float32, x.dtype) from None
            np_fn(x, o, out=x, casting="unsafe")


def _arith(np_fn, name, fallback):
    """Fast in-place arithmetic when no graph is recorded (optimizer updates)."""
    def op(self, other, *, alpha=None):
        if type(self) is InferenceTensor or _batching[0]:
            _check_inference(self)
        if isinstance(other, tuple):
            raise TypeError("%s(): argument 'other' (position 1) must be Tensor, not tuple. %s"
                            % (name, _errors.grad_tuple_hint()))
        if alpha is not None:
            other = _alpha_operand(self, other, alpha)
        if self._base is not None and mode.enabled:
            _enter_view(self, other)
        if (mode.enabled and (self._requires_grad or (isinstance(other, Tensor)
                                                      and other._requires_grad))) or (
                _fw_level[0] is not None and _fw_dual(self, other)):
            return apply(self, name, fallback, other)
        x = self._data
        o = other._data if isinstance(other, Tensor) else other
        if type(o) is int and (x.dtype.kind in "iu" or not
                               _scalars.I64_MIN <= o <= _scalars.I64_MAX):
            o = _scalars.scalar_operand(o, x.dtype)     # int8 += 300 wraps, as PyTorch
        if not x.flags.writeable:
            return apply(self, name, fallback, other)
        try:
            _ufunc_into(np_fn, x, o)
        except ValueError:
            _fits(x.shape, np.shape(o))
            raise
        self._bump_version()
        return self
    op.__name__ = name
    return op


class _Ops:
    """The out-of-place ops the in-place forms run (``add_`` runs ``add``, ...) and the
    indexing pieces ``CopySlices`` uses. Their family modules import this one (to declare
    ``X_`` as ``X``'s in-place form), so they bind them here at import (``_bind_ops``)
    rather than this module importing them back."""


PLAIN = _Ops()


def _bind_ops(**fns):
    vars(PLAIN).update(fns)


def add_(self, other, *deprecated, alpha=None):
    if (deprecated and len(deprecated) == 1 and isinstance(other, (int, float, complex))
            and not isinstance(other, bool)):
        # PyTorch's deprecated add_(Number alpha, Tensor other), with its warning
        _errors.deprecated_overload("add_(Number alpha, Tensor other)",
                                    "add_(Tensor other, *, Number alpha = 1)")
        alpha, other = other, deprecated[0]
    elif deprecated:
        raise TypeError("add_() takes 1 positional argument but %d were given. Fix: "
                        "t.add_(other, alpha=a)" % (1 + len(deprecated)))
    return _add(self, other, alpha=alpha)


def sub_(self, other, *, alpha=None):
    if self._data.dtype == np.bool_ or other is True or other is False or (
            isinstance(other, Tensor) and other._data.dtype == np.bool_):
        PLAIN.sub(self, other)      # raises PyTorch's bool-subtraction error, as sub does
    return _sub(self, other, alpha=alpha)


def mul_(self, other):
    return _mul(self, other)


def div_(self, other, *, rounding_mode=None):
    if self._data.dtype.kind in "biu":
        raise _cast_error(np.float32, self._data.dtype)
    return _div(self, other)


_add = _arith(np.add, "add_", lambda a, b: PLAIN.add(a, b))
_sub = _arith(np.subtract, "sub_", lambda a, b: PLAIN.sub(a, b))
_mul = _arith(np.multiply, "mul_", lambda a, b: PLAIN.mul(a, b))
_div = _arith(np.true_divide, "div_", lambda a, b: PLAIN.div(a, b))


def pow_(self, exponent):
    return apply(self, "pow_", lambda a, b: PLAIN.pow(a, b), exponent)


def neg_(self):
    return apply(self, "neg_", lambda a: PLAIN.neg(a))


def exp_(self):
    return apply(self, "exp_", lambda a: PLAIN.exp(a))


def log_(self):
    return apply(self, "log_", lambda a: PLAIN.log(a))


def sqrt_(self):
    return apply(self, "sqrt_", lambda a: PLAIN.sqrt(a))


def abs_(self):
    return apply(self, "abs_", lambda a: PLAIN.abs(a))


def relu_(self):
    return apply(self, "relu_", lambda a: PLAIN.relu(a))


def sigmoid_(self):
    return apply(self, "sigmoid_", lambda a: PLAIN.sigmoid(a))


def tanh_(self):
    return apply(self, "tanh_", lambda a: PLAIN.tanh(a))


def clamp_(self, min=None, max=None):
    return apply(self, "clamp_", lambda a: PLAIN.clamp(a, min, max))


def clamp_min_(self, min):
    return apply(self, "clamp_min_", lambda a: PLAIN.clamp_min(a, min))


def clamp_max_(self, max):
    return apply(self, "clamp_max_", lambda a: PLAIN.clamp_max(a, max))


def _value_grad(gv, vshape):
    """The gradient of ``x[key] = value`` for the value: ``g[key]`` summed to the value's
    shape where the value was broadcast, given back the leading 1s it may have had
    (PyTorch strips them before writing)."""
    vshape = tuple(vshape)
    if tuple(gv.shape) == vshape:
        return gv
    if gv.dim() < len(vshape):
        gv = gv.reshape((1,) * (len(vshape) - gv.dim()) + tuple(gv.shape))
    return gv.sum_to_size(vshape)


class CopySlices(Node):
    """Node of ``x[key] = value`` on a tensor in the graph."""

    __slots__ = ()
    saves = False

    def name(self):
        return "torch::autograd::CopySlices"

    def backward(ctx, g):
        key, vshape = ctx.args
        ns, nv = ctx.needs_input_grad
        gs = gv = None
        if ns:
            # zero where the value was written (selected: masked_fill, not a product)
            gs = g.masked_fill(Tensor._make_plain(key.written(g._data.shape)), 0.0)
        if nv:
            gv = _value_grad(PLAIN.getitem(g, key), vshape)
        return gs, gv


_tensor.use_view_refresher(_refresh_view)
