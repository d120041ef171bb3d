"""The backward engine: one iterative traversal for ``backward`` and ``grad``.

``run_backward`` runs five named steps:

1. **collect** (``_collect``): walk the graph from the roots with an explicit
   stack (no recursion: a chain of a million ops works) and count, for every
   node, how many edges lead into it. A freed node fails the whole call
   before anything runs, so no ``.grad`` is half-updated. For
   ``autograd.grad`` only the nodes from which a requested input can be
   reached are kept.
2. **schedule** (``_Pass.execute``): a node is *ready* once every consumer
   has sent it its gradient (gradients arriving at one slot are summed).
   Among ready nodes the one recorded last runs first, as in PyTorch, whose
   ready queue is ordered by the node's ``sequence_nr`` (``Node._seq`` here,
   one counter for every recorded node). A leaf's ``AccumulateGrad`` runs as
   soon as it is ready, before any other node (PyTorch gives it the highest
   priority); the order among several leaves ready at once is the order of
   the edges and, as in PyTorch, not part of the contract.
3. **run one node** (``_run_arrays`` / ``_run_tensors``): tensor hooks and
   ``retain_grad``, then pre-hooks, the node's rule, its hooks. The engine,
   not the rule, makes each gradient fit its input: a broadcast gradient is
   summed back to the input's shape and cast to its dtype (PyTorch's
   ``validate_outputs``). Unless ``retain_graph``, the node then releases its
   saved tensors; a later pass through it raises ``GraphFreedError``.
4. **accumulate into leaves** (``_accumulate_leaf``): add into ``leaf.grad``.
5. **capture for grad** (``_Capture``): for ``autograd.grad`` (and
   ``backward(inputs=...)``) the gradient of each requested input is taken
   where it arrives (a leaf's ``AccumulateGrad``, or a node's output slot).

Gradient representation: one per pass. Without ``create_graph`` gradients
are plain ndarrays (no Tensor per gradient and no op dispatch: about 3 us
less per node); with it they are Tensors, recorded as they are computed.
The array pass crosses into Tensors at one marked boundary (``_run_arrays``'
slow path): user hooks, anomaly checks and rules without a NumPy form
(``np_backward``) see Tensors, and their results come back as arrays.

Buffer ownership: a leaf's first gradient is stored in ``.grad`` without a
copy only when the engine knows nobody else holds that array (``owned``):
it is a sum the engine made, or the fresh result of a NumPy rule (not one of
the rule's incoming gradient arrays, not a view, not read-only, given to one
input only). Gradients a user's code has seen (hooks, ``retain_grad``, a
root gradient, a captured result) are never owned, so ``.grad`` never
aliases an array someone else holds. ``np_backward`` rules therefore return,
per input, a new array, a view, or one of their incoming gradients; never an
array kept elsewhere.

The engine does not import the Tensor class: its caller passes it
(``tensor_cls``), as the constructor of the Tensors the engine hands out.
What a step does to one gradient (tensor hooks, accumulation into ``.grad``, the
array/Tensor conversions and shape fitting) is in ``autograd/_grad_values.py``.
"""
import heapq
import os
import sys

import numpy as np

from .._core import errors as _errors
from .._core.dtype import from_numpy_dtype
from .._core.quiet import _IGNORE as _QUIET, _reset as _quiet_reset, _set as _quiet_set
from .anomaly_mode import _Checker, _State as _anomaly_state
from ._grad_values import (_accumulate, _accumulate_array, _arrays, _as_array, _call_hooks,
                           _fit_shape, _materialize, _run_tensor_hooks, _sum_to, _tensors)
from .graph import _NO_EDGE, _NO_META1, _NO_META2, AccumulateGrad
# the passes in progress, innermost last (graph.register_multi_grad_hook asks which nodes
# the current one runs, as PyTorch's _will_engine_execute_node)
from .graph import running_passes as running
from .grad_mode import mode


__all__ = ["run_backward"]

