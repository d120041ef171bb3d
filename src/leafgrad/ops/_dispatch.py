"""Recording: wrap an op's NumPy result as a tensor and, when grad mode is on
and an input requires grad, attach a node to it.

This is the one path every differentiable op takes (``record``); the
engine reads the edges, input metadata and saved tensors it sets up.
Also here: turning operands (tensors, Python numbers, arrays) into arrays
of the promoted dtype, with PyTorch's promotion rules.
"""
import numpy as np

from .._core import dtype as _dtype, errors as _errors, scalars as _scalars
from .._core.dtype import _FROM_NP, result_type
from .._core.quiet import quiet as _quiet
from .._tensor.meta import MetaArray as _Meta, same_device
from .._tensor.tensor import InferenceTensor, Tensor, _make_inference
from .._tensor.tensor import _sync_view as _sync
from ..autograd.saved_hooks import active as _hooks_active, pack_saved as _pack_saved
from ..autograd.anomaly_mode import record_hook as _anomaly_hook
from ..autograd._fw_state import active as _fw_level
from ..autograd.grad_mode import mode
from ..autograd.graph import _NO_EDGE, _NO_META1, _NO_META2, next_seq as _next_seq
from ..autograd.graph import own_code as _own_code, own_copy as _own_copy
from ._complex_rules import complex_variant as _complex_variant

_ndarray = np.ndarray
_asarray = np.asarray
_new = object.__new__
_make_plain = Tensor._make_plain
_make_nonleaf = Tensor._make_nonleaf
_NUMBER = (int, float, bool)
_I64 = np.dtype(np.int64)
_TRUE1 = (True,)
_NEEDS_TT, _NEEDS_TF, _NEEDS_FT = (True, True), (True, False), (False, True)
# Metadata is kept only for inputs whose shape or dtype differ from the output
# (the engine then sums/casts the gradient); sharing these constants saves two
# tuples per node, which matters for the garbage collector on deep graphs.
# (shared with the engine, which skips fitting gradients when it sees them)
_V0 = (0,)      # the saved versions of one tensor saved at version 0
_NO_V = {}
_SAVED_V2 = {a: {b: (a, b) for b in (0, None)} for a in (0, None)}   # ... of two




def _refuse_inference():
    raise RuntimeError(_errors.inference_saved())


def _edge(t):
    if t._grad_fn is not None:
        return (t._grad_fn, t._output_nr)
    return (t._grad_accumulator(), 0)


def mark_view(res, base, multi=None):
    """Make ``res`` a view of ``base``: same memory, same version counter; remember the
    version its grad_fn is valid at (an in-place op on the base or on another view
    makes it stale: see ``inplace._refresh_view``)."""
    res._share_version(base)
    root = base if base._base is None else base._base
    res._base = root
    if multi is None and root is not base and base._vmeta[3] is not None \
            and res._grad_fn is not None:
        # a view of a multi-output view (split(...)[0].diagonal()) inherits the refusal of
        # in-place changes, named after its own op, as PyTorch's CreationMeta does
        name = type(res._grad_fn).__name__
        multi = name[:name.rindex("Backward")] if "Backward" in name else name
    res._vmeta = [res._vc[0], not mode.enabled, root._grad_fn, multi]
    return res




