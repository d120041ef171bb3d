"""The backward engine: one iterative traversal for ``backward`` and ``grad``.

1. Walk the graph from the roots with an explicit stack (no recursion, so a
   chain of a million ops works) and count, for every node, how many edges
   lead into it.
2. Run nodes in dependency order: a node runs once every consumer has sent
   it its gradient. Gradients arriving at one node are summed.
3. The engine, not the rules, makes each gradient fit its input: a
   broadcast gradient is summed back to the input's shape and cast to its
   dtype (PyTorch's ``validate_outputs``).
4. Unless ``retain_graph``, each node releases its saved tensors as soon as
   it has run; a later pass through it raises ``GraphFreedError``.

``AccumulateGrad`` nodes add into ``leaf.grad``; for ``autograd.grad`` the
engine captures the gradient for each requested input instead, and runs only
the part of the graph that leads to those inputs.
"""
import os
import sys

import numpy as np

from .. import _errors
from .._quiet import quiet
from .anomaly_mode import _Checker, _State as _anomaly_state
from .graph import AccumulateGrad
from .grad_mode import mode


Tensor = None   # set by leafgrad._tensor (importing it here would be circular)
__all__ = ["run_backward"]

_getrefcount = sys.getrefcount


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _call_site(what):
    """'backward() call at script.py:12': the user's line that frees the graph,
    named later if someone tries to use the freed graph again."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        f = f.f_back
    if f is None:
        return "an earlier %s call" % what
    return "the %s call at %s:%d" % (what, os.path.basename(f.f_code.co_filename), f.f_lineno)


def _count_deps(roots, check_freed=True):
    """Number of edges into each node reachable from ``roots`` (explicit stack).

    A node's entry in ``deps`` doubles as its 'seen' mark. A freed node
    anywhere in the graph fails the whole call before anything runs, so no
    ``.grad`` is half-updated.
    """
    deps = {}
    stack = []
    for r in roots:
        if r is not None and r not in stack:
            if r._released and check_freed:
                raise _errors.graph_freed(r.name(), r._released)
            stack.append(r)
    visited_roots = set(stack)
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is None:
                continue
            n = deps.get(child)
            if n is not None:
                deps[child] = n + 1
                continue
            deps[child] = 1
            if child in visited_roots:     # a root reached from another root
                continue
            if child._released and check_freed:
                raise _errors.graph_freed(child.name(), child._released)
            stack.append(child)
    return deps


def _collect(roots, targets):
    """Dependency counts over the graph reachable from ``roots``.

    With ``targets`` (a set of nodes), only nodes from which a target can be
    reached are kept (pruning for ``autograd.grad``); returns (deps, needed).
    """
    if targets is None:
        return _count_deps(roots), None
    # topological order (consumers first) by Kahn's algorithm over the full graph
    full = _count_deps(roots, check_freed=False)
    remaining = dict(full)
    order = []
    stack = [r for r in dict.fromkeys(roots) if r is not None and r not in full]
    while stack:
        node = stack.pop()
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None:
                n = remaining[child] - 1
                remaining[child] = n
                if n == 0:
                    stack.append(child)
    needed = set()
    for node in reversed(order):   # producers before their consumers
        if node in targets:
            needed.add(node)
            continue
        for child, _ in node.next_functions:
            if child in needed:
                needed.add(node)
                break
    deps = {}
    for node in needed:
        if node._released:
            raise _errors.graph_freed(node.name(), node._released)
        for child, _ in node.next_functions:
            if child in needed:
                deps[child] = deps.get(child, 0) + 1
    return deps, needed


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


def _accumulate(node, grad, create_graph, run_hooks=True):
    var = node.variable
    hooks = var._hooks
    if hooks and run_hooks:
        grad = _call_hooks(hooks, grad)
    old = var._grad
    if old is None:
        if create_graph:
            var._grad = grad
        else:
            arr = grad._data
            # Steal the buffer when nothing else references it (PyTorch does the
            # same by use count); otherwise copy so that two leaves never share
            # one gradient array (an in-place zero_() on one would clear both).
            if (_getrefcount(grad) > 3 or _getrefcount(arr) > 3 or arr.base is not None
                    or not arr.flags.writeable or grad._grad_fn is not None):
                arr = np.array(arr, copy=True)
            var._grad = var._make_plain(arr)
    elif create_graph or old._grad_fn is not None or old._requires_grad:
        var._grad = old + grad
    else:
        oa = old._data
        if oa.flags.writeable and oa.shape == grad._data.shape:
            np.add(oa, grad._data, out=oa, casting="unsafe")
            old._bump_version()
        else:
            old._data = oa + grad._data
    post = var._post_hooks
    if post:
        for h in tuple(post):
            h(var)


def _accumulate_array(var, arr):
    """``_accumulate`` for a plain ndarray gradient (no create_graph), without
    wrapping it in a Tensor first; False when the leaf has hooks (then the
    general path runs them)."""
    if var._hooks or var._post_hooks:
        return False
    old = var._grad
    if old is None:
        # steal the array unless someone else holds it (see _accumulate)
        if _getrefcount(arr) > 3 or arr.base is not None or not arr.flags.writeable:
            arr = np.array(arr, copy=True)
        var._grad = _make_plain(arr)
        return True
    if old._grad_fn is not None or old._requires_grad:
        return False
    oa = old._data
    if oa.flags.writeable and oa.shape == arr.shape:
        np.add(oa, arr, out=oa, casting="unsafe")
        old._bump_version()
    else:
        old._data = oa + arr
    return True


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


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=None,
                 allow_unused=False, accumulate=True):
    """Backpropagate ``root_grads`` from the tensors ``roots``.

    Args:
        roots: list of Tensors (each requires grad).
        root_grads: list of Tensors, one per root, same shapes.
        inputs: optional tuple of Tensors to capture gradients for.
        accumulate: when True, leaf gradients go into ``.grad`` (backward);
            when False, only ``inputs`` are captured (autograd.grad).

    Returns:
        A tuple with the captured gradient (or None) for each of ``inputs``.
    """

    freed_by = None if retain_graph else _call_site("backward()" if accumulate else
                                                    "autograd.grad()")
    # edges of the roots
    root_edges = []
    for t in roots:
        if t._base is not None:   # a view whose base changed in place: its current grad_fn
            _sync_view(t)
        if t._grad_fn is not None:
            root_edges.append((t._grad_fn, t._output_nr))
        else:
            root_edges.append((t._grad_accumulator(), 0))

    capture_leaf = capture_out = None
    targets = None
    if inputs is not None:
        capture_leaf, capture_out = {}, {}
        targets = set()
        for i, t in enumerate(inputs):
            if t._base is not None:
                _sync_view(t)
            if t._grad_fn is not None:
                capture_out.setdefault((t._grad_fn, t._output_nr), []).append(i)
                targets.add(t._grad_fn)
            else:
                acc = t._grad_accumulator()
                capture_leaf.setdefault(acc, []).append(i)
                targets.add(acc)

    deps, needed = _collect([n for n, _ in root_edges], targets)
    results = [None] * (len(inputs) if inputs is not None else 0)
    if needed is not None and not allow_unused:
        for i, t in enumerate(inputs):
            n = t._grad_fn if t._grad_fn is not None else t._grad_accumulator()
            if n not in needed:
                raise _errors.unused_input(i)

    # Without create_graph, gradients flow as plain ndarrays between nodes that
    # have a NumPy rule (``np_backward``): no Tensor is made per gradient and
    # no op dispatch runs, about 3 us less per node (tiny_ops backward 7.8 ->
    # 4 us/op). Other nodes get Tensors and run their differentiable rule.
    arrays = not create_graph
    # anomaly mode as it is now, at backward time (as PyTorch): it checks every node,
    # also those recorded outside it (they have no forward traceback then)
    anomaly = _anomaly_state.enabled
    buffers = {}
    for (node, nr), g in zip(root_edges, root_grads):
        if arrays:
            g = g._data
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.n_outputs
        buf[nr] = g if buf[nr] is None else np.asarray(buf[nr] + g) if arrays else buf[nr] + g
    ready = [n for n in buffers if deps.get(n, 0) == 0]

    pruning = needed is not None
    prev_enabled = mode.enabled
    mode.enabled = create_graph
    q = quiet()
    q.__enter__()
    try:
        while ready:
            node = ready.pop()
            grads = buffers.pop(node)
            extra = node._extra
            if extra is not None and (extra.tensor_hooks or extra.retained):
                grads = _run_tensor_hooks(node, _tensors(grads) if arrays else grads)
                if arrays:
                    grads = _arrays(grads)
            if capture_out:
                for nr, g in enumerate(grads):
                    idx = capture_out.get((node, nr))
                    if idx:
                        for i in idx:
                            results[i] = g
            if type(node) is AccumulateGrad:
                g = grads[0]
                del grads
                if g is None:
                    continue
                if arrays:
                    if capture_leaf is None and _accumulate_array(node.variable, g):
                        continue
                    g = _make_plain(g)
                if capture_leaf is not None:
                    idx = capture_leaf.get(node)
                    if idx:
                        hooks = node.variable._hooks
                        if hooks:
                            g = _call_hooks(hooks, g)
                        for i in idx:
                            results[i] = g
                        if accumulate:
                            _accumulate(node, g, create_graph, run_hooks=False)
                    continue
                _accumulate(node, g, create_graph)
                continue
            if pruning and node not in needed:
                continue
            if extra is not None and extra.prehooks:
                if arrays:
                    grads = _tensors(grads)
                for h in tuple(node._prehooks):
                    r = h(tuple(grads))
                    if r is not None:
                        grads = list(r)
                if arrays:
                    grads = _arrays(grads)
            if arrays:
                # rules on arrays can drift in dtype (a Python float times a bool
                # array is float64); gradients keep their input's dtype
                # (no local name for grads[0]: it would keep that array alive and
                # stop AccumulateGrad from taking over arrays made from it)
                gdt = grads[0].dtype if grads[0] is not None else next(
                    (g.dtype for g in grads if g is not None), None)
            if (grads[0] is None) if len(grads) == 1 else all(g is None for g in grads):
                grad_inputs = (None,) * len(node.next_functions)
            elif arrays and extra is None and node.np_backward is not None and not anomaly:
                grad_inputs = node.np_backward(*grads)
            else:
                if arrays:
                    grads = _tensors(grads)
                if node.n_outputs > 1 and any(g is None for g in grads):
                    grads = _materialize(node, grads)
                checker = None if not anomaly else (node._anomaly or _Checker(node, None))
                if checker is None:
                    grad_inputs = node.backward(*grads)
                else:   # anomaly mode: name the node and its forward call on failure
                    grad_inputs = checker.run(grads)
                if type(grad_inputs) is not tuple:
                    grad_inputs = (grad_inputs,)
                if node._hooks:
                    for h in tuple(node._hooks):
                        r = h(grad_inputs, tuple(grads))
                        if r is not None:
                            grad_inputs = tuple(r)
                if checker is not None:
                    checker.check(grad_inputs)
                if arrays:
                    grad_inputs = tuple(None if r is None else _as_array(r, node._metas[i])
                                        for i, r in enumerate(grad_inputs))
            if not retain_graph and node.saves:
                node._release(freed_by)
            del grads
            metas = node._metas
            for i, (child, nr) in enumerate(node.next_functions):
                if child is None or (pruning and child not in needed):
                    continue
                g = grad_inputs[i]
                if g is not None:
                    meta = metas[i]
                    if arrays:
                        if type(g) is not _ndarray:    # NumPy gives scalars for 0-d
                            g = _as_array(g, meta)
                        if meta is not None:
                            shape, npdt = meta
                            if g.shape != shape:
                                g = _sum_to(g, shape, node, i)
                            if g.dtype != npdt:
                                g = g.astype(npdt)
                        elif g.dtype != gdt:
                            g = g.astype(gdt)
                    else:
                        if type(g) is not Tensor and not isinstance(g, Tensor):
                            g = Tensor._wrap_grad(g, meta)
                        # meta None: the input had the output's shape and dtype
                        # (the common elementwise case), so the gradient fits
                        if meta is not None:
                            shape, npdt = meta
                            gd = g._data
                            if gd.shape != shape:
                                g = _fit_shape(g, shape, node, i)
                            if gd.dtype != npdt:
                                g = g.to(_dtype_of(npdt))
                    buf = buffers.get(child)
                    if buf is None:
                        buffers[child] = [g] if child.n_outputs == 1 else _slot(child.n_outputs, nr, g)
                    elif buf[nr] is None:
                        buf[nr] = g
                    elif arrays:
                        g = buf[nr] + g
                        buf[nr] = g if type(g) is _ndarray else np.asarray(g)
                    else:
                        buf[nr] = buf[nr] + g
                d = deps[child] - 1
                deps[child] = d
                if d == 0:
                    if child in buffers:
                        ready.append(child)
                    else:
                        # nothing flowed into it: its inputs get nothing either
                        buffers[child] = [None] * child.n_outputs
                        ready.append(child)
            del grad_inputs
    finally:
        q.__exit__(None, None, None)
        mode.enabled = prev_enabled
    if arrays:
        results = [_make_plain(r) if type(r) is _ndarray else r for r in results]
    return tuple(results)


_ndarray = np.ndarray


def _make_plain(arr):
    return Tensor._make_plain(arr)


def _sync_view(t):
    from .._tensor import _sync_view    # (engine is imported by _tensor)
    _sync_view(t)


def _tensors(grads):
    return [g if g is None or type(g) is not _ndarray else _make_plain(g) for g in grads]


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


def _sum_to(g, shape, node, i):
    """Sum a broadcast gradient array back to ``shape`` (PyTorch's sum_to)."""
    lead = g.ndim - len(shape)
    if lead < 0 or any(s != 1 and s != g.shape[k + lead] for k, s in enumerate(shape)):
        raise RuntimeError(
            "Function %s returned an invalid gradient at index %d - got %s but expected shape "
            "compatible with %s" % (node.name(), i, list(g.shape), list(shape)))
    axes = tuple(range(lead)) + tuple(k + lead for k, s in enumerate(shape)
                                      if s == 1 and g.shape[k + lead] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape) if lead else g


def _slot(n, nr, g):
    buf = [None] * n
    buf[nr] = g
    return buf


def _materialize(node, grads):
    """Multi-output nodes get zeros for outputs that received no gradient."""
    shapes = getattr(node, "out_metas", None)
    out = list(grads)
    for i, g in enumerate(out):
        if g is None and shapes is not None:
            shape, npdt = shapes[i]
            out[i] = Tensor._make_plain(np.zeros(shape, npdt))
    return out


def _fit_shape(g, shape, node, i):
    try:
        return g.sum_to_size(shape)
    except RuntimeError:
        raise RuntimeError(
            "Function %s returned an invalid gradient at index %d - got %s but expected shape "
            "compatible with %s" % (node.name(), i, list(g.shape), list(shape))) from None


def _dtype_of(npdt):
    from .._dtype import from_numpy_dtype
    return from_numpy_dtype(npdt)

