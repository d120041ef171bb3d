"""Custom autograd functions: ``class F(Function)`` with static ``forward``/``backward``.

As ``torch.autograd.Function``: ``F.apply(*args)`` runs ``forward(ctx, *args)``
without recording, then records one node whose ``backward(ctx, *grads)``
returns one gradient per input of ``forward``.
"""
import functools

import numpy as np

from .. import _errors
from .grad_mode import mode
from .graph import Node

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` of a custom Function's forward (PyTorch's ``FunctionCtx``)."""

    def save_for_backward(self, *tensors):
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_diff = set(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def set_materialize_grads(self, value):
        self._materialize = bool(value)


class BackwardCFunction(Node):
    """The node recorded for one ``Function.apply`` call; it is also the ``ctx``."""

    __slots__ = ("_fn_cls", "_ctx_dict", "n_outputs", "out_metas", "_materialize",
                 "_saved_outputs")
    saves = True

    def __getattr__(self, name):
        try:
            return object.__getattribute__(self, "_ctx_dict")[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        try:
            object.__setattr__(self, name, value)
        except AttributeError:
            self._ctx_dict[name] = value

    def name(self):
        return self._fn_cls.__name__ + "Backward"

    def save_for_backward(self, *tensors):
        Node.save_for_backward(self, *tensors)

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self._materialize = bool(value)

    def backward(self, *grads):
        from .._tensor import Tensor
        if self._materialize:
            grads = tuple(Tensor._make_plain(np.zeros(m[0], m[1])) if g is None else g
                          for g, m in zip(grads, self.out_metas))
        res = self._fn_cls.backward(self, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n = len(self.next_functions)
        if len(res) < n:
            raise RuntimeError(
                "function %s returned an incorrect number of gradients (expected %d, got %d): "
                "backward must return one gradient (or None) per input of forward."
                % (self.name(), n, len(res)))
        if len(res) > n:
            if any(r is not None for r in res[n:]):
                raise RuntimeError("function %s returned an incorrect number of gradients "
                                   "(expected %d, got %d)" % (self.name(), n, len(res)))
            res = res[:n]
        return tuple(None if not need else r for r, need in zip(res, self.needs_input_grad))


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
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor
        tensor_args = [a if isinstance(a, Tensor) else None for a in args]
        needs = tuple(t is not None and t._requires_grad for t in tensor_args)
        record = mode.enabled and any(needs)
        node = object.__new__(cls._backward_cls)
        Node.__init__(node)
        object.__setattr__(node, "_ctx_dict", {})
        object.__setattr__(node, "_fn_cls", cls)
        object.__setattr__(node, "_materialize", True)
        node.needs_input_grad = needs
        node.args = None
        node._saved = None
        prev = mode.enabled
        mode.enabled = False
        try:
            out = cls.forward(node, *args, **kwargs)
        finally:
            mode.enabled = prev
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        if not record:
            return out
        from ..ops._dispatch import _edge
        node.next_functions = tuple((None, 0) if t is None or not t._requires_grad else _edge(t)
                                    for t in tensor_args)
        node._metas = tuple(None if t is None else (t._data.shape, t._data.dtype)
                            for t in tensor_args)
        non_diff = node._ctx_dict.get("_non_diff_ids", set())
        results, nr, metas = [], 0, []
        for o in outs:
            if isinstance(o, Tensor) and id(o) not in non_diff and o._data.dtype.kind in "fc":
                is_input = any(o is a for a in args)
                data = o._data
                t = Tensor._make_nonleaf(data, node, nr)
                if not is_input:
                    t._version = o._version
                results.append(t)
                metas.append((data.shape, data.dtype))
                nr += 1
            else:
                results.append(o)
        node.n_outputs = nr
        node.out_metas = tuple(metas)
        # saved tensors that are outputs must refer to the recorded outputs
        if node._saved is not None:
            swap = {id(o): r for o, r in zip(outs, results)}
            saved = tuple(swap.get(id(t), t) for t in node._saved)
            node._saved = saved
            node._saved_versions = tuple(None if t is None else t._version[0] for t in saved)
        return results[0] if single else tuple(results)


def _mark_non_diff(self, *tensors):
    self._ctx_dict["_non_diff_ids"] = set(id(t) for t in tensors)


BackwardCFunction.mark_non_differentiable = _mark_non_diff


def once_differentiable(fn):
    """Decorator for a backward that is not itself differentiable: it runs
    under no_grad, and double backward through it raises."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = mode.enabled
        mode.enabled = False
        try:
            return fn(ctx, *args)
        finally:
            mode.enabled = prev
    return wrapper


_ = _errors
