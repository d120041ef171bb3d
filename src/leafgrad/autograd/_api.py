"""``torch.autograd.backward`` / ``torch.autograd.grad``: argument checks,
default gradients, then the engine (which gets the Tensor class from here).

This module sits above ``leafgrad._tensor.tensor``; ``leafgrad.autograd`` loads it
on first use (see ``autograd/__init__.py``).
"""

import numpy as np

from .._core import errors as _errors
from ._grad_tuple import GradTuple
from .grad_mode import mode
from .._tensor.tensor import Tensor, _sync_view, use_backward
from .engine import run_backward


def _tensors(x, what):
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, (tuple, list)):
        for t in x:
            if not isinstance(t, Tensor):
                raise TypeError("%s must be tensors, got %s" % (what, type(t).__name__))
        return tuple(x)
    raise TypeError("%s must be a Tensor or a sequence of Tensors, got %s"
                    % (what, type(x).__name__))


def _make_grads(outputs, grad_outputs, create_graph):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out._data.size != 1:
                raise _errors.non_scalar(out.shape)
            if out._data.dtype.kind != "f":
                raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                   "but got %s. Fix: make the loss real (e.g. .abs() or "
                                   ".real) or pass `gradient`" % out.dtype)
            d = out._data
            # a 0-d output (a loss) is the usual root: np.array is several times cheaper
            grads.append(Tensor._make_plain(np.array(1, d.dtype) if d.ndim == 0
                                            else np.ones(d.shape, d.dtype)))
        else:
            if not isinstance(g, Tensor):
                g = Tensor._make_plain(np.asarray(g, dtype=out._data.dtype))
            if g._data.shape != out._data.shape:
                raise RuntimeError(
                    "Mismatch in shape: grad_output[%d] has a shape of %s and output[%d] has a "
                    "shape of %s. Fix: pass a gradient with the output's shape (e.g. "
                    "torch.ones_like(out))." % (i, g.shape, i, out.shape))
            grads.append(g)
    return grads


def _sync_views(roots, inputs):
    """A view whose base changed in place gets its current grad_fn before the
    engine reads its edge."""
    for t in roots:
        if t._base is not None:
            _sync_view(t)
    for t in inputs or ():
        if t._base is not None:
            _sync_view(t)


def _check_roots(outputs):
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise _errors.no_grad_fn(i, not mode.enabled)
        if getattr(out, "_inference", False):
            raise RuntimeError("Inference tensors cannot be saved for backward.")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Sum of gradients of ``tensors`` w.r.t. graph leaves, accumulated into ``.grad``.

    Raises:
        RuntimeError: when a tensor does not require grad, when a non-scalar
            tensor has no gradient given, or when the graph was already freed.
    """
    tensors = _tensors(tensors, "tensors")
    if grad_tensors is None:
        grad_tensors = grad_variables
    if grad_tensors is None:
        grad_tensors = (None,) * len(tensors)
    elif not isinstance(grad_tensors, (tuple, list)):
        grad_tensors = (grad_tensors,)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError("got %d tensors and %d gradients" % (len(tensors), len(grad_tensors)))
    _check_roots(tensors)
    grads = _make_grads(tensors, grad_tensors, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _tensors(inputs, "inputs")
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    if create_graph and not _warned_create_graph[0]:
        _warned_create_graph[0] = True      # PyTorch warns once per process
        _errors.warn(_errors.backward_create_graph_message(), UserWarning)
    _sync_views(tensors, inputs)
    res = run_backward(list(tensors), grads, retain_graph, create_graph, inputs=inputs,
                       allow_unused=True, accumulate=True, tensor_cls=Tensor)
    if inputs is not None:
        # non-leaf tensors named in ``inputs`` get their gradient in .grad too
        for t, g in zip(inputs, res):
            if g is not None and t._grad_fn is not None and not t._retains_grad:
                if not create_graph:
                    g = g.detach()
                t._grad = g if t._grad is None else t._grad + g


_warned_create_graph = [False]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Gradients of ``outputs`` w.r.t. ``inputs``, returned as a tuple (not stored in ``.grad``).

    Args:
        outputs: tensor(s) to differentiate.
        inputs: tensor(s) to differentiate with respect to.
        grad_outputs: the vector in the vector-Jacobian product; needed for
            non-scalar outputs.
        retain_graph: keep the graph for another call (default: create_graph).
        create_graph: make the result differentiable (higher-order gradients).
        allow_unused: return None for inputs the outputs do not depend on.
        materialize_grads: return zeros instead of None for unused inputs.

    Returns:
        tuple of Tensors (one per input), even for a single input.

    Raises:
        RuntimeError: an input that is unused (without allow_unused) or does
            not require grad; an output that does not require grad; a freed graph.
    """
    outputs = _tensors(outputs, "outputs")
    inputs = _tensors(inputs, "inputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    elif isinstance(grad_outputs, Tensor):
        grad_outputs = (grad_outputs,)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError("grad requires one grad_output per output: got %d outputs and %d "
                           "grad_outputs" % (len(outputs), len(grad_outputs)))
    _check_roots(outputs)
    for i, t in enumerate(inputs):
        if not t._requires_grad:
            raise _errors.input_no_grad(i)
    grads = _make_grads(outputs, grad_outputs, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    _sync_views(outputs, inputs)
    res = run_backward(list(outputs), grads, retain_graph, create_graph, inputs=inputs,
                       allow_unused=allow_unused, accumulate=False, tensor_cls=Tensor)
    if not allow_unused:
        for i, g in enumerate(res):
            if g is None:
                raise _errors.unused_input(i)
    if materialize_grads:
        res = tuple(Tensor._make_plain(np.zeros(t._data.shape, t._data.dtype)) if g is None else g
                    for g, t in zip(res, inputs))
    if not create_graph:
        res = tuple(None if g is None else (g.detach() if g._grad_fn is not None else g)
                    for g in res)
    return GradTuple(res)     # a tuple whose use as a number says to index it first


def Variable(data, requires_grad=False, volatile=False):
    """Deprecated alias kept for old tutorials: returns a tensor."""
    t = data.detach() if hasattr(data, "detach") else data
    if requires_grad:
        t.requires_grad_(True)
    return t


use_backward(backward)   # Tensor.backward runs it
