"""``autograd.functional``: jacobian, hessian, vjp, jvp, hvp, vhp (PyTorch signatures).

Built on ``autograd.grad``: a Jacobian is one vector-Jacobian product per
output element; ``jvp`` uses the double-vjp trick (Jacobian-vector product
as the gradient of a vjp with respect to its vector).
"""
import numpy as np

from .grad_mode import enable_grad

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]


def _tup(x):
    return (x, False) if isinstance(x, tuple) else ((x,), True)


def _prep(inputs, create_graph):
    return tuple(t.detach().requires_grad_(True) if not create_graph or not t.requires_grad
                 else t.view_as(t) for t in inputs)


def _zeros(t):
    from .._tensor import Tensor
    return Tensor._make_plain(np.zeros(t._data.shape, t._data.dtype))


def _grad(outs, ins, gos, create_graph, strict=False):
    from . import grad
    outs = [o for o in outs]
    live = [(o, g) for o, g in zip(outs, gos) if o.requires_grad]
    if not live:
        return tuple(_zeros(i) for i in ins)
    gs = grad([o for o, _ in live], ins, [g for _, g in live], create_graph=create_graph,
              retain_graph=True, allow_unused=True)
    if strict and any(g is None for g in gs):
        raise RuntimeError("The output of the user-provided function is independent of input "
                           "%d. This is not allowed in strict mode." % [g is None for g in gs].index(True))
    return tuple(_zeros(i) if g is None else g for g, i in zip(gs, ins))


def _finish(x, create_graph):
    if isinstance(x, tuple):
        return tuple(_finish(e, create_graph) for e in x)
    return x if create_graph else x.detach()


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J)."""
    inputs, single_in = _tup(inputs)
    with enable_grad():
        ins = _prep(inputs, create_graph)
        outs, single_out = _tup(func(*ins))
        if v is None:
            if any(o.numel() != 1 for o in outs):
                raise RuntimeError("The vector v can only be None if the user-provided function "
                                   "returns a single Tensor with a single element.")
            v = tuple(o.new_ones(o.shape) if o.dim() else o.new_ones(()) for o in outs)
        vs, _ = _tup(v)
        g = _grad(outs, ins, vs, create_graph, strict)
    o = outs[0] if single_out else outs
    return _finish(o, create_graph), _finish(g[0] if single_in else g, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v) by the double-vjp trick."""
    from .._tensor import Tensor
    inputs, single_in = _tup(inputs)
    with enable_grad():
        ins = _prep(inputs, create_graph)
        outs, single_out = _tup(func(*ins))
        if v is None:
            v = tuple(_ones(i) for i in ins)
        vs, _ = _tup(v)
        us = tuple(Tensor._make_plain(np.zeros(o._data.shape, o._data.dtype)).requires_grad_()
                   for o in outs)
        gs = _grad(outs, ins, us, True, strict)
        from . import grad
        live = [(g, vv) for g, vv in zip(gs, vs) if g.requires_grad]
        if live:
            jv = grad([g for g, _ in live], us, [vv for _, vv in live], create_graph=create_graph,
                      retain_graph=True, allow_unused=True)
            jv = tuple(_zeros(o) if j is None else j for j, o in zip(jv, outs))
        else:
            jv = tuple(_zeros(o) for o in outs)
    o = outs[0] if single_out else outs
    return _finish(o, create_graph), _finish(jv[0] if single_out else jv, create_graph)


def _ones(t):
    from .._tensor import Tensor
    return Tensor._make_plain(np.ones(t._data.shape, t._data.dtype))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """Jacobian of ``func`` at ``inputs``: shape out.shape + in.shape (tuples when
    inputs or outputs are tuples)."""
    from .._tensor import Tensor
    from ..ops.shape import stack
    inputs, single_in = _tup(inputs)
    with enable_grad():
        ins = _prep(inputs, create_graph)
        outs, single_out = _tup(func(*ins))
        result = []
        for o in outs:
            rows = []
            for k in range(max(o.numel(), 0)):
                seed = np.zeros(o._data.shape, o._data.dtype)
                seed.reshape(-1)[k] = 1
                rows.append(_grad([o], ins, [Tensor._make_plain(seed)], create_graph, strict))
            per_in = []
            for j, i in enumerate(ins):
                if rows:
                    J = stack([r[j] for r in rows]).reshape(tuple(o.shape) + tuple(i.shape))
                else:
                    J = Tensor._make_plain(np.zeros(tuple(o.shape) + tuple(i.shape), i._data.dtype))
                per_in.append(_finish(J, create_graph))
            result.append(per_in[0] if single_in else tuple(per_in))
    return result[0] if single_out else tuple(result)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """Hessian of a scalar function: shape in.shape + in.shape."""
    inputs_t, single_in = _tup(inputs)

    def grad_fn(*ins):
        return jacobian(func, ins if not single_in else ins[0], create_graph=True, strict=strict)
    return jacobian(grad_fn, inputs, create_graph=create_graph, strict=strict)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H)."""
    inputs, single_in = _tup(inputs)
    with enable_grad():
        ins = _prep(inputs, True)
        out = func(*ins)
        (g,) = (_grad([out], ins, [_ones(out)], True, strict),)
        vs, _ = _tup(v)
        from . import grad
        h = grad(list(g), ins, list(vs), create_graph=create_graph, allow_unused=True)
        h = tuple(_zeros(i) if x is None else x for x, i in zip(h, ins))
    return _finish(out, create_graph), _finish(h[0] if single_in else h, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) (the Hessian is symmetric, so equal to vhp)."""
    return vhp(func, inputs, v, create_graph, strict)
