"""``torch._vmap_internals``: PyTorch's first, pre-``torch.func`` vmap, which libraries
still import (``_vmap``, as ``torch.autograd.functional`` uses it for vectorized
jacobians). It runs on ``leafgrad.func.vmap``; what differs is PyTorch's older contract:
outputs must be Tensors (a tuple of them), and ``allow_none_pass_through=True`` lets a
None output through (``autograd.grad`` of an unused input), which maps the function one
batch element at a time.
"""
import functools
import warnings

from ._tensor.tensor import Tensor
from .func import vmap as _func_vmap
from .ops.shape.joins import stack as _stack

__all__ = ["vmap"]


def _name(func):
    return getattr(func, "__name__", repr(func))


def _validate_outputs(outputs, func):
    """PyTorch's ``_validate_outputs``: a Tensor or a tuple of Tensors, else ValueError."""
    name = _name(func)
    if isinstance(outputs, Tensor):
        return
    if not isinstance(outputs, tuple):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(outputs)} as the return.")
    for idx, output in enumerate(outputs):
        if not isinstance(output, Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got "
                             f"type {type(output)} for return {idx}.")


def _looped(func, in_dims, out_dims, args):
    """Map ``func`` one batch element at a time; None outputs stay None."""
    dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
    sizes = {a.shape[d] for a, d in zip(args, dims) if d is not None and isinstance(a, Tensor)}
    if len(sizes) != 1:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Expected "
                         f"all tensors to have the same size in the mapped dimension, got "
                         f"sizes {sorted(sizes)} for the mapped dimension")
    rows = [func(*[a if d is None else a.select(d, i) for a, d in zip(args, dims)])
            for i in range(sizes.pop())]
    single = not isinstance(rows[0], tuple)
    cols = [[r] if single else list(r) for r in rows]
    outs = len(cols[0])
    odims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * outs
    res = tuple(None if cols[0][k] is None else _stack([c[k] for c in cols], odims[k])
                for k in range(outs))
    return res[0] if single else res


def _vmap(func, in_dims=0, out_dims=0, allow_none_pass_through=False):
    """``_vmap(func, in_dims=0, out_dims=0, allow_none_pass_through=False)``: ``func``
    mapped over dimension ``in_dims`` of its positional arguments (int, or a tuple with
    one int or None per argument), the results stacked along ``out_dims``.

    Raises:
        ValueError: an output that is not a Tensor (None too, unless
            ``allow_none_pass_through``), sizes of the mapped dimensions that differ.
    """
    @functools.wraps(func)
    def wrapped(*args):
        if allow_none_pass_through:
            return _looped(func, in_dims, out_dims, args)

        def checked(*inner):
            out = func(*inner)
            _validate_outputs(out, func)
            return out
        return _func_vmap(checked, in_dims, out_dims)(*args)
    return wrapped


def vmap(func, in_dims=0, out_dims=0):
    """Deprecated: PyTorch's FutureWarning, then ``_vmap``."""
    warnings.warn("Please use `torch.vmap` instead of `torch._vmap_internals.vmap`.",
                  FutureWarning, stacklevel=2)
    return _vmap(func, in_dims, out_dims)