def record(cls, out, inputs, saved=None, save_result=False, args=None):
    """Return ``out`` (an ndarray) as a tensor, recording ``cls`` as its grad_fn.

    Args:
        cls: the node class (a ``Node`` subclass with ``backward``).
        inputs: tuple with one entry per differentiable input: a Tensor, or
            None for a non-tensor operand.
        saved: tensors (or numbers) the rule needs, kept until backward.
        save_result: the rule reads ``ctx.result`` (the output).
        args: op constants for the rule (dims, shapes, ...).

    One and two inputs (most ops) go to ``record1`` / ``record2``, which the
    elementwise ops also call directly (no inputs tuple); this is the general path.
    """
    if type(out) is not _ndarray:
        if type(out) is _Meta:
            same_device(inputs)
        else:
            out = _asarray(out)
    if _fw_level[0] is not None or not mode.enabled:
        res = _unrecorded(cls, out, inputs, saved, save_result, args)
        if res is not None:
            return res
    n = len(inputs)
    if n == 1:
        return record1(cls, out, inputs[0], saved, save_result, args)
    if n == 2:
        return record2(cls, out, inputs[0], inputs[1], saved, save_result, args)
    # one pass over the inputs (lists, not generator expressions: linear
    # and other 3-input ops record about 1 us faster)
    edges = []
    needs = []
    metas = []
    oshape, odtype = out.shape, out.dtype
    for t in inputs:
        if t is None:
            edges += _NO_EDGE
            needs.append(False)
            metas.append(None)
            continue
        if t._base is not None and t._vmeta[0] != t._vc[0]:
            _sync(t)
        if t._requires_grad:
            fn = t._grad_fn
            edges += ((fn, t._output_nr) if fn is not None
                      else (t._grad_accumulator(), 0))
            needs.append(True)
        else:
            edges += _NO_EDGE
            needs.append(False)
        d = t._data
        metas.append(None if d.shape == oshape and d.dtype == odtype else (d.shape, d.dtype))
    if True not in needs:
        return _make_plain(out)
    node = _new(cls)
    node._e0, node._n0 = edges[0], edges[1]
    node._rest = tuple(edges[2:])
    node.needs_input_grad = tuple(needs)
    node._metas = tuple(metas)
    _save(node, saved)
    return _result(node, out, save_result, args)


def _result(node, out, save_result, args):
    """The recorded op's output tensor, ``node`` its grad_fn (all three paths)."""
    node._released = False
    node._extra = None
    if out.dtype.kind == "c":   # PyTorch's complex convention (ops/_complex_rules.py)
        node.__class__ = _complex_variant(type(node))
    node._seq = _next_seq()
    node.args = args
    # the output's version counter is made only if it is ever viewed or changed in
    # place (then, for a saved output, the node watches it: Tensor._new_counter)
    node._out = out if save_result else None
    node._out_version = None
    # _make_nonleaf, inlined (one call less per op)
    res = _new(Tensor)
    res._data = out
    res._requires_grad = True
    res._grad_fn = node
    res._grad = res._acc = res._hooks = res._post_hooks = res._base = res._vc = None
    res._output_nr = 0
    res._retains_grad = False
    if _anomaly_hook[0] is not None:
        _anomaly_hook[0](node, res)
    return res


def _unrecorded(cls, out, inputs, saved, save_result, args):
    """The result when forward AD gives it (with its tangent) or grad mode is off;
    None: record it as usual."""
    if _fw_level[0] is not None:    # forward AD: the result's tangent (autograd/forward_ad.py)
        res = _fw_level[0].record(cls, out, inputs, saved, save_result, args)
        if res is not None:
            return res
    if not mode.enabled:
        return _make_plain(out) if not mode.inference else _make_inference(out)
    return None


def _save(node, saved):
    """Keep ``saved`` (a tuple or None) on ``node``: one or two values in its slots
    (no tuple kept), more as the tuple; with their versions at save time, checked
    at backward (shared tuples at version 0). Saved-tensor hooks pack them."""
    if saved is None:
        node._saved = None
        return
    ns = len(saved)
    if ns == 1:
        node._s0 = s0 = saved[0]
        node._saved = 1
        node._versions_saved = _NO_META1 if not isinstance(s0, Tensor) else _version1(s0)
    elif ns == 2:
        node._s0, node._s1 = s0, s1 = saved
        node._saved = 2
        v0 = None if not isinstance(s0, Tensor) else 0 if s0._vc is None else s0._vc[0]
        v1 = None if not isinstance(s1, Tensor) else 0 if s1._vc is None else s1._vc[0]
        # shared tuples for the usual versions (0, or None for a number)
        node._versions_saved = _SAVED_V2.get(v0, _NO_V).get(v1) or (v0, v1)
        if type(s0) is InferenceTensor or type(s1) is InferenceTensor:
            _refuse_inference()
    else:
        node._saved = saved
        node._versions_saved = tuple([((0 if t._vc is None else t._vc[0])
                                       if type(t) is not InferenceTensor
                                       else _refuse_inference())
                                      if isinstance(t, Tensor) else None for t in saved])
    if _hooks_active[0]:    # saved_tensors_hooks: save what the pack hook returns
        node._saved = _pack_saved(saved, Tensor)
        node._s0 = node._s1 = None


