"""The backward engine's gradient values (``autograd/engine.py`` runs the steps; these
are what a step does to one gradient): tensor hooks and ``retain_grad`` (step 3),
accumulation into a leaf's ``.grad`` by buffer ownership (step 4: an array is stored
without a copy only when ``owned``, see the engine's docstring), and the boundary between
the array pass and Tensors, with the shape fitting of PyTorch's ``validate_outputs``.
"""
import numpy as np

from .._core import errors as _errors
from .grad_mode import mode

_ndarray = np.ndarray


# ---------------------------------------------------------------------------
# hooks and accumulation helpers
# ---------------------------------------------------------------------------
def _call_hooks(hooks, grad):
    """Run tensor hooks in registration order; a hook may return a replacement
    of the same shape and dtype."""
    for h in tuple(hooks):
        r = h(grad)
        if r is not None:
            if r._data.shape != grad._data.shape:
                raise RuntimeError(_errors.hook_changed_size(h, grad.shape, r.shape))
            if r._data.dtype != grad._data.dtype:
                raise RuntimeError(_errors.hook_changed_type(h, grad, r))
            grad = r
    return grad


def _run_tensor_hooks(node, grads):
    th = node._tensor_hooks
    if th:
        grads = list(grads)
        for nr, hooks in th.items():
            if grads[nr] is None:
                continue
            grads[nr] = _call_hooks(hooks, grads[nr])
    ret = node._retained
    if ret:
        for nr, ref in ret.items():
            t = ref()
            if t is not None and grads[nr] is not None:
                g = grads[nr]
                if t._grad is None:
                    t._grad = g if mode.enabled else g.detach().clone()
                else:
                    t._grad = t._grad + g
    return grads


def _accumulate(var, grad, create_graph, owned):
    """Add Tensor ``grad`` into ``var.grad``; its array is kept only when ``owned``."""
    old = var._grad
    if old is None:
        if create_graph:
            # PyTorch's AccumulateGrad with grad mode on: a copy laid out as the
            # variable (clone_obey_contract), recorded (CopyBackwards)
            var._grad = var._make_plain(_empty_like_layout(var._data, grad._data)).copy_(grad)
        else:
            arr = grad._data
            if not owned or grad._grad_fn is not None or not _obeys_layout(arr, var._data):
                # copy, so that .grad never shares an array with someone else's
                # tensor (an in-place zero_() on one would clear both)
                arr = _copy_like_layout(arr, var._data)
            var._grad = var._make_plain(arr)
    elif create_graph or old._grad_fn is not None or old._requires_grad:
        var._grad = old + grad
    else:
        _add_into(old, grad._data)


def _accumulate_array(var, arr, owned, wrap):
    """``_accumulate`` for a plain ndarray gradient on a leaf without hooks."""
    old = var._grad
    if old is None:
        var._grad = wrap(arr if owned and _obeys_layout(arr, var._data)
                         else _copy_like_layout(arr, var._data))
    elif old._grad_fn is not None or old._requires_grad:
        var._grad = old + wrap(arr)
    else:
        _add_into(old, arr)


# PyTorch's "gradient layout contract" (torch/csrc/autograd/utils/grad_layout_contract.h):
# a leaf's first .grad has the leaf's strides when the leaf is dense and non-overlapping,
# else it is C-contiguous; so grad.view(...) works wherever param.view(...) does
def _dense(v):
    return v.__class__ is not _ndarray or np.empty_like(v, order="K").strides == v.strides


def _obeys_layout(g, v):
    if g.__class__ is not _ndarray or v.__class__ is not _ndarray:
        return True
    # the common case, without _dense's allocation: both C-ordered, no broadcast dim
    if g.flags.c_contiguous and v.flags.c_contiguous and 0 not in g.strides \
            and 0 not in v.strides:
        return True
    if not _dense(v):
        return g.flags.c_contiguous
    for n, gs, vs in zip(g.shape, g.strides, v.strides):
        if n != 1:
            if gs // g.itemsize != vs // v.itemsize:
                return False
        elif gs == 0 or vs == 0:
            return False
    return True


def _empty_like_layout(v, g):
    if v.__class__ is not _ndarray or g.__class__ is not _ndarray:
        return np.empty_like(g)
    return np.empty_like(v, dtype=g.dtype, order="K" if _dense(v) else "C")


def _copy_like_layout(g, v):
    if g.__class__ is not _ndarray:          # a meta array: no data to lay out
        return np.array(g, copy=True)
    out = _empty_like_layout(v, g)
    out[...] = g
    return out


def _add_into(old, arr):
    """``old.grad += arr`` in place when possible (a version bump), else rebind."""
    oa = old._data
    if oa.flags.writeable and oa.shape == arr.shape:
        np.add(oa, arr, out=oa, casting="unsafe")
        old._bump_version()
    else:
        old._data = oa + arr


# ---------------------------------------------------------------------------
# conversions at the array/Tensor boundary, shape fitting
# ---------------------------------------------------------------------------
def _tensors(grads, wrap):
    return [g if g is None or type(g) is not _ndarray else wrap(g) for g in grads]


def _arrays(grads):
    return [g._data if g is not None and type(g) is not _ndarray else g for g in grads]


def _as_array(r, meta):
    """A rule's result (Tensor, array, NumPy scalar or number) as an ndarray."""
    if type(r) is _ndarray:
        return r
    d = getattr(r, "_data", None)
    if d is not None:
        return d
    if isinstance(r, np.generic):
        return np.asarray(r)
    return np.asarray(r, dtype=None if meta is None else meta[1])


def _invalid_gradient(node, i, got, shape):
    return RuntimeError(
        "Function %s returned an invalid gradient at index %d - got %s but expected shape "
        "compatible with %s" % (node.name(), i, list(got), list(shape)))


def _sum_to(g, shape, node, i):
    """Sum a broadcast gradient array back to ``shape`` (PyTorch's sum_to)."""
    lead = g.ndim - len(shape)
    if lead < 0 or any(s != 1 and s != g.shape[k + lead] for k, s in enumerate(shape)):
        raise _invalid_gradient(node, i, g.shape, shape)
    axes = tuple(range(lead)) + tuple(k + lead for k, s in enumerate(shape)
                                      if s == 1 and g.shape[k + lead] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape) if lead else g


def _fit_shape(g, shape, node, i):
    try:
        return g.sum_to_size(shape)
    except RuntimeError:
        raise _invalid_gradient(node, i, g.shape, shape) from None


def _materialize(node, grads, wrap):
    """Multi-output nodes get zeros for outputs that received no gradient."""
    shapes = getattr(node, "out_metas", None)
    out = list(grads)
    for i, g in enumerate(out):
        if g is None and shapes is not None:
            shape, npdt = shapes[i]
            out[i] = wrap(np.zeros(shape, npdt))
    return out
