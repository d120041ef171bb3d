"""In-place ops (``add_``, ``mul_``, ``x[i] = v``, ``+=`` ...) and their autograd rules.

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

from .. import _errors, _scalars
from .._tensor import InferenceTensor, Tensor
from ..autograd.grad_mode import mode
from ._dispatch import record, to_tensor
from ..autograd.graph import Node

from .._quiet import quiet as _quiet


def _check_inference(self):
    if type(self) is InferenceTensor and not mode.inference:
        raise RuntimeError(_errors.inference_inplace())


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
    names = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int",
             "bool": "Bool", "float16": "Half"}
    return RuntimeError(
        "result type %s can't be cast to the desired output type %s: an in-place op keeps the "
        "tensor's dtype. Fix: convert first (x = x.float()) or use the out-of-place op."
        % (names.get(np.dtype(src).name, src), names.get(np.dtype(dst).name, dst)))


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
        # an expanded/broadcast view: PyTorch refuses too
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")
    np.copyto(dst, arr, casting="unsafe")
    self._vlist[0] += 1


def apply(self, name, fn, *others):
    """Run ``fn(self, *others)`` (an out-of-place leafgrad op) and store the
    result in ``self``; record it for autograd when needed."""
    _check_inference(self)
    if mode.enabled and (self._requires_grad or any(
            isinstance(o, Tensor) and o._requires_grad for o in others)):
        _check_leaf(self, name)
        if self._grad_fn is not None:
            old = Tensor._make_nonleaf(self._data.copy(), self._grad_fn, self._output_nr)
        else:
            old = Tensor._make_plain(self._data.copy())
        new = fn(old, *others)
        _write(self, new._data)
        if new._grad_fn is not None:
            self._grad_fn, self._output_nr = new._grad_fn, new._output_nr
            self._requires_grad = True
            node = new._grad_fn
            if node._out is not None:   # the saved result is now self
                node._out_version = (self._vlist, self._vlist[0])
        return self
    prev = mode.enabled
    mode.enabled = False
    try:
        new = fn(self, *others)
    finally:
        mode.enabled = prev
    _write(self, new._data)
    return self


def _arith(np_fn, name, fallback):
    """Fast in-place arithmetic when no graph is recorded (optimizer updates)."""
    def op(self, other, *, alpha=None):
        if type(self) is InferenceTensor:
            _check_inference(self)
        if type(other) is tuple:
            raise TypeError("%s(): argument 'other' (position 1) must be Tensor, not tuple. %s"
                            % (name, _errors.grad_tuple_hint()))
        if alpha is not None:
            other = other * alpha
        if (mode.enabled and (self._requires_grad or (isinstance(other, Tensor)
                                                      and other._requires_grad))):
            return apply(self, name, fallback, other)
        x = self._data
        o = other._data if isinstance(other, Tensor) else other
        if type(o) is int and (x.dtype.kind in "iu" or not
                               _scalars.I64_MIN <= o <= _scalars.I64_MAX):
            o = _scalars.scalar_operand(o, x.dtype)     # int8 += 300 wraps, as PyTorch
        if not x.flags.writeable:
            return apply(self, name, fallback, other)
        try:
            with _quiet():
                np_fn(x, o, out=x, casting="same_kind")
        except (TypeError, np.exceptions.DTypePromotionError if hasattr(np, "exceptions") else TypeError):
            res = np.result_type(x, o)
            raise _cast_error(res if res != x.dtype else np.float32, x.dtype) from None
        except ValueError:
            raise RuntimeError(
                "output with shape %s doesn't match the broadcast shape %s: an in-place op "
                "cannot change the tensor's shape. Fix: use the out-of-place op."
                % (list(x.shape), list(np.broadcast_shapes(x.shape, np.shape(o))))) from None
        self._vlist[0] += 1
        return self
    op.__name__ = name
    return op


def _ops():
    from . import elementwise as E
    return E


def add_(self, other, *, alpha=None):
    return _add(self, other, alpha=alpha)


def sub_(self, other, *, alpha=None):
    return _sub(self, other, alpha=alpha)


def mul_(self, other):
    return _mul(self, other)


def div_(self, other, *, rounding_mode=None):
    if self._data.dtype.kind in "biu":
        raise _cast_error(np.float32, self._data.dtype)
    return _div(self, other)


_add = _arith(np.add, "add_", lambda a, b: _ops().add(a, b))
_sub = _arith(np.subtract, "sub_", lambda a, b: _ops().sub(a, b))
_mul = _arith(np.multiply, "mul_", lambda a, b: _ops().mul(a, b))
_div = _arith(np.true_divide, "div_", lambda a, b: _ops().div(a, b))


def pow_(self, exponent):
    return apply(self, "pow_", lambda a, b: _ops().pow(a, b), exponent)


def neg_(self):
    return apply(self, "neg_", lambda a: _ops().neg(a))


def exp_(self):
    return apply(self, "exp_", lambda a: _ops().exp(a))


def log_(self):
    return apply(self, "log_", lambda a: _ops().log(a))


def sqrt_(self):
    return apply(self, "sqrt_", lambda a: _ops().sqrt(a))


def abs_(self):
    return apply(self, "abs_", lambda a: _ops().abs(a))


def relu_(self):
    return apply(self, "relu_", lambda a: _ops().relu(a))


def sigmoid_(self):
    return apply(self, "sigmoid_", lambda a: _ops().sigmoid(a))


def tanh_(self):
    return apply(self, "tanh_", lambda a: _ops().tanh(a))


def clamp_(self, min=None, max=None):
    return apply(self, "clamp_", lambda a: _ops().clamp(a, min, max))


def clamp_min_(self, min):
    return clamp_(self, min=min)


def clamp_max_(self, max):
    return clamp_(self, max=max)


def _fill_backward(ctx, g):
    return (g * 0,) if ctx.needs_input_grad[0] else (None,)


FillBackward0 = type("FillBackward0", (Node,), {"__slots__": (), "saves": False,
                                                "backward": _fill_backward})


ZeroBackward0 = type("ZeroBackward0", (Node,), {"__slots__": (), "saves": False,
                                                "backward": _fill_backward})


def _filled(a, value, cls=FillBackward0):
    if isinstance(value, Tensor):
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
    if not mode.enabled or not self._requires_grad:
        if isinstance(value, Tensor) and value._data.ndim:
            raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor "
                               "with %d dimensions." % value._data.ndim)
        self._data[...] = value._data if isinstance(value, Tensor) else value
        self._vlist[0] += 1
        return self
    if _name == "zero_":
        return apply(self, "zero_", lambda a, v: _filled(a, v, ZeroBackward0), value)
    return apply(self, "fill_", _filled, value)


def zero_(self):
    """Set every element to 0 (used by ``optimizer.zero_grad(set_to_none=False)``)."""
    return fill_(self, 0, "zero_")


def _copy(a, src):
    from .shape import to_dtype
    src = to_tensor(src)
    out = to_dtype(src, a.dtype) if src.dtype is not a.dtype else src
    if out._data.shape != a._data.shape:
        try:
            fits = np.broadcast_shapes(a._data.shape, out._data.shape) == a._data.shape
        except ValueError:
            fits = False
        if not fits:
            raise _errors.copy_shape(a._data.shape, out._data.shape)
        out = out.expand(a.shape)
    return out + a * 0 if a._requires_grad else out.clone()


def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast, cast to self's dtype) into self."""
    _check_inference(self)
    if not mode.enabled or not (self._requires_grad or getattr(src, "_requires_grad", False)):
        s = src._data if isinstance(src, Tensor) else np.asarray(src)
        try:
            np.copyto(self._data, np.broadcast_to(s, self._data.shape), casting="unsafe")
        except ValueError:
            raise _errors.copy_shape(self._data.shape, np.shape(s)) from None
        self._vlist[0] += 1
        return self
    return apply(self, "copy_", _copy, src)