def _version1(t):
    """The saved-versions tuple of one saved tensor (shared at version 0)."""
    if type(t) is InferenceTensor:
        _refuse_inference()
    vc = t._vc
    return _V0 if vc is None or vc[0] == 0 else (vc[0],)


# record1 and record2 are ``record`` unrolled for one and two inputs (the generic
# loop costs about 1 us per op, a third of the recording time; calling them
# without the inputs/saved tuples and keywords saves more). The engine-facing
# state they set is the generic path's, field by field (tests/autograd/
# test_record_paths.py compares the three paths).
def record1(cls, out, t, saved=None, save_result=False, args=None, *, _save=_save,
            _result=_result):
    """``record(cls, out, (t,), saved, save_result, args)``; ``saved`` may also be
    ``True``: the input itself (a unary op's ``(t,)``, without making the tuple).
    (``_save``/``_result``: the functions it calls; see :func:`own_recorders`.)"""
    if type(out) is not _ndarray and type(out) is not _Meta:
        out = _asarray(out)
    if _fw_level[0] is not None or not mode.enabled:
        res = _unrecorded(cls, out, (t,), (t,) if saved is True else saved, save_result, args)
        if res is not None:
            return res
    if t is None:
        return _make_plain(out)
    if t._base is not None and t._vmeta[0] != t._vc[0]:
        _sync(t)
    if not t._requires_grad:
        return _make_plain(out)
    node = _new(cls)
    fn = t._grad_fn
    if fn is not None:
        node._e0 = fn
        node._n0 = t._output_nr
    else:
        node._e0 = t._grad_accumulator()
        node._n0 = 0
    node._rest = ()
    node.needs_input_grad = _TRUE1
    d = t._data
    node._metas = _NO_META1 if (d.shape == out.shape and d.dtype is out.dtype) \
        else ((d.shape, d.dtype),)
    if saved is True and not _hooks_active[0]:
        node._s0 = t
        node._saved = 1
        node._versions_saved = _version1(t)
    elif saved is None:
        node._saved = None
    else:
        _save(node, (t,) if saved is True else saved)
    return _result(node, out, save_result, args)


def record2(cls, out, a, b, saved=None, save_result=False, args=None, *, _save=_save,
            _result=_result):
    """``record(cls, out, (a, b), saved, save_result, args)`` (``a``/``b``: a Tensor,
    or None for a number operand; ``_save``/``_result``: see :func:`own_recorders`)."""
    if type(out) is not _ndarray:
        if type(out) is _Meta:
            same_device((a, b))
        else:
            out = _asarray(out)
    if _fw_level[0] is not None or not mode.enabled:
        res = _unrecorded(cls, out, (a, b), saved, save_result, args)
        if res is not None:
            return res
    # a view is regenerated only when its base changed in place since
    if a is not None and a._base is not None and a._vmeta[0] != a._vc[0]:
        _sync(a)
    if b is not None and b._base is not None and b._vmeta[0] != b._vc[0]:
        _sync(b)
    ra = a is not None and a._requires_grad
    rb = b is not None and b._requires_grad
    if not (ra or rb):
        return _make_plain(out)
    node = _new(cls)
    # the first edge in slots, the second a pair (shared when b needs no grad)
    if ra:
        fa = a._grad_fn
        if fa is None:
            node._e0 = a._grad_accumulator()
            node._n0 = 0
        else:
            node._e0 = fa
            node._n0 = a._output_nr
        if rb:
            fb = b._grad_fn
            node._rest = ((fb, b._output_nr) if fb is not None
                          else (b._grad_accumulator(), 0))
            node.needs_input_grad = _NEEDS_TT
        else:
            node._rest = _NO_EDGE
            node.needs_input_grad = _NEEDS_TF
    else:
        node._e0 = None
        node._n0 = 0
        fb = b._grad_fn
        node._rest = (fb, b._output_nr) if fb is not None else (b._grad_accumulator(), 0)
        node.needs_input_grad = _NEEDS_FT
    oshape = out.shape
    odt = out.dtype
    d = None if a is None else a._data
    ma = None if d is None or (d.shape == oshape and d.dtype is odt) else (d.shape, d.dtype)
    d = None if b is None else b._data
    mb = None if d is None or (d.shape == oshape and d.dtype is odt) else (d.shape, d.dtype)
    node._metas = _NO_META2 if ma is None and mb is None else (ma, mb)
    if saved is None:
        node._saved = None
    else:
        _save(node, saved)
    return _result(node, out, save_result, args)


