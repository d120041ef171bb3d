"""Graph nodes: ``Node`` (a recorded op's backward function) and ``AccumulateGrad``.

A node is what ``tensor.grad_fn`` returns. It holds the edges to the nodes
of its inputs (``next_functions``, as in PyTorch), the tensors it saved for
its vector-Jacobian product, and the metadata (shape, NumPy dtype) of each
input, which the engine uses to sum a broadcast gradient back to the input's
shape and cast it to the input's dtype.

Each op's node class is declared next to its forward in ``leafgrad.ops``;
its ``backward(ctx, *grad_outputs)`` returns one gradient (or ``None``) per
input and is written with leafgrad ops, so ``create_graph=True`` records it.
"""
import functools
import itertools
import types
import weakref

from .._core import errors as _errors
from . import _saved_names as _torch_names


__all__ = ["Node", "AccumulateGrad", "RemovableHandle", "register_multi_grad_hook"]

# PyTorch's sequence_nr: one increasing number per recorded node; the engine
# runs the ready node with the highest number first (see engine.py, step 2).
next_seq = itertools.count(1).__next__

# The rest-of-edges of a binary op with a number on one side (shared: no tuple per node)
_NO_EDGE = (None, 0)
# The input metadata of a node whose inputs all have the output's shape and dtype
# (shared; ops/_dispatch.py sets them, the engine then has nothing to fit)
_NO_META1 = (None,)
_NO_META2 = (None, None)

# The Tensor class, given by leafgrad._tensor.tensor through ``use_tensor_class``
# (this module sits below it and cannot import it): ``Node.result`` builds one.
_tensor_cls = None


def use_tensor_class(cls):
    """Tell the graph which class ``Node.result`` builds (called once, by _tensor)."""
    global _tensor_cls
    _tensor_cls = cls


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks, fn):
        self._hooks, self._fn = hooks, fn

    def remove(self):
        try:
            self._hooks.remove(self._fn)
        except ValueError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _NodeExtra:
    __slots__ = ("tensor_hooks", "retained", "hooks", "prehooks", "anomaly")

    def __init__(self):
        self.tensor_hooks = self.retained = self.hooks = self.prehooks = self.anomaly = None