class CopySlices(Node):
    """Node of ``x[key] = value`` on a tensor in the graph."""

    __slots__ = ()
    saves = False

    def name(self):
        return "torch::autograd::CopySlices"

    def backward(ctx, g):
        key, vshape = ctx.args
        ns, nv = ctx.needs_input_grad
        k = key if len(key) != 1 else key[0]
        gs = gv = None
        if ns:
            # zero where the value was written; masked_fill keeps it differentiable
            mask = np.zeros(g._data.shape, bool)
            mask[k] = True
            gs = g.masked_fill(Tensor._make_plain(mask), 0.0)
        if nv:
            gv = g[k]
            if tuple(gv.shape) != tuple(vshape):
                gv = gv.sum_to_size(vshape)
        return gs, gv


class _IndexPut(CopySlices):
    """``x[mask] = v`` / ``x[idx] = v``: PyTorch's ``index_put_``, named so."""

    __slots__ = ()

    def name(self):
        return "IndexPutBackward0"


_IndexPut.__name__ = _IndexPut.__qualname__ = "IndexPutBackward0"


def _setitem_error(arr, k, adv, v):
    return _errors.setitem_shape(np.shape(arr[k if len(k) != 1 else k[0]]), np.shape(v), adv)


def _index_put(a, key, value):
    from .indexing import _convert_key
    k, adv = _convert_key(key)
    out = a._data.copy()
    v = value._data if isinstance(value, Tensor) else value
    try:
        out[k if len(k) != 1 else k[0]] = v
    except ValueError:
        raise _setitem_error(out, k, adv, v) from None
    vt = value if isinstance(value, Tensor) else None
    return record(_IndexPut if adv else CopySlices, out, (a, vt), args=(k, tuple(np.shape(v))))