_ndarray = np.ndarray
_generic = np.generic
_asarray = np.asarray
_heappush, _heappop = heapq.heappush, heapq.heappop
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=None,
                 allow_unused=False, accumulate=True, *, tensor_cls):
    """Backpropagate ``root_grads`` from the tensors ``roots``.

    Args:
        roots: list of Tensors (each requires grad; views already brought up
            to date by the caller).
        root_grads: list of Tensors, one per root, same shapes.
        inputs: optional tuple of Tensors to capture gradients for.
        accumulate: when True, leaf gradients go into ``.grad`` (backward);
            when False, only ``inputs`` are captured (autograd.grad).
        tensor_cls: the Tensor class (its ``_make_plain`` wraps arrays).

    Returns:
        A tuple with the captured gradient (or None) for each of ``inputs``.
    """
    freed_by = None if retain_graph else _call_site("backward()" if accumulate else
                                                    "autograd.grad()")
    root_edges = [_edge(t) for t in roots]
    capture = None if inputs is None else _Capture(inputs)
    deps, needed = _collect([n for n, _ in root_edges],
                            None if capture is None else capture.targets)
    if needed is not None and not allow_unused:
        capture.check_used(needed)
    run = _Pass(tensor_cls, create_graph, retain_graph, freed_by, deps, needed, capture,
                accumulate)
    run.roots = root_edges
    prev_enabled = mode.enabled
    mode.enabled = create_graph
    tok = _quiet_set(_QUIET)    # quiet(): NumPy warnings off, without the object
    running.append(run)
    try:
        run.execute(root_edges, root_grads)
    finally:
        running.pop()
        _quiet_reset(tok)
        mode.enabled = prev_enabled
    return () if capture is None else capture.finish(run.wrap)


def _edge(t):
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    return (t._grad_accumulator(), 0)


def _call_site(what):
    """'backward() call at script.py:12': the user's line that frees the graph,
    named later if someone tries to use the freed graph again."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_PKG_DIR):
        f = f.f_back
    if f is None:
        return "an earlier %s call" % what
    return "the %s call at %s:%d" % (what, os.path.basename(f.f_code.co_filename), f.f_lineno)


# ---------------------------------------------------------------------------
# step 1: collect
# ---------------------------------------------------------------------------
def _count_deps(roots):
    """Number of edges into each node reachable from ``roots`` (explicit stack).

    A node's entry in ``deps`` doubles as its 'seen' mark.
    """
    deps = {}
    stack = []
    for r in roots:
        if r is not None and r not in stack:
            if r._released:
                raise _errors.graph_freed(r.name(), r._released)
            stack.append(r)
    # a root reached from another root is counted, not walked twice
    visited_roots = set(stack) if len(stack) > 1 else ()
    push, pop, get = stack.append, stack.pop, deps.get
    while stack:
        node = pop()
        rest = node._rest
        for child in ((node._e0,) if rest is _NO_EDGE or not rest
                      else (node._e0,) + rest[::2]):
            if child is None:
                continue
            n = get(child)
            if n is not None:
                deps[child] = n + 1
                continue
            deps[child] = 1
            if child in visited_roots:
                continue
            if child._released:
                raise _errors.graph_freed(child.name(), child._released)
            push(child)
    return deps


def _collect(roots, targets):
    """Dependency counts over the graph reachable from ``roots``.

    With ``targets`` (a set of nodes), only nodes from which a target can be
    reached are kept (pruning for ``autograd.grad``); returns (deps, needed).
    """
    if targets is None:
        return _count_deps(roots), None
    # one depth-first walk (explicit stack): a node is needed when it is a target or
    # one of its children is needed, decided when the walk leaves it (its children
    # are decided by then: the graph has no cycles); the edges from needed nodes
    # into needed children are counted at that moment too
    needed = set()
    deps = {}
    seen = set()
    get = deps.get
    for r in roots:
        if r is None or r in seen:
            continue
        seen.add(r)
        kids = _children(r)
        stack = [(r, kids, iter(kids))]
        while stack:
            node, kids, it = stack[-1]
            for child in it:
                if child is not None and child not in seen:
                    seen.add(child)
                    rest = child._rest
                    ck = ((child._e0,) if rest is _NO_EDGE or not rest
                          else (child._e0,) + rest[::2])
                    stack.append((child, ck, iter(ck)))
                    break
            else:
                stack.pop()
                need = node in targets
                for child in kids:
                    if child in needed:
                        need = True
                        deps[child] = get(child, 0) + 1
                if need:
                    if node._released:
                        raise _errors.graph_freed(node.name(), node._released)
                    needed.add(node)
    return deps, needed


# ---------------------------------------------------------------------------
# step 5 (set up before the pass): what autograd.grad captures
# ---------------------------------------------------------------------------
class _Capture:
    """Where each requested input's gradient is taken: at its leaf's
    ``AccumulateGrad`` (``leaf``) or at a node's output slot (``out``)."""

    __slots__ = ("inputs", "leaf", "out", "targets", "results")

    def __init__(self, inputs):
        self.inputs = inputs
        self.leaf, self.out, self.targets = {}, {}, set()
        self.results = [None] * len(inputs)
        for i, t in enumerate(inputs):
            if t._grad_fn is not None:
                self.out.setdefault((t._grad_fn, t._output_nr), []).append(i)
                self.targets.add(t._grad_fn)
            else:
                acc = t._grad_accumulator()
                self.leaf.setdefault(acc, []).append(i)
                self.targets.add(acc)

    def check_used(self, needed):
        for i, t in enumerate(self.inputs):
            n = t._grad_fn if t._grad_fn is not None else t._grad_accumulator()
            if n not in needed:
                raise _errors.unused_input(i)

    def take_outputs(self, node, grads):
        out = self.out
        for nr, g in enumerate(grads):
            idx = out.get((node, nr))
            if idx:
                for i in idx:
                    self.results[i] = g

    def finish(self, wrap):
        return tuple([wrap(r) if type(r) is _ndarray else r for r in self.results])


