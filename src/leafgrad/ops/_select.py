"""Masked gradients that select: ``g`` where a mask holds, exactly 0 (or ``other``) elsewhere.

PyTorch's backward formulas for piecewise and selecting ops (threshold_backward,
hardtanh_backward, clamp's and where's ``where(mask, grad, 0)``, the scatter of
value_selecting_reduction_backward, masked_fill_, fill_) pick the gradient instead
of multiplying it by a 0/1 mask, so an inf or nan upstream gradient gives 0 where the
mask is off (``inf * 0`` would be nan). Every such rule in leafgrad goes through
``select``. It takes ndarrays (the engine's NumPy fast path) or tensors (recorded,
so a backward run with ``create_graph=True`` can itself be differentiated).

``deps``: tensors the mask was computed from, for the rules whose PyTorch backward
is an op of its own taking the input (``threshold_backward(grad, self, t)``): under
``create_graph=True`` the gradient then requires grad through them, with a zero
derivative (grad of grad is 0, not "does not require grad"), as in PyTorch.
"""
import numpy as np

from .._tensor.tensor import Tensor
from ..autograd.graph import Node
from ._dispatch import record

__all__ = ["select"]

_nodes = {}
_BITS = {4: np.int32, 8: np.int64, 2: np.int16}


def where0(m, g):
    """``np.where(m, g, 0)`` for a bool mask ``m`` and an ndarray ``g`` (broadcast), bit
    for bit: a float's bits ANDed with 0 or all ones. NumPy's ``where`` branches per
    element, ~10x slower on the unpredictable masks of ReLU and max pooling."""
    it = _BITS.get(g.dtype.itemsize) if g.dtype.kind == "f" else None
    if it is None or m.dtype != np.bool_:
        return np.where(m, g, g.dtype.type(0))
    neg = np.negative(m.view(np.int8), dtype=it)      # 0 or -1 (all bits set)
    if type(neg) is np.ndarray and neg.shape == g.shape:
        return np.bitwise_and(g.view(it), neg, out=neg).view(g.dtype)
    return np.asarray(np.bitwise_and(g.view(it), neg)).view(g.dtype)


def _zeros(meta):
    return Tensor._make_plain(np.zeros(*meta))


def _select_backward(ctx, gg):
    mask, has_other, metas, name, refuse = ctx.args
    if refuse is not None:
        raise RuntimeError(refuse)
    need = ctx.needs_input_grad
    grads = [select(mask, gg, name=name) if need[0] else None]
    if has_other:
        grads.append(select(~mask, gg, name=name) if need[1] else None)
    grads.extend(_zeros(m) if n else None for m, n in zip(metas, need[1 + has_other:]))
    return tuple(grads)


def _node(name):
    cls = _nodes.get(name)
    if cls is None:
        cls = _nodes[name] = type(name, (Node,), {"__slots__": (), "saves": False,
                                                  "backward": _select_backward})
    return cls


def select(mask, g, other=None, deps=(), name="WhereBackward0", refuse=None):
    """``where(mask, g, other)`` (``other`` None: 0) in g's dtype.

    Args:
        mask: bool ndarray or tensor, broadcastable against ``g``.
        g: the incoming gradient (ndarray or Tensor).
        other: what the positions off the mask get (None: exactly 0).
        deps: tensors the mask came from (see the module docstring).
        name: the recorded node's name (PyTorch's double-backward node).
        refuse: a message: differentiating the recorded result raises RuntimeError with
            it (PyTorch has no double backward for that rule, e.g. hardsigmoid).
    Returns:
        an ndarray for ndarray ``g`` (not recorded), else a Tensor.
    """
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if not isinstance(g, Tensor):
        if other is None and isinstance(g, np.ndarray) and g.dtype.kind == "f":
            return where0(m, g)
        return np.where(m, g, 0 if other is None else other)
    gd = g._data
    if other is None:
        out = where0(m, gd)
        inputs = (g,) + tuple(deps)
    else:
        od = other._data if isinstance(other, Tensor) else other
        out = np.where(m, gd, od).astype(gd.dtype, copy=False)
        inputs = (g, other if isinstance(other, Tensor) else None) + tuple(deps)
    metas = tuple((d._data.shape, d._data.dtype) for d in deps)
    return record(_node(name), out, inputs,
                  args=(m, other is not None, metas, name, refuse))
