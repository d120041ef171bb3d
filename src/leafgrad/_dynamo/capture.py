"""Capture and replay: a compiled call's NumPy program, recorded once, run again.

**Capture** (``capture``): the call runs eagerly while ``ops._trace.tape[0]`` is a
:class:`Tape`. Every op that can be replayed reports its NumPy kernel, its operands and
its result tensor; the tape names each array by its role (a slot): an input tensor's
array, a parameter's or buffer's, or an earlier op's result. Constants (numbers, dims,
reduction names) are kept as they are. After the call, the graph the call recorded is
walked from the outputs: each node is either a reported op's node or a helper node
(``TBackward0`` in front of a linear layer's weight), and everything it saved (tensors,
its result, its constants) must be a slot or a constant. Its copy (a *template* node,
whose saved tensors are holder tensors rebound on each backward) replays its rule.

The entry stays eager (correct, not faster; the reason is kept) when anything falls
outside that: an op that does not report (batch_norm, dropout, views, indexing, a custom
``autograd.Function``, ...), an array of unknown origin (a tensor made inside the call,
a closure's tensor, a cast), an in-place change of any tensor, a draw from the default
generator, forward AD, saved-tensor hooks, module hooks, anomaly mode, an output that is
not an op's result.

**Replay** (:meth:`Program.replay`): the kernels run on the slots' arrays in the
recorded order (the same NumPy calls as eager, so the same bits); the outputs are
tensors whose ``grad_fn`` is one :class:`CompiledFunctionBackward` node with an edge to
every input and parameter that the backward reaches. Its rule runs the templates' rules
in the engine's order (ready first, then the highest sequence number: the order the
engine's ready queue gives, ``_engine_order``) with the engine's own calls (``_Pass._run_arrays``: the rule, the fitting of
shapes and dtypes) and sums gradients meeting at one slot in the engine's arrival order;
the engine then accumulates them into ``.grad`` as it does for any node (hooks,
``retain_graph``, ``zero_grad``, optimizers unchanged). Under ``create_graph=True`` it
raises PyTorch's error (a compiled graph has no double backward).
"""
import heapq

import numpy as np

from .._core import errors as _errors
from .._core.quiet import _IGNORE, _reset, _set
from .._random.generator import default_generator as _gen
from .._tensor.tensor import Tensor, _sync_view as _sync
from ..autograd import engine as _engine, grad_mode
from ..autograd._fw_state import active as _fw_level
from ..autograd.anomaly_mode import _State as _anomaly
from ..autograd.engine import _fit_arrays
from ..autograd.graph import _NO_META1, _NO_META2, AccumulateGrad, next_seq as _next_seq
from ..autograd.saved_hooks import active as _saved_hooks
from ..ops import _trace
from ..ops._dispatch import _save
from ..ops._registry import node as _node_class

_ndarray = np.ndarray
_new = object.__new__
_make_plain = Tensor._make_plain
_make_nonleaf = Tensor._make_nonleaf
_CONST = (type(None), bool, int, float, complex, str, np.dtype)
_HELPERS = ("TBackward0",)      # nodes an op records beside its own (linear's weight edge)
_add = _engine._add_arrays


class Unreplayable(Exception):
    """Why a capture stays eager (its message is the reason kept on the entry)."""


def _const(v):
    if isinstance(v, _CONST) or isinstance(v, np.generic):
        return True
    if type(v) is tuple:
        return all(_const(x) for x in v)
    return False


class _Step:
    __slots__ = ("kernel", "consts", "slots", "out", "aux", "res", "v0")