# ---------------------------------------------------------------------------
# steps 2-4: one pass
# ---------------------------------------------------------------------------
class _Pass:
    """The state of one backward pass: dependency counts, gradient buffers,
    the ready queue, and how gradients are represented (``arrays``)."""

    def __init__(self, tensor_cls, create_graph, retain_graph, freed_by, deps, needed,
                 capture, accumulate):
        self.tensor_cls = tensor_cls
        self.wrap = tensor_cls._make_plain
        self.create_graph = create_graph
        self.arrays = not create_graph
        self.release = not retain_graph
        self.freed_by = freed_by
        self.deps = deps
        self.needed = needed
        self.capture = capture
        self.accumulate = accumulate
        # anomaly mode as it is now, at backward time (as PyTorch): it checks every
        # node, also those recorded outside it (they have no forward traceback then)
        self.anomaly = _anomaly_state.enabled
        # node -> gradient slots: a list with one entry per output for op nodes;
        # [gradient, owned] for a leaf's AccumulateGrad
        self.buffers = {}

    # -- step 2: schedule ----------------------------------------------------
    def execute(self, root_edges, root_grads):
        buffers, deps, needed = self.buffers, self.deps, self.needed
        arrays = self.arrays
        add = _add_arrays if arrays else _add_tensors
        run_node = self._run_arrays if arrays else self._run_tensors
        capture = self.capture
        capture_out = capture is not None and bool(capture.out)
        release, freed_by = self.release, self.freed_by
        fast = arrays and not self.anomaly
        groot, root_grads = self._graph_root(root_edges, root_grads)
        heap = []       # ready op nodes: (-seq, id, node), the last recorded first
        nxt = groot     # the only ready node, when the heap is empty (a chain)
        while True:
            if nxt is not None:
                node, nxt = nxt, None
            elif heap:
                node = _heappop(heap)[2]
            else:
                break
            if node is groot:
                grads_in, seen = root_grads, (root_grads if arrays else None)
            else:
                # -- step 3: run one node
                grads = buffers.pop(node)
                extra = node._extra
                if extra is not None and (extra.tensor_hooks or extra.retained):
                    grads = self._tensor_hooks(node, grads)
                if capture_out:
                    capture.take_outputs(node, grads)
                if needed is not None and node not in needed:
                    continue
                rule = node.np_backward if fast and extra is None else None
                if rule is not None and len(grads) == 1 and grads[0] is not None:
                    # the common case, inline (it runs once per node): a one-output
                    # node's NumPy rule on arrays, results that already fit
                    gdt = grads[0].dtype
                    grads_in = rule(grads[0])
                    for g in grads_in:
                        if g is not None and (type(g) is not _ndarray or g.dtype is not gdt):
                            grads_in = _fit_arrays(node, grads_in, gdt)
                            break
                    else:
                        metas = node._metas
                        if metas is not _NO_META1 and metas is not _NO_META2 \
                                and metas.count(None) != len(metas):
                            grads_in = _fit_arrays(node, grads_in, gdt)
                    seen = grads
                else:
                    grads_in, seen = run_node(node, grads)
                if release and node.saves:
                    node._release(freed_by)
                del grads
            # -- send each input its gradient (summed with what is there); a node
            # whose last gradient arrived is ready, a leaf accumulates at once
            rest = node._rest
            edges = ((node._e0, node._n0) if rest is _NO_EDGE or not rest
                     else (node._e0, node._n0, *rest))
            for i in range(0, len(edges), 2):
                child = edges[i]
                if child is None or (needed is not None and child not in needed):
                    continue
                nr = edges[i + 1]
                g = grads_in[i >> 1]
                leaf = type(child) is AccumulateGrad
                if g is not None:
                    buf = buffers.get(child)
                    if buf is None:
                        if leaf:
                            buffers[child] = [g, seen is not None and _owned(g, seen, grads_in)]
                        elif child.n_outputs == 1:
                            buffers[child] = [g]
                        else:
                            buf = buffers[child] = [None] * child.n_outputs
                            buf[nr] = g
                    elif leaf:              # a sum the engine made: owned
                        buf[0], buf[1] = add(buf[0], g), True
                    else:
                        buf[nr] = g if buf[nr] is None else add(buf[nr], g)
                d = deps[child] - 1
                deps[child] = d
                if d == 0:
                    if leaf:
                        self._leaf_ready(child)
                        continue
                    if child not in buffers:
                        # nothing flowed into it: its inputs get nothing either
                        buffers[child] = [None] * child.n_outputs
                    if nxt is None and not heap:
                        nxt = child
                    else:
                        if nxt is not None:
                            _heappush(heap, (-_seq(nxt), id(nxt), nxt))
                            nxt = None
                        _heappush(heap, (-_seq(child), id(child), child))
            del grads_in

    def _graph_root(self, root_edges, root_grads):
        """PyTorch's GraphRoot: a first node whose inputs are the roots and whose
        "rule" hands on the root gradients (the user's arrays: never owned).
        Returns it and the root gradients in this pass's representation."""
        deps = self.deps
        groot = _GraphRoot(root_edges)
        for child, _ in root_edges:
            deps[child] = deps.get(child, 0) + 1
        if self.needed is not None:
            self.needed.add(groot)
        return groot, ([g._data for g in root_grads] if self.arrays else list(root_grads))

    def _leaf_ready(self, leaf):
        """A leaf's last gradient arrived: accumulate its sum (if any flowed)."""
        buf = self.buffers.pop(leaf, None)
        if buf is not None:
            self._accumulate_leaf(leaf, buf[0], buf[1])

    # -- step 3: run one node (one function per representation) --------------
    def _run_arrays(self, node, grads):
        """Array pass: the node's NumPy rule on arrays. Returns (fitted gradients
        per input, the arrays the rule saw, or None when user code or a Tensor
        rule produced the gradients, which are then never owned)."""
        rule = node.np_backward
        if node._extra is None and rule is not None and not self.anomaly:
            if len(grads) == 1:
                g = grads[0]
                if g is None:
                    return (None,) * node._n_inputs(), grads
                gdt = g.dtype
            else:
                gdt = _first_dtype(grads)
                if gdt is None:
                    return (None,) * node._n_inputs(), grads
            out = rule(*grads)
            if len(out) == 1:       # one input, fitting already: the common case
                g = out[0]
                if g is None or (type(g) is _ndarray and node._metas[0] is None
                                 and g.dtype is gdt):
                    return out, grads
            return _fit_arrays(node, out, gdt), grads
        # -- boundary: hooks, anomaly checks and Tensor rules see Tensors
        gdt = _first_dtype(grads)
        out = self._call_rule(node, _tensors(grads, self.wrap))
        return _fit_arrays(node, [None if r is None else _as_array(r, m)
                                  for r, m in zip(out, node._metas)], gdt), None

    def _run_tensors(self, node, grads):
        """Tensor pass (create_graph): the node's differentiable rule, recorded."""
        return _fit_tensors(node, self._call_rule(node, grads), self.tensor_cls), None

    def _call_rule(self, node, grads):
        """Pre-hooks, the node's Tensor rule (checked in anomaly mode), its hooks."""
        if node._prehooks:
            for h in tuple(node._prehooks):
                r = h(tuple(grads))
                if r is not None:
                    grads = list(r)
        if (grads[0] is None) if len(grads) == 1 else all(g is None for g in grads):
            return (None,) * node._n_inputs()
        if node.n_outputs > 1 and any(g is None for g in grads):
            grads = _materialize(node, grads, self.wrap)
        checker = None if not self.anomaly else (node._anomaly or _Checker(node, None))
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
        return grad_inputs

    def _tensor_hooks(self, node, grads):
        """Hooks registered on the node's output tensors, and ``retain_grad``."""
        if self.arrays:     # boundary: user code sees Tensors
            return _arrays(_run_tensor_hooks(node, _tensors(grads, self.wrap)))
        return _run_tensor_hooks(node, grads)

    # -- step 4: accumulate into a leaf -----------------------------------------
    def _accumulate_leaf(self, node, g, owned):
        """The leaf's ``AccumulateGrad``: its tensor hooks, then ``.grad`` (or the
        capture for ``grad``/``backward(inputs=...)``), then post-accumulate hooks."""
        if g is None:
            return
        var = node.variable
        capture = self.capture
        if capture is not None:
            idx = capture.leaf.get(node)
            if not idx:
                return          # only the requested inputs receive gradients
            if self.arrays:
                g = self.wrap(g)
            if var._hooks:
                g = _call_hooks(var._hooks, g)
            for i in idx:
                capture.results[i] = g
            if not self.accumulate:
                return
            _accumulate(var, g, self.create_graph, False)   # also returned: never owned
        else:
            if self.arrays:
                if not (var._hooks or var._post_hooks):
                    _accumulate_array(var, g, owned, self.wrap)
                    return
                g = self.wrap(g)    # boundary: hooks see Tensors
            if var._hooks:
                g = _call_hooks(var._hooks, g)
                owned = False       # a hook may keep (or return) the tensor it was given
            _accumulate(var, g, self.create_graph, owned)
        post = var._post_hooks
        if post:
            for h in tuple(post):
                h(var)


