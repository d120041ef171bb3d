"""``torch.autograd.forward_ad``: forward-mode AD with dual tensors.

As PyTorch's: inside ``with dual_level():``, ``make_dual(primal, tangent)`` gives a
tensor (a view of ``primal``) that carries a tangent; every op on it also computes the
tangent of its result, the Jacobian-vector product ``J @ tangent``;
``unpack_dual(t)`` returns ``UnpackedDualTensor(primal, tangent)`` (tangent None for a
tensor without one). Leaving the level forgets every tangent. One level at a time
(nested levels raise, as PyTorch).

How the tangents are computed: every recorded op passes through
``ops._dispatch.record``, which, while a level is active and an input has a tangent,
asks the level for the output's tangent. The level records the op once more on stand-ins
of the inputs and applies the op's own backward rule (its vector-Jacobian product, written
with leafgrad ops) twice, the "double-vjp trick":

    J t = d/du < J^T u, t >      (J^T u is linear in u; its gradient in u is J t)

so every op whose backward rule differentiates again supports forward AD, without a
separate JVP rule (values agree with PyTorch's JVP formulas to rounding). Ops whose rule
is not differentiable twice here (``linalg.eigh``, ``svd``, ``cholesky``) raise
NotImplementedError, as PyTorch does for ops without forward AD. A custom
``autograd.Function`` uses its ``jvp`` staticmethod (PyTorch's rule: zeros for tensor
inputs without a tangent, None for the others).

Tangents are differentiable: when the primal or the tangent requires grad, the tangent
of the result is in the reverse-mode graph (forward-over-reverse works).

Source: torch/autograd/forward_ad.py (API, messages), the forward-AD tutorial
(intermediate_source/forward_ad_usage.py), torch/csrc/autograd/custom_function.cpp
(custom Function jvp).
"""
import weakref
from typing import NamedTuple, Optional

import numpy as np

from . import _fw_state
from .grad_mode import _DecoratorContextManager, enable_grad, mode

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_current_level = -1


class UnpackedDualTensor(NamedTuple):
    """Namedtuple returned by :func:`unpack_dual`: the ``primal`` (a view of the dual
    tensor's value, without tangent) and its ``tangent`` (None when it has none)."""

    primal: object
    tangent: Optional[object]


class _Level:
    """The tangents of one forward-AD level: tensor -> tangent, held weakly on the tensor
    (a tangent lives as long as its tensor, or until the level exits)."""

    __slots__ = ("index", "table")

    def __init__(self, index):
        self.index = index
        self.table = {}

    def tangent(self, t):
        e = self.table.get(id(t))
        if e is not None and e[0]() is t:
            return e[1]
        return None

    def set(self, t, tangent):
        table = self.table
        key = id(t)
        if tangent is None:
            table.pop(key, None)
            return

        def forget(ref, key=key, table=table):
            e = table.get(key)
            if e is not None and e[0] is ref:
                del table[key]
        table[key] = (weakref.ref(t, forget), tangent)

    def any_dual(self, tensors):
        table = self.table
        for t in tensors:
            if t is not None and id(t) in table and self.tangent(t) is not None:
                return True
        return False

    # -- called by ops._dispatch.record / record_multi --------------------------
    def record(self, cls, out, inputs, saved, save_result, args):
        """The result of a recorded op with its tangent, or None when no input has one
        (the caller then records as usual)."""
        tans = [None if t is None else self.tangent(t) for t in inputs]
        if all(x is None for x in tans) or out.dtype.kind not in "fc":
            return None
        from ..ops import _dispatch
        _fw_state.active[0] = None
        try:
            (tan,) = _tangents(lambda ins: (_dispatch.record(cls, out, ins, saved, save_result,
                                                             args),),
                               inputs, tans, saved)
            res = _dispatch.record(cls, out, inputs, saved, save_result, args)
        finally:
            _fw_state.active[0] = self
        self.set(res, tan)
        return res

    def record_multi(self, cls, outs, inputs, saved, args, differentiable):
        tans = [None if t is None else self.tangent(t) for t in inputs]
        if all(x is None for x in tans):
            return None
        from ..ops import _dispatch
        _fw_state.active[0] = None
        try:
            got = _tangents(lambda ins: _multi_node(_dispatch.record_multi(
                cls, outs, ins, saved, args, differentiable), outs), inputs, tans, saved)
            res = _dispatch.record_multi(cls, outs, inputs, saved, args, differentiable)
        finally:
            _fw_state.active[0] = self
        for r, tan, d in zip(res, got, differentiable or (True,) * len(res)):
            if d and r._data.dtype.kind in "fc":
                self.set(r, tan)
        return res

    def carry(self, src, dst):
        """``dst`` was overwritten in place with ``src``'s values: it takes src's tangent
        (a view's base gets it in the view's region)."""
        tan = self.tangent(src)
        if tan is None and self.tangent(dst) is None:
            return
        self.set(dst, tan)
        base = dst._base
        if base is not None and base._data.dtype.kind in "fc":
            from ..ops.inplace.arithmetic import _view_key
            from ..ops.inplace.writes import _index_put
            from .._tensor import creation as _creation
            bt = self.tangent(base)
            _fw_state.active[0] = None
            try:
                bt = _creation.zeros_like(base) if bt is None else bt.clone()
                vt = _creation.zeros_like(dst) if tan is None else tan
                self.set(base, _index_put(bt, _view_key(dst, base), vt.to(bt.dtype)))
            finally:
                _fw_state.active[0] = self

    def function_jvp(self, cls, ctx, args, outs):
        """A custom Function's output tangents, from its ``jvp(ctx, *tangents)``."""
        from .._tensor.tensor import Tensor
        from .._tensor import creation as _creation
        tans = []
        for a in args:
            if not isinstance(a, Tensor):
                tans.append(None)
            else:
                t = self.tangent(a)
                tans.append(_creation.zeros_like(a) if t is None else t)
        _fw_state.active[0] = None
        try:
            with enable_grad():
                res = cls.jvp(ctx, *tans)
        finally:
            _fw_state.active[0] = self
        return res if isinstance(res, tuple) else (res,)