class Tape:
    """What one capturing call's ops reported (``ops._trace``)."""

    def __init__(self):
        self.slot_of = {}       # id(array) -> slot
        self.arrays = []        # the arrays named so far (alive: their ids stay unique)
        self.steps = []
        self.failed = None
        self.reported = set()   # the nodes of every op that reported (for the reasons)
        self.aliases = []       # results that are another tensor over a named array
        self.ext_index = {}     # id(parameter or buffer) -> its index among the externals
        self.bumps = {}         # external index -> versions its reported updates add

    def name(self, arr):
        if id(arr) in self.slot_of:
            raise Unreplayable("one array is two of the call's tensors (an input passed "
                               "twice, or a parameter passed as an input)")
        self.slot_of[id(arr)] = len(self.arrays)
        self.arrays.append(arr)
        return len(self.arrays) - 1

    def op(self, kernel, operands, res, aux=False):
        fn = getattr(res, "_grad_fn", None)
        if fn is not None:
            self.reported.add(id(fn))
        if self.failed is not None:
            return
        name = getattr(kernel, "__name__", "?").strip("_")
        name = name[:-3] if name.endswith("_np") else name[:-7] if name.endswith("_kernel") \
            else name
        if kernel is None:
            self.failed = "an op took a path that is not replayed (a dtype cast or promotion)"
            return
        if not isinstance(res, Tensor) or type(res._data) is not _ndarray:
            self.failed = "%s gave no plain tensor" % name
            return
        r = self._operands(name, operands)
        if r is None:
            return
        st = _Step()
        st.kernel, st.aux, st.res, st.v0 = kernel, aux, res, res._version
        st.consts, st.slots = r
        if id(res._data) in self.slot_of:
            self.failed = "%s returned one of its operands' arrays" % name
            return
        st.out = self.name(res._data)
        if aux:
            self.arrays.append(None)        # the slot of the node's args
        self.steps.append(st)

    def _operands(self, name, operands):
        consts, slots = [], []
        for k, a in enumerate(operands):
            if type(a) is _ndarray:
                s = self.slot_of.get(id(a))
                if s is None:
                    self.failed = ("an operand of %s does not come from the call's inputs, "
                                   "parameters, buffers or a recorded op" % name)
                    return None
                slots.append((k, s))
                consts.append(None)
            elif _const(a):
                consts.append(a)
            else:
                self.failed = "an operand of %s is a %s" % (name, type(a).__name__)
                return None
        return consts, tuple(slots)

    def effect(self, kernel, operands, bumped):
        """An in-place update of buffers (BatchNorm's running statistics): ``kernel`` changes
        its array operands; the tensors ``bumped`` (buffers of the module) get a version."""
        if self.failed is not None:
            return
        name = kernel.__name__.strip("_")
        r = self._operands(name, operands)
        if r is None:
            return
        ks = []
        for t in bumped:
            k = self.ext_index.get(id(t))
            if k is None:
                self.failed = "%s changes a tensor that is not a parameter or buffer" % name
                return
            ks.append(k)
            self.bumps[k] = self.bumps.get(k, 0) + 1
        st = _Step()
        st.kernel, (st.consts, st.slots), st.out, st.aux, st.res = kernel, r, -1, tuple(ks), None
        self.steps.append(st)

    def alias(self, res):
        """``res`` is another tensor over an array already named (``_named``'s node)."""
        fn = getattr(res, "_grad_fn", None)
        if fn is not None:
            self.reported.add(id(fn))
        s = self.slot_of.get(id(res._data))
        if self.failed is None and s is not None:
            st = _Step()
            st.kernel, st.out, st.aux, st.res, st.v0 = None, s, False, res, res._version
            self.aliases.append(st)

    def fail(self, reason):
        if self.failed is None:
            self.failed = reason


def flat_tensors(args, kwargs):
    """The tensors among the call's arguments, in the guard's order."""
    out = []

    def walk(a):
        if isinstance(a, Tensor):
            out.append(a)
        elif isinstance(a, (tuple, list)):
            for x in a:
                walk(x)
        elif isinstance(a, dict):
            for x in a.values():
                walk(x)
    walk(args)
    walk(kwargs)
    return out


def _module_tensors(module):
    if module is None:
        return []
    seen, out = set(), []
    for m in module.modules():
        d = m.__dict__
        if (d["_forward_hooks"] or d["_forward_pre_hooks"] or d["_backward_hooks"]
                or d["_backward_pre_hooks"]):
            raise Unreplayable("module hooks (they run in Python on each call)")
        for group in (d["_parameters"], d["_buffers"]):
            for t in group.values():
                if t is not None and id(t) not in seen:
                    seen.add(id(t))
                    out.append(t)
    return out