class _GraphRoot:
    """The pass's first node (PyTorch's GraphRoot): its edges lead to the roots."""

    __slots__ = ("_e0", "_n0", "_rest")

    def __init__(self, root_edges):
        flat = [x for edge in root_edges for x in edge] or [None, -1]
        self._e0, self._n0, self._rest = flat[0], flat[1], tuple(flat[2:])


def _children(node):
    """The input nodes of ``node`` (None where an input needs no gradient)."""
    rest = node._rest
    return (node._e0,) if rest is _NO_EDGE or not rest else (node._e0,) + rest[::2]


def _seq(node):
    try:
        return node._seq
    except AttributeError:      # a node made outside record(): oldest
        return 0


def _owned(g, seen, grads_in):
    """True when the engine may keep array ``g`` (a rule's result) as a leaf's
    ``.grad``: fresh, writable, not one of the rule's incoming arrays, given
    to one input only."""
    if g.base is not None or not g.flags.writeable:
        return False
    for x in seen:
        if x is g:
            return False
    n = 0
    for x in grads_in:
        if x is g:
            n += 1
    return n == 1


def _first_dtype(grads):
    for g in grads:
        if g is not None:
            return g.dtype
    return None


def _add_arrays(a, b):
    s = a + b
    return s if type(s) is _ndarray else np.asarray(s)   # NumPy gives scalars for 0-d