def own_recorders(*node_classes):
    """``[record1, record2]`` with code objects of their own (each with its own copies
    of the ``_save`` and ``_result`` it calls), for one op, whose ``node_classes`` (None
    entries skipped) also get their own per-node code (``autograd.graph.own_code``).
    Each copy is to record one node class only. The elementwise factories make them on
    an op's first call (``import leafgrad`` makes none). Why: see
    ``autograd.graph.own_copy``; shared by every op, the ~13 stores into a new node see
    another node class each time (callgrind, the tiny_ops forward without the cyclic
    GC: 20.8k -> 19.3k instructions per op).
    """
    for cls in node_classes:
        if cls is not None:
            _own_code(cls)
    return [_own_copy(rec, _save=_own_copy(_save), _result=_own_copy(_result))
            for rec in (record1, record2)]


def record_multi(cls, outs, inputs, saved=None, args=None, differentiable=None):
    """Like ``record`` for an op with several outputs (``max(dim)``, ``unbind``).

    ``differentiable``: which outputs carry gradient (others are plain tensors). A node
    class with an ``out_metas`` slot gets every output's (shape, dtype) there (the engine
    fills the gradient of an output that got none with zeros of that shape).
    """
    outs = [o if type(o) is _ndarray else same_device(inputs, o) if type(o) is _Meta
            else _asarray(o) for o in outs]
    if differentiable is None:
        differentiable = (True,) * len(outs)
    if _fw_level[0] is not None:
        res = _fw_level[0].record_multi(cls, outs, inputs, saved, args, differentiable)
        if res is not None:
            return res
    if not mode.enabled or not any(t is not None and t._requires_grad for t in inputs):
        make = _make_inference if mode.inference and not mode.enabled else _make_plain
        return tuple(make(o) for o in outs)
    for t in inputs:
        if t is not None and t._base is not None:
            _sync(t)
    node = _new(cls)
    node._released = False
    node._extra = None
    node._seq = _next_seq()
    node.next_functions = tuple((None, 0) if t is None or not t._requires_grad else _edge(t)
                                for t in inputs)
    node.needs_input_grad = tuple(t is not None and t._requires_grad for t in inputs)
    node._metas = tuple(None if t is None else (t._data.shape, t._data.dtype) for t in inputs)
    node.args = args
    if hasattr(cls, "out_metas"):   # nodes that fill the gradients of unused outputs
        node.out_metas = tuple((o.shape, o.dtype) for o in outs)
    node._out = node._out_version = None
    node._saved = saved
    if saved is not None:
        node._versions_saved = tuple((t._version if type(t) is not InferenceTensor
                                      else _refuse_inference())
                                     if isinstance(t, Tensor) else None for t in saved)
        if _hooks_active[0]:
            node._saved = _pack_saved(saved, Tensor)
    res = []
    nr = 0
    for o, d in zip(outs, differentiable):
        if d:
            res.append(_make_nonleaf(o, node, nr))
            nr += 1
        else:
            res.append(_make_plain(o))
    if _anomaly_hook[0] is not None:
        _anomaly_hook[0](node, res)
    return tuple(res)