def _multi_node(res, outs):
    """What the multi-output ops set on their node after recording (``ops/joins._multi``,
    ``out_metas`` of the linalg decompositions)."""
    node = next((r._grad_fn for r in res if r._grad_fn is not None), None)
    if node is None:
        return res
    slots = {s for c in type(node).__mro__ for s in getattr(c, "__slots__", ())}
    for name, value in (("n_outputs", len(outs)),
                        ("out_metas", tuple((o.shape, o.dtype) for o in outs))):
        if name in slots:
            try:
                getattr(node, name)
            except AttributeError:
                setattr(node, name, value)
    return res


def _alias(t):
    """A stand-in for input ``t`` that shares its data: a fresh leaf, or (when ``t`` is in
    the user's graph) an alias recorded on it, so the tangent stays differentiable."""
    from .._tensor.tensor import Tensor
    if t._requires_grad:
        return t.view_as(t)
    p = Tensor._make_plain(t._data)
    p._requires_grad = True
    return p


def _tangents(make, inputs, tans, saved):
    """Tangents of ``make(inputs)``'s outputs given the inputs' tangents (None: zero), by
    the double-vjp trick. Runs with the level's hook off."""
    from .._tensor.tensor import Tensor
    from .._tensor import creation as _creation
    from ._api import grad
    keep = mode.enabled and (
        any(t is not None and t._requires_grad for t in inputs)
        or any(t is not None and t._requires_grad for t in tans)
        or any(isinstance(s, Tensor) and s._requires_grad for s in (saved or ())))
    with enable_grad():
        stand, leaves, ts = [], [], []
        for t, tan in zip(inputs, tans):
            if t is None or tan is None:
                stand.append(t)
                continue
            p = _alias(t)
            stand.append(p)
            leaves.append(p)
            ts.append(tan if tan._data.dtype == t._data.dtype else tan.to(t.dtype))
        ys = make(tuple(stand))
        live = [(k, y) for k, y in enumerate(ys)
                if y is not None and y._grad_fn is not None and y._data.dtype.kind in "fc"]
        result = [None if y is None or y._data.dtype.kind not in "fc" else
                  _creation.zeros_like(y) for y in ys]
        if not live:
            return result
        us = [_creation.zeros_like(y).requires_grad_(True) for _, y in live]
        gs = grad([y for _, y in live], leaves, us, create_graph=True, allow_unused=True)
        pairs = [(g, t) for g, t in zip(gs, ts) if g is not None and g._requires_grad]
        if not pairs:
            return result
        jv = grad([g for g, _ in pairs], us, [t for _, t in pairs], create_graph=keep,
                  allow_unused=True)
    for (k, y), j in zip(live, jv):
        if j is not None:
            result[k] = j if keep else j.detach()
    return result