def index_put_(self, key, value):
    """``self[key] = value``.

    Raises:
        ValueError: an int beyond int64; RuntimeError: a number the dtype cannot hold.
    """
    _check_inference(self)
    if not isinstance(value, Tensor):
        value = _scalars.setitem_value(value, self._data.dtype)
    if not mode.enabled or not (self._requires_grad or getattr(value, "_requires_grad", False)):
        from .indexing import _convert_key
        k, adv = _convert_key(key)
        v = value._data if isinstance(value, Tensor) else value
        try:
            self._data[k if len(k) != 1 else k[0]] = v
        except ValueError:
            raise _setitem_error(self._data, k, adv, v) from None
        except IndexError as e:
            raise IndexError(str(e).replace("axis", "dimension")) from None
        self._vlist[0] += 1
        return self
    return apply(self, "__setitem__", _index_put, key, value)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    """In-place ``scatter`` (see ``indexing.scatter``); returns self."""
    from .indexing import scatter
    if src is None:
        src = value
    if isinstance(src, Tensor):
        return apply(self, "scatter_", lambda a, s: scatter(a, dim, index, s, reduce=reduce), src)
    return apply(self, "scatter_", lambda a: scatter(a, dim, index, src, reduce=reduce))


def scatter_add_(self, dim, index, src):
    """In-place ``scatter_add``; returns self."""
    from .indexing import scatter_add
    return apply(self, "scatter_add_", lambda a, s: scatter_add(a, dim, index, s), src)


def masked_fill_(self, mask, value):
    from .indexing import masked_fill
    return apply(self, "masked_fill_", lambda a, v: masked_fill(a, mask, v), value)


def uniform_(self, a=0.0, b=1.0, generator=None):
    from .._creation import _rng
    if mode.enabled:
        _check_leaf(self, "uniform_")
    self._data[...] = _rng(generator).uniform(a, b, self._data.shape)
    self._vlist[0] += 1
    return self


def normal_(self, mean=0.0, std=1.0, generator=None):
    from .._creation import _rng
    if mode.enabled:
        _check_leaf(self, "normal_")
    self._data[...] = _rng(generator).normal(mean, std, self._data.shape)
    self._vlist[0] += 1
    return self