def _rng_state():
    bg = _gen._bg
    if bg is None:
        return (_gen._seed, None)
    st = bg.state["state"]
    return (_gen._seed, int(st["pos"]), st["key"].tobytes(), _gen.next_double_normal,
            _gen.next_float_normal)


def capture(fn, args, kwargs, module):
    """Run ``fn(*args, **kwargs)`` eagerly while recording; returns (output, Program or
    None, the reason it stays eager or None)."""
    inputs = flat_tensors(args, kwargs)
    tape = Tape()
    reason = None
    try:
        if _trace.tape[0] is not None:
            raise Unreplayable("a compiled call inside another one's capture")
        if _fw_level[0] is not None:
            raise Unreplayable("forward-mode AD is active")
        if _saved_hooks[0]:
            raise Unreplayable("saved_tensors_hooks are active")
        if _anomaly.enabled:
            raise Unreplayable("anomaly mode is on")
        if grad_mode.is_inference_mode_enabled():
            raise Unreplayable("inference_mode is on")
        params = _module_tensors(module)
        for t in inputs + params:
            tape.name(t._data)
        tape.ext_index = {id(t): k for k, t in enumerate(inputs + params)}
        versions = [t._version for t in inputs + params]
        rng = _rng_state()
    except Unreplayable as e:
        return fn(*args, **kwargs), None, str(e)
    _trace.tape[0] = tape
    try:
        out = fn(*args, **kwargs)
    finally:
        _trace.tape[0] = None
    try:
        if _rng_state() != rng:
            raise Unreplayable("a draw from the random generator (dropout, rand, ...)")
        if tape.failed is not None:
            raise Unreplayable(tape.failed)
        if [t._version - tape.bumps.get(k, 0) for k, t in enumerate(inputs + params)] \
                != versions:
            raise Unreplayable("an in-place change of an input, parameter or buffer")
        for st in tape.steps + tape.aliases:
            if st.res is not None and st.res._version != st.v0:
                raise Unreplayable("an in-place change of an intermediate result")
        prog = Program(tape, inputs, params, out)
    except Unreplayable as e:
        reason = str(e)
        missing = _unreported(tape, out)
        if missing:
            reason += " (not replayed: %s)" % ", ".join(missing)
        return out, None, reason
    return out, prog, None


def _unreported(tape, out):
    """The names of the graph's nodes that no reported op made (for the reason)."""
    known = tape.reported
    names, seen = [], set()
    stack = [t._grad_fn for t in flat_tensors(out, {}) if t._grad_fn is not None]
    while stack:
        n = stack.pop()
        if id(n) in seen or type(n) is AccumulateGrad:
            continue
        seen.add(id(n))
        if id(n) not in known and n.name() not in _HELPERS and n.name() not in names:
            names.append(n.name())
        stack.extend(c for c, _ in n.next_functions if c is not None)
    return names


def _double_backward(ctx, *grads):
    if grad_mode.mode.enabled:
        raise RuntimeError("torch.compile with aot_autograd does not currently support double "
                           "backward. Fix: compute the higher-order gradient with the module "
                           "itself (model._orig_mod), not the compiled one")
    return tuple(_backward(ctx, [None if g is None else g._data for g in grads]))


def _np_backward(ctx, *grads):
    return tuple(_backward(ctx, grads))


def _backward(ctx, grads):
    if ctx._released:
        raise _errors.graph_freed(ctx.name(), ctx._released)
    for t, v in ctx._vers:
        if t._version != v:
            raise RuntimeError(_errors.saved_modified(tuple(t.shape), ctx.name(), v,
                                                      t._version))
    for vc in ctx._outvc:
        if vc[0]:
            raise RuntimeError(_errors.saved_modified((), ctx.name(), 0, vc[0]))
    return ctx._prog.backward(ctx._env, grads)


def _release(self, freed_by=True):
    self._released = freed_by or True
    self._env = None


CompiledFunctionBackward = _node_class(
    "CompiledFunctionBackward", _double_backward, saves=True, np_backward=_np_backward,
    slots=("_prog", "_env", "_vers", "_outvc", "n_outputs"), _release=_release)