def _level_obj(level):
    lv = _fw_state.active[0]
    if lv is None:
        lv = _current[0]
    if level is None or lv is None or level == lv.index:
        return lv
    return None


# the level object (also while its hook is off: inside a tangent computation or a
# custom Function's forward)
_current = [None]


def enter_dual_level():
    """Enter a new forward grad level (the one ``make_dual``/``unpack_dual`` use by
    default) and return its index.

    Raises:
        RuntimeError: a level is already active (nested levels are not supported, as in
            PyTorch).
    """
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level = 0
    lv = _Level(0)
    _current[0] = lv
    _fw_state.active[0] = lv
    return 0


def exit_dual_level(*, level=None):
    """Exit the forward grad level, deleting every tangent of that level.

    Raises:
        RuntimeError: ``level`` is not the last level entered, or no level is active.
    """
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number. Fix: exit only a level "
                           "entered with enter_dual_level() (or use `with dual_level():`)")
    lv = _current[0]
    if lv is not None:
        lv.table.clear()
    _current[0] = None
    _fw_state.active[0] = None
    _current_level = level - 1


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: a view of ``tensor`` carrying ``tangent`` (used as is when its
    strides are ``tensor``'s, else copied into ``tensor``'s layout). Differentiable in
    reverse mode as a view of ``tensor``.

    Raises:
        RuntimeError: outside ``dual_level``; a tangent of another size; ``tensor`` already
            has a tangent at this level.
        ValueError: ``tensor`` or ``tangent`` is not floating point or complex.
    """
    from .._tensor.tensor import Tensor
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    for what, t in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(t, Tensor):
            raise TypeError("_make_dual(): argument '%s' must be Tensor, not %s"
                            % (what, type(t).__name__))
        if t._data.dtype.kind not in "fc":
            raise ValueError("Expected %s to be floating point or complex, but got: %s"
                             % (what, t.dtype))
    lv = _level_obj(level)
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size %s while the given "
            "forward gradient is of size %s." % (list(tensor.shape), list(tangent.shape)))
    if lv.tangent(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           "gradient at the same level %d is not supported." % level)
    if tangent.stride() != tensor.stride():
        if tangent._requires_grad:
            tangent = tangent.clone()
        else:
            arr = np.empty_like(tensor._data, dtype=tangent._data.dtype)
            np.copyto(arr, tangent._data)
            tangent = Tensor._make_plain(arr)
    dual = _view_without_tangent(tensor)
    lv.set(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """``UnpackedDualTensor(primal, tangent)``: ``primal`` a view of ``tensor`` without
    tangent, ``tangent`` its tangent as is (None when it has none, or outside a level).

    Raises:
        TypeError: ``tensor`` is not a tensor.
    """
    from .._tensor.tensor import Tensor
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, Tensor):
        raise TypeError("_unpack_dual(): argument 'dual' (position 1) must be Tensor, not %s"
                        % type(tensor).__name__)
    lv = _level_obj(level)
    tan = None if lv is None or _fw_state.active[0] is None else lv.tangent(tensor)
    return UnpackedDualTensor(_view_without_tangent(tensor), tan)


def _view_without_tangent(t):
    """A view of ``t`` (``ViewBackward0`` when it requires grad) that gets no tangent."""
    prev = _fw_state.active[0]
    _fw_state.active[0] = None
    try:
        return t.view_as(t)
    finally:
        _fw_state.active[0] = prev


class dual_level(_DecoratorContextManager):
    """Context manager (or decorator) for forward AD: ``with dual_level():`` enters a
    level, and leaving it deletes every tangent made inside. Nested levels raise."""

    def __init__(self, orig_func=None):
        pass

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def _is_fwd_grad_enabled():
    return True


def tangent_of(t):
    """The tangent of ``t`` at the active level, or None (for ``repr``)."""
    lv = _fw_state.active[0]
    return None if lv is None else lv.tangent(t)
