"""What a graph computed, remembered for the pictures: each node's output
value (at forward time) and the gradients that went through it (at backward).

Nothing is recorded unless asked for, so the hot path pays nothing:

* ``with record():`` around the forward pass keeps every new node's output
  value (a copy) and registers a node hook (``Node.register_hook``) that
  keeps the gradients flowing through it when backward runs;
* ``record_grads(loss)`` after the forward pass registers those hooks on
  an existing graph (values are then known only where the graph keeps
  them: the outputs, the leaves, saved results).

The records live in weak dictionaries keyed by node, so they go away with
the graph.
"""
import weakref

import numpy as np

__all__ = ["record", "record_grads"]

_VALUES = weakref.WeakKeyDictionary()   # node -> tuple of output arrays (copies)
_GRADS = weakref.WeakKeyDictionary()    # node -> (grads of its outputs, grads per input edge)
_MODULES = weakref.WeakKeyDictionary()  # node -> name of the innermost module call that made it
_HOOKED = weakref.WeakSet()             # nodes whose gradient hook is registered


def to_numpy(t):
    """A tensor's values as an ndarray (leafgrad without a copy; torch via .numpy())."""
    if t is None:
        return None
    d = getattr(t, "_data", None)
    if isinstance(d, np.ndarray):
        return d
    if hasattr(t, "detach"):
        return t.detach().cpu().numpy()
    return np.asarray(t)


def sum_to(g, shape):
    """``g`` summed over broadcast dimensions down to ``shape`` (PyTorch's sum_to);
    ``g`` unchanged when the shapes do not fit."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead < 0 or any(s != 1 and s != g.shape[k + lead] for k, s in enumerate(shape)):
        return g
    axes = tuple(range(lead)) + tuple(k + lead for k, s in enumerate(shape)
                                      if s == 1 and g.shape[k + lead] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(shape) if axes else g.reshape(shape)


def _input_shape(node, i, out_shape):
    metas = getattr(node, "_metas", None)
    if metas is not None and i < len(metas) and metas[i] is not None:
        return metas[i][0]
    return out_shape


def _grad_hook(node):
    def hook(grad_inputs, grad_outputs):
        outs = tuple(None if g is None else np.array(to_numpy(g)) for g in grad_outputs)
        shape = next((g.shape for g in outs if g is not None), None)
        ins = []
        for i, g in enumerate(grad_inputs):
            if g is not None:
                g = np.array(to_numpy(g))
                if shape is not None:
                    g = sum_to(g, _input_shape(node, i, shape))
            ins.append(g)
        _GRADS[node] = (outs, tuple(ins))
    return hook


def _hook(node):
    # real torch nodes take no weak reference: their gradients are not recorded
    if not _weakable(node) or node in _HOOKED or type(node).__name__ == "AccumulateGrad":
        return
    try:
        node.register_hook(_grad_hook(node))
        _HOOKED.add(node)
    except (TypeError, AttributeError, RuntimeError):   # a node that takes no hooks
        pass


def _walk(roots):
    seen, stack = set(), [r for r in roots if r is not None]
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        yield fn
        stack.extend(c for c, _ in fn.next_functions if c is not None and c not in seen)


def record_grads(*tensors):
    """Keep the gradients that the next backward pass sends through the graph
    behind ``tensors`` (for ``make_dot``/``print_graph(show_grads=True)`` and ``explain``).

    Call it after the forward pass and before ``backward()``: it registers a
    node hook (``Node.register_hook``) on every node of the graph; graphs not
    passed here are not touched, so nothing is slowed down elsewhere. Each
    node's record holds the gradient of its output and the gradient sent along
    each of its input edges (summed back to that input's shape), from the
    latest backward pass through it. (Graphs of real torch tensors are left
    alone: their leaves' ``.grad`` is still shown.)

    Returns:
        int: how many nodes got a hook.
    """
    roots = []
    for t in tensors:
        for v in (t if isinstance(t, (tuple, list)) else (t,)):
            if getattr(v, "grad_fn", None) is not None:
                roots.append(v.grad_fn)
    n = 0
    for fn in _walk(roots):
        before = fn in _HOOKED
        _hook(fn)
        n += fn in _HOOKED and not before
    return n


class record:
    """``with record(model):`` keeps, for every node recorded inside, its output
    value and (when backward runs later, inside or outside the block) the
    gradients through it; with a module, also which module call made it (for
    ``make_dot``'s boxes per module).

    Args:
        module: optional ``nn.Module``; its submodules' calls are tracked with
            forward pre-hooks and hooks (removed at the end of the block).
        values: keep the output values (a copy per node).
        grads: register the gradient hooks.

    The cost is paid only inside the block: one copy and one hook per node.
    """

    def __init__(self, module=None, values=True, grads=True):
        self.module, self.values, self.grads = module, values, grads
        self._handles = []
        self._stack = []
        self._prev = None
        self._mine = None

    def _on_record(self, node, outputs=None):
        prev = self._prev
        if prev is not None:
            prev(node) if outputs is None else prev(node, outputs)
        if self.values and outputs is not None:
            outs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
            _VALUES[node] = tuple(np.array(to_numpy(o)) for o in outs
                                  if o is not None and getattr(o, "grad_fn", None) is node)
        if self._stack:
            _MODULES[node] = self._stack[-1]
        if self.grads:
            _hook(node)

    def __enter__(self):
        from ...autograd.anomaly_mode import record_hook
        self._prev = record_hook[0]
        self._mine = self._on_record
        record_hook[0] = self._mine
        if self.module is not None:
            for name, m in self.module.named_modules():
                if name:
                    self._handles.append(m.register_forward_pre_hook(self._enter_module(name)))
                    self._handles.append(m.register_forward_hook(self._leave_module))
        return self

    def _enter_module(self, name):
        def pre(module, args):
            self._stack.append(name)
        return pre

    def _leave_module(self, module, args, output):
        if self._stack:
            self._stack.pop()

    def __exit__(self, *exc):
        from ...autograd.anomaly_mode import record_hook
        if record_hook[0] == self._mine:
            record_hook[0] = self._prev
        for h in self._handles:
            h.remove()
        self._handles = []
        self._stack = []
        return False


def value_of(fn, nr=0):
    """The recorded (or still saved) output ``nr`` of node ``fn``, or None."""
    vals = _VALUES.get(fn) if _weakable(fn) else None
    if vals is not None and nr < len(vals):
        return vals[nr]
    out = getattr(fn, "_out", None)
    if isinstance(out, np.ndarray) and not getattr(fn, "_released", False) and nr == 0:
        return out
    if type(fn).__name__ == "TBackward0" and fn.next_functions:
        # nn.Linear's weight.t(), made without an output: the leaf's transpose
        var = getattr(fn.next_functions[0][0], "variable", None)
        if var is not None:
            return to_numpy(var).T
    return None


def grads_of(fn):
    """``(grads of the outputs, grads per input edge)`` recorded for ``fn``, or None."""
    return _GRADS.get(fn) if _weakable(fn) else None


def module_of(fn):
    return _MODULES.get(fn) if _weakable(fn) else None


def _weakable(fn):
    try:
        weakref.ref(fn)
        return True
    except TypeError:
        return False