class Program:
    """A capture's forward steps and backward templates; ``replay`` runs them."""

    def __init__(self, tape, inputs, params, out):
        self.n_slots = len(tape.arrays)
        self.n_inputs = len(inputs)
        self.params = params                    # read afresh on each call
        self.steps = [(st.kernel, st.consts, st.slots, st.out, st.aux) for st in tape.steps]
        step_of = {id(st.res): st for st in tape.steps + tape.aliases if st.res is not None}
        # the outputs: a structure of op results (and constants)
        leaves = []
        self.out_spec = self._spec(out, step_of, leaves)
        self.out_slots = [st.out for st in leaves]
        self.out_grad = [st.res._requires_grad for st in leaves]
        self.graph = any(self.out_grad)
        if self.graph:
            self._backward_program(tape, inputs, params, leaves)

    def _spec(self, out, step_of, leaves):
        if isinstance(out, Tensor):
            st = step_of.get(id(out))
            if st is None or out._base is not None or any(x is st for x in leaves):
                raise Unreplayable("an output is not the result of a recorded op (an input, "
                                   "a view, or the same tensor twice)")
            leaves.append(st)
            return ("t", len(leaves) - 1)
        if type(out) in (tuple, list):
            return (type(out), [self._spec(x, step_of, leaves) for x in out])
        if type(out) is dict:
            return (dict, [(k, self._spec(v, step_of, leaves)) for k, v in out.items()])
        if _const(out):
            return ("c", out)
        raise Unreplayable("the call returns a %s" % type(out).__name__)

    # -- capture: the backward program -----------------------------------------
    def _backward_program(self, tape, inputs, params, leaves):
        slot_of = tape.slot_of
        ext = inputs + params
        # the edges into the world outside: a leaf's AccumulateGrad, an input's grad_fn
        ext_key = {}
        for k, t in enumerate(ext):
            if t._requires_grad:
                key = (t._grad_fn, t._output_nr) if t._grad_fn is not None else \
                    (t._grad_accumulator(), 0)
                ext_key.setdefault((id(key[0]), key[1]), k)
        aux_of = {id(st.res._grad_fn): st.out + 1 for st in tape.steps if st.aux is True}
        known = {id(st.res._grad_fn) for st in tape.steps + tape.aliases
                 if st.res is not None and st.res._grad_fn is not None}
        nodes, seen = [], set()
        stack = [st.res._grad_fn for st, g in zip(leaves, self.out_grad) if g]
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            if id(n) not in known and n.name() not in _HELPERS:
                raise Unreplayable("the graph holds %s, which no recorded op made" % n.name())
            if n._extra is not None:
                raise Unreplayable("a hook on an intermediate node")
            nodes.append(n)
            for c, nr in n.next_functions:
                if c is not None and (id(c), nr) not in ext_key:
                    if type(c) is AccumulateGrad:
                        raise Unreplayable("the graph reaches a leaf tensor that is neither an "
                                           "input nor a parameter (a closure's or global tensor)")
                    stack.append(c)
        nodes = _engine_order(nodes)
        index = {id(n): i for i, n in enumerate(nodes)}
        self.templates, self.edges, self.binds, self.n_out = [], [], [], []
        used_ext = []       # ext indices with an edge, in order of first use
        ext_pos = {}
        saved_ext = set()
        # a view's slot -> its base's (an in-place change of the base shows in the view)
        view_of = {st.out: st.slots[0][1] for st in tape.steps
                   if getattr(st.kernel, "__name__", "") == "_reshape_np"}
        n_ext = len(inputs)
        for n in nodes:
            tm = _new(type(n))
            tm.needs_input_grad, tm._metas, tm._released, tm._extra = \
                n.needs_input_grad, n._metas, False, None
            tm._seq, tm._out_version = n._seq, None
            # no edges (the program keeps its own): only their count is read
            tm._e0, tm._n0, tm._rest = None, n._n0, (None, 0) * (len(n._rest) >> 1)
            bind = []       # (what, slot): holders' arrays, the result, the args
            raw = n._raw_saved()
            holders = None
            if raw is not None:
                holders = []
                for v in raw:
                    if isinstance(v, Tensor):
                        s = slot_of.get(id(v._data))
                        if s is None:
                            raise Unreplayable("%s saved a tensor of unknown origin" % n.name())
                        h = _make_plain(v._data)
                        bind.append((0, h, s))
                        holders.append(h)
                        b = s
                        while b in view_of:
                            b = view_of[b]
                        if b < len(ext):
                            saved_ext.add(b)
                    elif _const(v):
                        holders.append(v)
                    else:
                        raise Unreplayable("%s saved a %s" % (n.name(), type(v).__name__))
                _save(tm, tuple(holders))
            else:
                tm._saved = None
            tm._out = None
            if n._out is not None:
                s = slot_of.get(id(n._out))
                if s is None:
                    raise Unreplayable("%s saved a result of unknown origin" % n.name())
                bind.append((1, None, s))
            if id(n) in aux_of:
                bind.append((2, None, aux_of[id(n)]))
                tm.args = None
            else:
                if not _const(n.args):
                    raise Unreplayable("%s keeps a %s" % (n.name(), type(n.args).__name__))
                tm.args = n.args
            targets = []
            for c, nr in n.next_functions:
                if c is None:
                    targets.append(None)
                elif id(c) in index:
                    targets.append((0, index[id(c)], nr))
                else:
                    k = ext_key[(id(c), nr)]
                    if k not in ext_pos:
                        ext_pos[k] = len(used_ext)
                        used_ext.append(k)
                    targets.append((1, ext_pos[k], 0))
            self.templates.append(tm)
            self.edges.append(targets)
            self.binds.append(bind)
            self.n_out.append(n.n_outputs)
        self.used_ext = used_ext
        # per template: its NumPy rule (None: the engine's general path), whether the
        # engine would fit its gradients (inputs of other shapes or dtypes), its bindings
        self.plan = [(tm, type(tm).np_backward, tm._metas is not _NO_META1
                      and tm._metas is not _NO_META2
                      and tm._metas.count(None) != len(tm._metas), b, e)
                     for tm, b, e in zip(self.templates, self.binds, self.edges)]
        self.ext_metas = tuple((ext[k]._data.shape, ext[k]._data.dtype) for k in used_ext)
        self.saved_ext = sorted(saved_ext)
        # where each differentiable output's gradient enters
        self.entry = [(index[id(st.res._grad_fn)], st.res._output_nr)
                      for st, g in zip(leaves, self.out_grad) if g]
        self.saved_outs = [k for k, (st, g) in enumerate(zip(leaves, self.out_grad))
                           if g and any(s == st.out for b in self.binds for _, _, s in b)]
        self.n_ext = n_ext
        self._pass = _engine._Pass(Tensor, False, True, None, {}, None, None, True)

    # -- replay ------------------------------------------------------------------
    def replay(self, inputs):
        env = [None] * self.n_slots
        k = 0
        for t in inputs:
            env[k] = t._data
            k += 1
        for t in self.params:
            env[k] = t._data
            k += 1
        params, n_in = self.params, self.n_inputs
        tok = _set(_IGNORE)
        try:
            for kernel, consts, slots, out, aux in self.steps:
                argv = list(consts)
                for p, s in slots:
                    argv[p] = env[s]
                r = kernel(*argv)
                if out < 0:             # an in-place update of buffers, then their versions
                    for k in aux:
                        (inputs[k] if k < n_in else params[k - n_in])._bump_version()
                    continue
                if aux:
                    r, env[out + 1] = r
                env[out] = r if type(r) is _ndarray else np.asarray(r)
        finally:
            _reset(tok)
        if self.graph and grad_mode.mode.enabled:
            return self._outputs_with_node(env, inputs)
        outs = [_make_plain(env[s]) for s in self.out_slots]
        return _build(self.out_spec, outs)

    def _outputs_with_node(self, env, inputs):
        ext = list(inputs) + self.params
        node = _new(CompiledFunctionBackward)
        flat = []
        for k in self.used_ext:
            t = ext[k]
            if t._base is not None and t._vmeta[0] != t._vc[0]:
                _sync(t)
            fn = t._grad_fn
            flat += (fn, t._output_nr) if fn is not None else (t._grad_accumulator(), 0)
        node._e0, node._n0, node._rest = flat[0], flat[1], tuple(flat[2:])
        node.needs_input_grad = (True,) * len(self.used_ext)
        node._metas = self.ext_metas
        node._saved = node._out = node._out_version = node._extra = node.args = None
        node._released = False
        node._seq = _next_seq()
        node._prog, node._env = self, env
        node._vers = [(ext[s], ext[s]._version) for s in self.saved_ext]
        outs, nr, outvc = [], 0, []
        for k, (s, g) in enumerate(zip(self.out_slots, self.out_grad)):
            if g:
                t = _make_nonleaf(env[s], node, nr)
                nr += 1
                if k in self.saved_outs:    # backward reads it: watch in-place changes
                    t._vc = [0]
                    outvc.append(t._vc)
            else:
                t = _make_plain(env[s])
            outs.append(t)
        node.n_outputs = nr
        node._outvc = outvc
        return _build(self.out_spec, outs)

    def backward(self, env, grads):
        """The gradients of the used inputs and parameters, from the outputs' ``grads``
        (arrays or None), by the templates' rules in the engine's order."""
        bufs = [None] * len(self.templates)
        for (i, nr), g in zip(self.entry, grads):
            if g is None:
                continue
            b = bufs[i]
            if b is None:
                b = bufs[i] = [None] * self.n_out[i]
            b[nr] = g if b[nr] is None else _add(b[nr], g)
        ext = [None] * len(self.used_ext)
        run = self._pass._run_arrays
        for i, (tm, rule, fit, bind, edges) in enumerate(self.plan):
            grads_i = bufs[i]
            if grads_i is None:
                continue
            bufs[i] = None
            for what, h, s in bind:
                if what == 0:
                    h._data = env[s]
                elif what == 1:
                    tm._out = env[s]
                else:
                    tm.args = env[s]
            g0 = grads_i[0]
            if rule is not None and g0 is not None and len(grads_i) == 1:
                # the engine's inline path (engine.py, step 3): the rule, then the fitting
                gdt = g0.dtype
                grads_in = rule(tm, g0)
                if fit:
                    grads_in = _fit_arrays(tm, grads_in, gdt)
                else:
                    for g in grads_in:
                        if g is not None and (type(g) is not _ndarray or g.dtype is not gdt):
                            grads_in = _fit_arrays(tm, grads_in, gdt)
                            break
            else:
                grads_in, _ = run(tm, grads_i)
            for tgt, g in zip(edges, grads_in):
                if tgt is None or g is None:
                    continue
                kind, j, nr = tgt
                if kind:
                    ext[j] = g if ext[j] is None else _add(ext[j], g)
                else:
                    b = bufs[j]
                    if b is None:
                        b = bufs[j] = [None] * self.n_out[j]
                    b[nr] = g if b[nr] is None else _add(b[nr], g)
        for i, tm in enumerate(self.templates):     # no arrays of this call kept
            for what, h, s in self.binds[i]:
                if what == 0:
                    h._data = None
                elif what == 1:
                    tm._out = None
        return ext


def _engine_order(nodes):
    """``nodes`` in the order the engine runs them: a node is ready once every node that
    feeds it ran; among ready nodes the highest sequence number first (engine.py, step
    2). Not simply descending sequence numbers: linear's TBackward0 is recorded after
    the node that feeds it."""
    ids = {id(n) for n in nodes}
    deps = dict.fromkeys(ids, 0)
    for n in nodes:
        for c, _ in n.next_functions:
            if c is not None and id(c) in ids:
                deps[id(c)] += 1
    heap = [(-n._seq, id(n), n) for n in nodes if deps[id(n)] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        n = heapq.heappop(heap)[2]
        order.append(n)
        for c, _ in n.next_functions:
            if c is not None and id(c) in ids:
                deps[id(c)] -= 1
                if deps[id(c)] == 0:
                    heapq.heappush(heap, (-c._seq, id(c), c))
    return order


def _build(spec, outs):
    kind, v = spec
    if kind == "t":
        return outs[v]
    if kind == "c":
        return v
    if kind is dict:
        return {k: _build(s, outs) for k, s in v}
    return kind(_build(s, outs) for s in v)