class Node:
    """Base of every backward function (``MulBackward0``, ``SumBackward1``, ...).

    Attributes:
        next_functions: tuple of ``(node or None, output_nr)``, one per input.
        needs_input_grad: tuple of bools, one per input.
        args: op-specific constants the rule needs (dims, shapes, ...).
    """

    # Saved tensors: ``_saved`` is None (nothing), a tuple, or 1 / 2: that many saved
    # values in the slots ``_s0``/``_s1`` (the common unary and binary cases: one
    # object less per node for the garbage collector to walk). ``_raw_saved()`` reads them.
    __slots__ = ("_e0", "_n0", "_rest", "needs_input_grad", "_metas", "_saved", "_s0", "_s1",
                 "_versions_saved", "_out", "_out_version", "args", "_released", "_extra", "_seq",
                 "__weakref__")
    n_outputs = 1
    # Optional fast rule on ndarrays, used when the backward pass is not itself
    # recorded (create_graph=False): np_backward(ctx, *grad_arrays) -> arrays.
    np_backward = None
    saves = False           # True when backward() reads saved tensors (freed after backward)

    def __init__(self):
        self._saved = None
        self._out = self._out_version = None
        self._released = False
        self._extra = None
        self._seq = next_seq()

    # Hooks, retained grads and anomaly data are rare: they live in one
    # ``_extra`` object, created on first use, so that recording a node sets
    # one slot instead of five and the engine tests one attribute per node.
    def _get_extra(self):
        ex = self._extra
        if ex is None:
            ex = self._extra = _NodeExtra()
        return ex

    _tensor_hooks = property(lambda self: self._extra and self._extra.tensor_hooks,
                             lambda self, v: setattr(self._get_extra(), "tensor_hooks", v))
    _retained = property(lambda self: self._extra and self._extra.retained,
                         lambda self, v: setattr(self._get_extra(), "retained", v))
    _hooks = property(lambda self: self._extra and self._extra.hooks,
                      lambda self, v: setattr(self._get_extra(), "hooks", v))
    _prehooks = property(lambda self: self._extra and self._extra.prehooks,
                         lambda self, v: setattr(self._get_extra(), "prehooks", v))
    _anomaly = property(lambda self: self._extra and self._extra.anomaly,
                        lambda self, v: setattr(self._get_extra(), "anomaly", v))

    # Edges: the first one in two slots (``_e0``: node or None, ``_n0``: its output
    # number; ``_n0 = -1``: no inputs at all), the others flat in ``_rest``
    # (node1, nr1, node2, nr2, ...; the shared ``()`` or ``(None, 0)`` for most ops).
    # A one-input node, or a binary op with a number on one side, is then one
    # object for the garbage collector to walk instead of two (deep graphs).
    # ``_edges`` (all of them flat) and ``next_functions`` are built on demand.
    @property
    def _edges(self):
        """All edges flat: (node0, nr0, node1, nr1, ...)."""
        if self._n0 < 0:
            return ()
        return (self._e0, self._n0) + self._rest

    @_edges.setter
    def _edges(self, flat):
        flat = tuple(flat)
        if flat:
            self._e0, self._n0 = flat[0], flat[1]
            self._rest = _NO_EDGE if flat[2:] == _NO_EDGE else flat[2:]
        else:
            self._e0, self._n0, self._rest = None, -1, ()

    def _n_inputs(self):
        return 0 if self._n0 < 0 else 1 + (len(self._rest) >> 1)

    @property
    def next_functions(self):
        """tuple of ``(node or None, output_nr)``, one per input (as PyTorch)."""
        e = self._edges
        return tuple([(e[i], e[i + 1]) for i in range(0, len(e), 2)])

    @next_functions.setter
    def next_functions(self, edges):
        self._edges = [x for edge in edges for x in edge]

    def name(self):
        """The node's PyTorch name, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    @property
    def requires_grad(self):
        """PyTorch's ``Node.requires_grad``: whether any input needs a gradient."""
        return any(self.needs_input_grad)

    def _sequence_nr(self):
        """PyTorch's ``Node._sequence_nr()``: the recording order the engine schedules by."""
        return self._seq

    # ``grad_fn._saved_self``, ``_saved_other``, ``_saved_result``, ``_raw_saved_self``:
    # PyTorch's names for what a node saved, as properties (``_saved_property``): on Node
    # for the usual names, on each subclass for its own (``__init_subclass__``). Not a
    # ``__getattr__``: on CPython 3.11 a class with one gets no specialised attribute
    # reads, and the engine reads node attributes ~15 times per node.
    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        _add_saved_properties(cls, getattr(cls, "saved_names", None)
                              or _SAVED_NAMES.get(cls.__name__, ()))
        _add_constant_properties(cls)

    def __dir__(self):
        # as PyTorch's node: only the _saved_* names this node has (not the shared
        # properties that answer AttributeError here)
        return [n for n in super().__dir__()
                if not n.startswith(("_saved_", "_raw_saved_")) or _answers(self, n)]

    def __repr__(self):
        return "<%s object at 0x%x>" % (type(self).__name__, id(self))

    # -- saved tensors -------------------------------------------------------
    def save_for_backward(self, *tensors):
        self._versions_saved = tuple(t._version if hasattr(t, "_vc") else None for t in tensors)
        if _saved_hooks.active[0]:
            tensors = _saved_hooks.pack_saved(tensors, _tensor_cls)
        self._saved = tensors

    def _raw_saved(self):
        """What was saved, as a tuple (packed by hooks or not), or None; no checks."""
        saved = self._saved
        if type(saved) is int:
            return (self._s0, self._s1) if saved == 2 else (self._s0,)
        return saved

    @property
    def _checked_saved(self):
        """The tensors saved at forward time; raises once the graph was freed,
        or when one of them was modified in place since. Private: PyTorch's built-in
        nodes have no ``saved_tensors`` (libraries such as torchviz probe for it and
        read ``_saved_*`` instead); a custom Function's ctx has it
        (``autograd/function.py``)."""
        if self._released:
            raise _errors.graph_freed(self.name(), self._released)
        saved = self._saved
        if saved is None:
            return ()
        if type(saved) is int:
            # one or two values in slots (never packed: hooks keep a tuple); the
            # common case, without the loop below
            s0 = self._s0
            vs = self._versions_saved
            v = vs[0]
            if v is None or (0 if s0._vc is None else s0._vc[0]) == v:
                if saved == 1:
                    return (s0,)
                s1 = self._s1
                v = vs[1]
                if v is None or (0 if s1._vc is None else s1._vc[0]) == v:
                    return (s0, s1)
            saved = (s0, self._s1) if saved == 2 else (s0,)
        packed = False
        for t, v in zip(saved, self._versions_saved):
            if type(t) is _Packed:      # saved through hooks: unpacked below
                packed = True
            elif v is not None:
                vc = t._vc
                if (0 if vc is None else vc[0]) != v:
                    fn = t._grad_fn
                    raise _errors.saved_modified(
                        t.shape, self.name(), v, t._version, _type_name(t),
                        None if fn is None else (t._output_nr, type(fn).__name__))
        if packed:
            return _saved_hooks.unpack_all(saved)
        return saved

    @property
    def result(self):
        """The op's output, as a tensor whose grad_fn is this node (so a rule
        that uses it can itself be differentiated)."""
        if self._released:
            raise _errors.graph_freed(self.name(), self._released)
        if self._out is None:
            # nothing saved: an attribute error (a custom Function's ctx then finds
            # its own ``ctx.result`` in its __getattr__)
            raise AttributeError("result")
        t = _tensor_cls._make_nonleaf(self._out, self, 0)
        ov = self._out_version
        if ov is not None:
            # (the output's version counter, its version when saved): set when the
            # output first got a counter (Tensor._new_counter) or an in-place op
            # re-pointed the output; None: the output has had no in-place change
            counter, saved = ov
            if counter[0] != saved:
                raise _errors.saved_modified(t.shape, self.name(), saved, counter[0],
                                             _type_name(t))
        return t

    def saved_arrays(self):
        """``_checked_saved`` as ndarrays (numbers stay numbers), for NumPy rules."""
        saved = self._checked_saved
        return tuple([t._data if isinstance(t, _tensor_cls) else t for t in saved])

    def result_array(self):
        """The saved output as an ndarray (same checks as ``result``)."""
        if self._released:
            raise _errors.graph_freed(self.name(), self._released)
        ov = self._out_version
        if ov is not None and ov[1] != ov[0][0]:
            return self.result._data      # raises with the full message
        return self._out

    def _release(self, freed_by=True):
        """Drop saved tensors; ``freed_by`` describes the call that freed them."""
        if self.saves:
            self._released = freed_by or True
            self._saved = self._s0 = self._s1 = None
            self._out = None

    # -- hooks ---------------------------------------------------------------
    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return RemovableHandle(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return new grad_outputs."""
        if self._prehooks is None:
            self._prehooks = []
        self._prehooks.append(fn)
        return RemovableHandle(self._prehooks, fn)

    def _add_tensor_hook(self, output_nr, fn):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        hooks = self._tensor_hooks.setdefault(output_nr, [])
        hooks.append(fn)
        return RemovableHandle(hooks, fn)

    @property
    def metadata(self):
        return {}

    def backward(self, *grads):  # pragma: no cover - every node overrides it
        raise NotImplementedError


# PyTorch's names for the saved tensors of nodes (_saved_names.py: () for a node whose
# PyTorch counterpart saves no tensor; not listed: "self", "other" by position)
_SAVED_NAMES = {k: v[0] for k, v in _torch_names.TORCH_NAMES.items()}


def own_copy(fn, **kwdefaults):
    """``fn`` with a code object of its own (and these keyword-only defaults).

    Why: CPython (3.11+) specialises each attribute read and store of a bytecode
    instruction for one type. Code shared by many node classes (the recording functions,
    a factory's rules, ``_checked_saved``) sees a different class at the same instruction
    from op to op and takes the generic path (~30 ns more per access); a copy per op or
    node class sees one. Same code and results: only CPython's caches differ.
    """
    f = types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__,
                           fn.__defaults__, fn.__closure__)
    f.__kwdefaults__ = dict(fn.__kwdefaults__ or {}, **kwdefaults) or None
    f.__qualname__, f.__doc__, f.__module__ = fn.__qualname__, fn.__doc__, fn.__module__
    f.__dict__.update(fn.__dict__)
    return f


def own_code(cls):
    """Give the node class ``cls`` its own copies (``own_copy``) of what the engine
    runs for each of its nodes: its rules, ``_checked_saved``, ``result_array`` and
    ``_release``. For the classes of the elementwise factories, whose rules are one
    closure per op over code shared by the family. Returns ``cls``."""
    for name in ("backward", "np_backward"):
        fn = cls.__dict__.get(name)
        if type(fn) is types.FunctionType:
            setattr(cls, name, own_copy(fn))
    cls._checked_saved = property(own_copy(Node._checked_saved.fget),
                                 doc=Node._checked_saved.__doc__)
    cls.result_array = own_copy(Node.result_array)
    cls._release = own_copy(Node._release)
    return cls


def _saved_property(key, raw):
    return property(lambda self: _saved_by_name(self, key, raw),
                    doc="What the node saved under PyTorch's name %r." % key)


def _add_saved_properties(cls, names):
    for key in names:
        for raw in (False, True):
            attr = ("_raw_saved_" if raw else "_saved_") + key
            if attr not in cls.__dict__:
                setattr(cls, attr, _saved_property(key, raw))


_add_saved_properties(Node, ("self", "other", "result"))


def _answers(node, name):
    """Whether ``node.<name>`` exists (a freed saved tensor exists: it raises RuntimeError)."""
    try:
        getattr(node, name)
    except RuntimeError:            # freed by backward, or modified in place: it exists
        return True
    except Exception:               # noqa: BLE001 - dir() itself must not raise
        return False
    return True


def _constant_property(key, index):
    def get(self):
        args = self.args
        if index is not None:
            if type(args) is not tuple or index >= len(args):
                raise AttributeError("'%s' object has no attribute '_saved_%s'"
                                     % (type(self).__name__, key))
            args = args[index]
        elif args is None:
            raise AttributeError("'%s' object has no attribute '_saved_%s'"
                                 % (type(self).__name__, key))
        value = _torch_names.const_value(key, args)
        if type(value).__name__ == "ndarray":        # indices, masks: PyTorch saves tensors
            value = _tensor_cls._make_plain(value)
        return value
    return property(get, doc="The constant the node keeps under PyTorch's name %r." % key)


def _add_constant_properties(cls):
    """``_saved_<arg>`` for the constants of ``args`` (``_saved_dim``, ``_saved_alpha``,
    ``_saved_self_sym_sizes``, ...) under PyTorch's names (_saved_names.py)."""
    spec = _torch_names.TORCH_NAMES.get(cls.__name__, (None, ()))[1]
    keys = [(spec, None)] if isinstance(spec, str) else [
        (k, i) for i, k in enumerate(spec) if k is not None]
    for key, index in keys:
        if "_saved_" + key not in cls.__dict__:
            setattr(cls, "_saved_" + key, _constant_property(key, index))
    for key, fn in _torch_names.DERIVED.get(cls.__name__, {}).items():
        if "_saved_" + key not in cls.__dict__:
            setattr(cls, "_saved_" + key, property(fn))


def _saved_by_name(node, key, raw):
    names = getattr(type(node), "saved_names", None) or _SAVED_NAMES.get(type(node).__name__)
    saved = node._raw_saved()
    n = 0 if saved is None else len(saved)
    if node._released:           # what it saved is gone; how many it saved is known
        n = len(getattr(node, "_versions_saved", None) or ())
    if names is None:
        names = ("self", "other")[:n] if n <= 2 else tuple("saved_%d" % i for i in range(n))
    if key == "result" and node._out is not None:
        if raw:
            raise AttributeError("_raw_saved_result: hooks on a saved output are not supported "
                                 "here. Fix: use saved_tensors_hooks around the forward")
        return node.result
    if node._released and (key == "result" or key in names[:n]):
        node._checked_saved      # raises: the saved tensors were freed by backward()
    if key in names and names.index(key) < n:
        i = names.index(key)
        if raw:
            return _saved_hooks.SavedTensor(node, i)
        value = node._checked_saved[i]
        if type(value) in (int, float, bool, complex):
            # a Python-number operand: PyTorch saves it as a wrapped 0-d tensor
            import numpy as np
            value = _tensor_cls._make_plain(np.asarray(value))
        return value
    raise AttributeError("'%s' object has no attribute '%s'. What it saved: %s"
                         % (type(node).__name__, ("_raw_saved_" if raw else "_saved_") + key,
                            ", ".join("_saved_" + k for k in names[:n]) or "nothing"))


def _type_name(t):
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
            "int32": "Int", "bool": "Bool"}.get(t.dtype.name, t.dtype.name)


class AccumulateGrad(Node):
    """The node at a leaf tensor: adds the incoming gradient into ``leaf.grad``."""

    __slots__ = ("variable",)

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __init__(self, variable):
        Node.__init__(self)
        self.variable = variable
        self._e0, self._n0, self._rest = None, -1, ()
        self.needs_input_grad = ()


class _MultiHandle(RemovableHandle):
    """The handle of ``register_multi_grad_hook``: ``remove()`` removes every hook."""

    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()


def _grad_fn_or_acc(t):
    if t._grad_fn is not None:
        return t._grad_fn
    if not t._requires_grad:
        raise AssertionError("Expected gradient function to be set (a tensor that does not "
                             "require grad). Fix: pass only tensors "
                             "that require grad")
    return t._grad_accumulator()


# the engine's passes in progress, innermost last (the engine pushes and pops them)
running_passes = []


def _will_execute(run, node):
    """Whether pass ``run`` runs ``node`` (reachable from its roots, and needed for the
    requested inputs)."""
    if node is None or (run.needed is not None and node not in run.needed):
        return False
    return node in run.deps or any(node is n for n, _ in run.roots)


def _current_pass():
    if not running_passes:
        raise AssertionError("expected this hook to be called inside a backward call")
    return running_passes[-1]


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward pass, after the gradients of ``tensors``.

    ``mode="all"``: ``fn(grads)`` once every tensor of ``tensors`` that this pass
    computes a gradient for has it (``grads``: one entry per tensor, None for those the
    pass does not reach, or does not need for the requested ``inputs``). ``mode="any"``:
    ``fn(grad)`` with the first of their gradients. Returns a handle whose ``remove()``
    unregisters the hooks.

    Raises:
        ValueError: an unknown ``mode``. AssertionError ("all"): a tensor that does not
            require grad. RuntimeError ("all"): inside ``autograd.grad`` for a leaf among
            its ``inputs`` (PyTorch does not support it either).

    Source: torch/autograd/graph.py (register_multi_grad_hook).
    """
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError("Expects mode to be one of %s but got %s" % (supported, mode))
    tensors = tuple(tensors)
    if mode == "all":
        nodes = [_grad_fn_or_acc(t) for t in tensors]
        state = weakref.WeakKeyDictionary()     # pass -> [calls so far, expected, buffer]

        def inner(idx):
            def hook(grad):
                run = _current_pass()
                st = state.get(run)
                if st is None:
                    if not run.accumulate and any(type(n) is AccumulateGrad and
                                                  n in run.needed for n in nodes):
                        raise RuntimeError(
                            "A leaf node was passed to _will_engine_execute_node but we are "
                            "currently running autograd.grad(). This is currently not "
                            "supported. Fix: use .backward(inputs=...) with a multi-grad hook "
                            "on leaves, or hook non-leaf tensors only")
                    st = state[run] = [0, sum(_will_execute(run, n) for n in nodes),
                                       [None] * len(tensors)]
                st[2][idx] = grad
                st[0] += 1
                if st[0] == st[1]:
                    del state[run]
                    fn(st[2])
            return hook
        handles = tuple(t.register_hook(inner(i)) for i, t in enumerate(tensors))
    else:
        ran = weakref.WeakKeyDictionary()

        @functools.wraps(fn)
        def wrapped(grad):
            run = _current_pass()
            if ran.get(run):
                return
            ran[run] = True
            fn(grad)
        handles = tuple(t.register_hook(wrapped) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)


from . import saved_hooks as _saved_hooks  # noqa: E402
from .saved_hooks import (Packed as _Packed, SavedTensor, disable_saved_tensors_hooks,  # noqa: E402,F401
                          save_on_cpu, saved_tensors_hooks)