def to_tensor(x):
    """A Tensor for an operand: tensors pass through; numbers and arrays are
    wrapped as constants (numbers keep PyTorch's 'wrapped number' dtype)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, _NUMBER):
        return _make_plain(_asarray(x, dtype=_dtype.scalar_dtype(x).np))
    from .._tensor.creation import _as_array
    return _make_plain(_as_array(x, None))


def binary_operands(a, b, floating=False):
    """Arrays for a binary op, after PyTorch type promotion.

    Returns ``(ta, tb, xa, xb)``: ``ta``/``tb`` are Tensors or None (for a
    Python number), ``xa``/``xb`` what NumPy computes with. With
    ``floating``, integer results are promoted to the default float dtype
    (true division).
    """
    ta = a if isinstance(a, Tensor) else None
    tb = b if isinstance(b, Tensor) else None
    if ta is not None and tb is not None:
        xa, xb = ta._data, tb._data
        if xa.dtype is xb.dtype and (not floating or xa.dtype.kind in "fc"):
            return ta, tb, xa, xb
    elif ta is not None and type(b) in (float, int, bool):
        xa = ta._data
        kind = xa.dtype.kind
        tb_kind = type(b)
        # an int beyond int64, or one an int8/int32/uint8 tensor cannot hold: PyTorch's
        # Scalar rules (OverflowError beyond 64 bits, else wrapped into the tensor's dtype)
        if tb_kind is int and not (-9223372036854775808 <= b <= 9223372036854775807 and (
                kind not in "iu" or xa.dtype is _I64)) and (not floating or kind in "fc"):
            b = _scalars.scalar_operand(b, xa.dtype)
        # NumPy treats Python numbers as 'weak' (NEP 50), as PyTorch does,
        # as long as the tensor's category is at least the number's.
        if (kind in "fc" or (tb_kind is int and kind in "iu") or tb_kind is bool) and (
                not floating or kind in "fc"):
            return ta, None, xa, b
    elif tb is not None and type(a) in (float, int, bool):
        xb = tb._data
        kind = xb.dtype.kind
        ta_kind = type(a)
        if ta_kind is int and not (-9223372036854775808 <= a <= 9223372036854775807 and (
                kind not in "iu" or xb.dtype is _I64)) and (not floating or kind in "fc"):
            a = _scalars.scalar_operand(a, xb.dtype)
        if (kind in "fc" or (ta_kind is int and kind in "iu") or ta_kind is bool) and (
                not floating or kind in "fc"):
            return None, tb, a, xb
    # slow path: mixed dtypes, arrays, numpy scalars
    if isinstance(a, tuple) or isinstance(b, tuple):
        # most often the result of autograd.grad() used as a tensor
        pair = "'tuple' and 'Tensor'" if isinstance(a, tuple) else "'Tensor' and 'tuple'"
        raise TypeError("unsupported operand type(s): %s. %s" % (pair, _errors.grad_tuple_hint()))
    if ta is None and not isinstance(a, _NUMBER):
        ta = to_tensor(a)
        a = ta
    if tb is None and not isinstance(b, _NUMBER):
        tb = to_tensor(b)
        b = tb
    rt = result_type(a, b)
    if floating and rt._category < 2:
        rt = _dtype.get_default_dtype()
    npd = rt.np
    if type(a) is int:
        a = _scalars.scalar_operand(a, npd)
    if type(b) is int:
        b = _scalars.scalar_operand(b, npd)
    with _quiet():     # a value beyond the dtype becomes inf silently, as in PyTorch's cast
        xa = ta._data.astype(npd, copy=False) if ta is not None else npd.type(a)
        xb = tb._data.astype(npd, copy=False) if tb is not None else npd.type(b)
    if ta is not None and xa.dtype != ta._data.dtype and type(xa) is not _Meta:
        xa = _asarray(xa)
    return ta, tb, xa, xb


def broadcast_error(a, b):
    sa = a.shape if hasattr(a, "shape") else ()
    sb = b.shape if hasattr(b, "shape") else ()
    return _errors.broadcast(tuple(sa), tuple(sb))


def dtype_of(arr):
    return _FROM_NP[arr.dtype]
