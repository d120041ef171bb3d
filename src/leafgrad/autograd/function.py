"""Custom autograd functions: ``class F(Function)`` with static ``forward``/``backward``.

As ``torch.autograd.Function``: ``F.apply(*args)`` runs ``forward(ctx, *args)``
without recording, then records one node (of class ``FBackward``, which is
also the ``ctx``) whose ``backward(ctx, *grads)`` receives one gradient per
output of ``forward`` and returns one gradient (or ``None``) per input.
The ``setup_context`` style (``forward(*args)`` plus
``setup_context(ctx, inputs, output)``) is accepted too.
"""
import functools

import numpy as np

from .._core import errors as _errors
from .grad_mode import mode
from .graph import Node
from ._fw_state import active as _fw_level

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """Methods available on ``ctx`` inside ``forward``/``setup_context``."""

    __slots__ = ()

    def save_for_backward(self, *tensors):
        """Keep tensors (or None) for backward; read them as ``ctx.saved_tensors``.

        Raises:
            TypeError: for anything that is not a tensor or None.
        """
        from .._tensor.tensor import Tensor
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(_errors.save_non_tensor(i, t))
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors):
        """Outputs that get ``requires_grad=False`` (indices, masks ...)."""
        self._non_diff = tensors

    def mark_dirty(self, *tensors):
        """Inputs that forward modified in place (and returns)."""
        self._dirty = tensors

    def set_materialize_grads(self, value):
        """With False, backward gets None (not zeros) for outputs that got no gradient."""
        self._materialize = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The node recorded for one ``Function.apply`` call; it is also the ``ctx``."""

    __slots__ = ("_fn_cls", "_ctx_dict", "n_outputs", "_fn_out_metas", "_materialize",
                 "_to_save", "_non_diff", "_dirty")
    saves = True

    @property
    def saved_tensors(self):
        """What ``save_for_backward`` kept (PyTorch's ``ctx.saved_tensors``); raises once
        backward freed it, or when one was modified in place since."""
        return self._checked_saved

    def __getattr__(self, name):
        try:
            return object.__getattribute__(self, "_ctx_dict")[name]
        except KeyError:
            raise AttributeError("'%s' object has no attribute '%s'"
                                 % (type(self).__name__, name)) from None

    def __setattr__(self, name, value):
        try:
            object.__setattr__(self, name, value)
        except AttributeError:
            self._ctx_dict[name] = value

    def __delattr__(self, name):
        # ``del ctx.result`` (PyTorch's forward-AD tutorial frees what jvp used)
        try:
            del self._ctx_dict[name]
        except KeyError:
            object.__delattr__(self, name)

    # Node has its own save_for_backward; ctx's (which validates) wins here.
    save_for_backward = FunctionCtx.save_for_backward

    def _release(self, freed_by=True):
        # as PyTorch: a Function that saved no tensors can be backpropagated again
        if self._saved:
            Node._release(self, freed_by)

    def name(self):
        return type(self).__name__

    def backward(self, *grads):
        from .._tensor.tensor import Tensor
        metas = self._fn_out_metas
        if self._materialize:
            grads = tuple(Tensor._make_plain(np.zeros(m[0], m[1])) if g is None and m else g
                          for g, m in zip(grads, metas))
        res = self._fn_cls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = len(self.next_functions)
        if len(res) != n:
            if len(res) < n or any(r is not None for r in res[n:]):
                raise RuntimeError(_errors.function_grad_count(self.name(), n, len(res)))
            res = res[:n]
        out = []
        for i, (r, need) in enumerate(zip(res, self.needs_input_grad)):
            if not need:
                out.append(None)
                continue
            if r is not None and not isinstance(r, Tensor):
                raise TypeError("function %s returned a gradient different than None at "
                                "position %d, but the corresponding forward input was not a "
                                "Variable" % (self.name(), i + 1) if self._metas[i] is None else
                                "function %s returned a non-tensor gradient (%s) for input %d"
                                % (self.name(), type(r).__name__, i))
            out.append(r)
        return tuple(out)


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"__slots__": ()})


class Function(metaclass=_FunctionMeta):
    """Base class for custom differentiable operations.

    Example::

        class Exp(Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensors
                return g * y

        y = Exp.apply(x)          # type(y.grad_fn).__name__ == 'ExpBackward'
    """

    def __call__(self, *args, **kwargs):
        raise RuntimeError(_errors.legacy_function_call(type(self).__name__))

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor.tensor import Tensor, _sync_view
        tensor_args = [a if isinstance(a, Tensor) else None for a in args]
        for t in tensor_args:
            if t is not None and t._base is not None and mode.enabled:
                _sync_view(t)
        needs = tuple(t is not None and t._requires_grad for t in tensor_args)
        record = mode.enabled and any(needs)
        node = object.__new__(cls._backward_cls)
        Node.__init__(node)
        object.__setattr__(node, "_ctx_dict", {})
        node._fn_cls = cls
        node._materialize = True
        node._to_save = node._non_diff = node._dirty = None
        node.needs_input_grad = needs
        node.args = None
        # forward AD: inputs with tangents make the outputs' tangents come from cls.jvp;
        # inside forward the inputs show no tangent (as PyTorch)
        fw = prev_fw = _fw_level[0]
        if fw is not None and not fw.any_dual(tensor_args):
            fw = None
        prev = mode.enabled
        mode.enabled = False
        _fw_level[0] = None
        try:
            if cls.setup_context is not Function.setup_context:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, out)
            else:
                out = cls.forward(node, *args, **kwargs)
        finally:
            mode.enabled = prev
            _fw_level[0] = prev_fw
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        out_tangents = fw.function_jvp(cls, node, args, outs) if fw is not None else None
        if not record:
            if out_tangents is not None:
                _set_tangents(fw, outs, out_tangents)
            return out
        from ..ops._dispatch import _edge
        dirty = node._dirty or ()
        for t in dirty:
            if t._requires_grad and t._grad_fn is None:
                raise _errors.inplace_leaf(cls.__name__ + ".apply (mark_dirty)")
        node.next_functions = tuple((None, 0) if t is None or not t._requires_grad else _edge(t)
                                    for t in tensor_args)
        node._metas = tuple(None if t is None else (t._data.shape, t._data.dtype)
                            for t in tensor_args)
        non_diff = node._non_diff or ()
        results, metas = [], []
        for nr, o in enumerate(outs):
            if not isinstance(o, Tensor):
                results.append(o)
                metas.append(None)
                continue
            metas.append((o._data.shape, o._data.dtype))
            if any(o is t for t in non_diff) or o._data.dtype.kind not in "fc":
                if any(o is a for a in args) and not any(o is t for t in dirty):
                    o = o.detach()
                results.append(o)
                continue
            if any(o is t for t in dirty):
                o._grad_fn, o._output_nr, o._requires_grad = node, nr, True
                o._bump_version()
                results.append(o)
                continue
            t = Tensor._make_nonleaf(o._data, node, nr)
            t._share_version(o)
            if o._base is not None or not any(o is a for a in args):
                t._base = o._base
                if o._base is not None:
                    t._vmeta = [t._vc[0], o._vmeta[1], o._base._grad_fn, None]
            results.append(t)
        node.n_outputs = len(outs)
        node._fn_out_metas = tuple(metas)
        from ..ops import _dispatch
        if _dispatch._anomaly_hook[0] is not None:
            _dispatch._anomaly_hook[0](node, results)
        # tensors saved in forward: outputs among them refer to the recorded outputs
        saved = node._to_save
        if saved is not None:
            swap = {id(o): r for o, r in zip(outs, results)}
            saved = tuple(swap.get(id(t), t) for t in saved)
            Node.save_for_backward(node, *saved)
        if out_tangents is not None:
            _set_tangents(fw, results, out_tangents)
        return results[0] if single else tuple(results)


def _set_tangents(fw, outs, tangents):
    from .._tensor.tensor import Tensor
    for o, t in zip(outs, tangents):
        if isinstance(o, Tensor) and t is not None and o._data.dtype.kind in "fc":
            fw.set(o, t)


class _DelayedError(Node):
    """Node under the outputs of a ``once_differentiable`` backward: raises if reached."""

    __slots__ = ()

    def name(self):
        return "DelayedError"

    def backward(self, *grads):
        raise RuntimeError(_errors.once_differentiable_twice())


def once_differentiable(fn):
    """Decorator for a backward that is not itself differentiable: it runs
    under no_grad; differentiating its result again raises."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        from .._tensor.tensor import Tensor
        prev = mode.enabled
        mode.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            mode.enabled = prev
        if not prev or not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        from ..ops._dispatch import record
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        inputs = tuple(a for a in args if isinstance(a, Tensor) and a._requires_grad)
        wrapped = tuple(record(_DelayedError, o._data, inputs) if isinstance(o, Tensor) else o
                        for o in outs)
        return wrapped[0] if single else wrapped
    return wrapper