def _add_tensors(a, b):
    return a + b


def _cast(g, npdt):
    """``g`` in dtype ``npdt``; a complex gradient of a real input is its real part
    (PyTorch's handle_r_to_c)."""
    if g.dtype.kind == "c" and npdt.kind != "c":
        g = g.real
    return g.astype(npdt)


def _fit_arrays(node, out, gdt):
    """Each array gradient made to fit its input: summed to its shape, cast to its
    dtype (rules on arrays can drift in dtype: a Python float times a bool array
    is float64; gradients keep their input's dtype). ``out`` itself when all fit."""
    metas = node._metas
    res = None
    for i, g in enumerate(out):
        if g is None:
            continue
        meta = metas[i]
        if meta is None and type(g) is _ndarray and g.dtype is gdt:
            continue                        # the common case: nothing to do
        if type(g) is not _ndarray:         # NumPy gives scalars for 0-d
            g = _asarray(g) if isinstance(g, _generic) else _as_array(g, meta)
        if meta is not None:
            shape, npdt = meta
            if g.shape != shape:
                g = _sum_to(g, shape, node, i)
            if g.dtype != npdt:
                g = _cast(g, npdt)
        elif g.dtype != gdt:
            g = _cast(g, gdt)
        if res is None:
            res = list(out)
        res[i] = g
    return out if res is None else res


def _fit_tensors(node, out, tensor_cls):
    """Each Tensor gradient made to fit its input (meta None: the input had the
    output's shape and dtype, the common elementwise case)."""
    metas = node._metas
    res = []
    for i, g in enumerate(out):
        if g is not None:
            meta = metas[i]
            if not isinstance(g, tensor_cls):
                g = tensor_cls._wrap_grad(g, meta)
            if meta is not None:
                shape, npdt = meta
                gd = g._data
                if gd.shape != shape:
                    g = _fit_shape(g, shape, node, i)
                if gd.dtype != npdt:
                    if gd.dtype.kind == "c" and npdt.kind != "c":
                        g = g.real      # PyTorch's handle_r_to_c
                    g = g.to(from_numpy_dtype(npdt))
        res.append(g)
    return res
