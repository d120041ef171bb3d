"""``vmap``: map a function over a batch dimension of its inputs.

First the function runs once on the whole batch (``_batched.py``: batching rules for
the common ops, the mapped inputs seen as one sample each); where an op has no rule,
writes in place, or ``randomness`` is not 'error', it runs once per batch element
instead (``select`` views of the mapped inputs, so gradients flow back to the batched
tensors) and the outputs are stacked along ``out_dims``. Shapes, values and errors are
torch.func.vmap's, and so is the ``randomness`` rule (random operations inside refused
by default).
"""
from .._random import generator as _random
from .._tensor.tensor import Tensor
from ._batched import BatchedTensor, Unbatchable, active as _active, wrap as _wrap
from ._pytree import broadcast_prefix as _broadcast_prefix, flatten as _flatten, \
    unflatten as _unflatten


def _fname(func):
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``vmap(f, in_dims=0, out_dims=0)(*args, **kwargs)``.

    Args:
        in_dims: int or None (every positional argument), or a pytree prefix of the
            arguments (None: not mapped). Keyword arguments are never mapped.
        out_dims: int, or a tuple with one entry per output.
        randomness: 'error' (a random operation inside raises RuntimeError, as PyTorch),
            'different' (each element draws in turn: for uniform draws the numbers of one
            batched draw, as PyTorch), 'same' (every element draws the same numbers; the
            default generator only).
        chunk_size: accepted (the loop already runs one element at a time).

    Raises:
        ValueError: mapped sizes differ, a mapped non-tensor, an in_dim out of range, a
            non-tensor output, a malformed in_dims/out_dims.
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           "'same'. Got %s" % randomness)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError("vmap: chunk_size should be None or greater than 0. (got %s)"
                         % chunk_size)

    def wrapped(*args, **kwargs):
        name = "vmap(%s, in_dims=%r, ...)(<inputs>)" % (_fname(func), in_dims)
        if not isinstance(in_dims, (int, tuple, list, dict)) and in_dims is not None:
            raise ValueError("vmap(%s, in_dims=%r, ...)(<inputs>): expected `in_dims` to be "
                             "int or a (potentially nested) tuple matching the structure of "
                             "inputs, got: %s." % (_fname(func), in_dims, type(in_dims)))
        if isinstance(in_dims, (tuple, list)) and len(in_dims) != len(args):
            raise ValueError("%s: in_dims is not compatible with the structure of `inputs`. "
                             "in_dims has structure %r but inputs has %d arguments."
                             % (name, in_dims, len(args)))
        leaves, spec = _flatten(list(args))
        dims = _broadcast_prefix(list(in_dims) if isinstance(in_dims, tuple) else in_dims,
                                        list(args), name)
        size = None
        sizes = []
        norm = []
        for x, d in zip(leaves, dims):
            if d is None:
                norm.append(None)
                continue
            if not isinstance(d, int) or isinstance(d, bool):
                raise ValueError("%s: in_dim must be int or None, got %r" % (name, d))
            if not isinstance(x, Tensor):
                raise ValueError("%s: Got in_dim=%d for an input but the input is of type %s. "
                                 "We cannot vmap over non-Tensor arguments, please use None as "
                                 "the respective in_dim" % (name, d, type(x)))
            nd = x.dim()
            if not -nd <= d < nd:
                raise ValueError("%s: Got in_dim=%d for some input, but that input is a Tensor "
                                 "of dimensionality %d so expected in_dim to satisfy -%d <= "
                                 "in_dim < %d." % (name, d, nd, nd, nd))
            d %= nd
            norm.append(d)
            sizes.append(x.shape[d])
        if not sizes:
            raise ValueError("vmap(%s, in_dims=%r, ...)(<inputs>): at least one input must be a "
                             "Tensor mapped over a dimension (in_dims not all None). Fix: map "
                             "at least one tensor argument" % (_fname(func), in_dims))
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             "dimension, got sizes %s for the mapped dimension" % sizes)
        size = sizes[0]
        if _active():
            raise Unbatchable()     # inside a batched call: that one loops instead
        if randomness == "error":
            # run is read at call time: a wrapper set on func._batched.run applies
            from ._batched import run
            try:
                batch = [x if d is None else _wrap(x.movedim(d, 0) if d else x, size)
                         for x, d in zip(leaves, norm)]
                out = run(func, _unflatten(batch, spec), kwargs, size)
                return _unbatch(out, out_dims, func, size)
            except Unbatchable:
                pass                        # an op without a batching rule: one by one
        results = []
        gen = _random.default_generator
        state = gen.get_state() if randomness == "same" else None
        _random.vmap_randomness.append(randomness)
        try:
            for b in range(size):
                if state is not None and b:
                    gen.set_state(state)        # 'same': every element draws the same numbers
                sample = [x if d is None else x.select(d, b) for x, d in zip(leaves, norm)]
                results.append(func(*_unflatten(sample, spec), **kwargs))
        finally:
            _random.vmap_randomness.pop()
        return _stack_outputs(results, out_dims, func, size)
    return wrapped


def _out_dims(first, flat0, out_dims, func):
    """One out_dim per output leaf (``first``: one sample's output)."""
    odims = out_dims if isinstance(out_dims, (tuple, list)) else [out_dims] * len(flat0)
    if isinstance(out_dims, (tuple, list)) and len(out_dims) != len(flat0):
        if not (isinstance(first, (tuple, list)) and len(out_dims) == len(first)):
            raise ValueError("vmap(%s, ..., out_dims=%r)(<inputs>): out_dims is not compatible "
                             "with the structure of `outputs`." % (_fname(func), out_dims))
        odims = _broadcast_prefix(list(out_dims), list(first), "vmap")
    return odims


def _unbatch(out, out_dims, func, size):
    """The batched run's outputs with the batch moved to ``out_dims`` (an output that
    does not depend on the mapped inputs is repeated, as the loop would stack it);
    anything the loop reports better (a non-tensor, a bad out_dim) goes to the loop."""
    from .._api import functions as _functions
    flat, spec = _flatten(out)
    try:
        odims = _out_dims(out, flat, out_dims, func)
    except ValueError:
        raise Unbatchable() from None
    res = []
    for x, d in zip(flat, odims):
        if not isinstance(x, Tensor) or (d is not None and not isinstance(d, int)):
            raise Unbatchable()
        batched = type(x) is BatchedTensor
        if d is None:
            if batched:
                raise Unbatchable()
            res.append(x)
            continue
        nd = x.dim() + 1
        if not -nd <= d < nd:
            raise Unbatchable()
        d %= nd
        res.append(x._bv.movedim(0, d) if batched and d else x._bv if batched
                   else _functions.stack([x] * size, d))
    return _unflatten(res, spec)


def _stack_outputs(results, out_dims, func, size):
    from .._api import functions as _functions
    if not results:
        raise ValueError("vmap: cannot map over a dimension of size 0 here. Fix: skip the call "
                         "for an empty batch")
    flat0, spec = _flatten(results[0])
    odims = _out_dims(results[0], flat0, out_dims, func)
    columns = [[] for _ in flat0]
    for r in results:
        flat, _ = _flatten(r)
        for col, x in zip(columns, flat):
            col.append(x)
    out = []
    for col, d in zip(columns, odims):
        if d is None:
            out.append(col[0])
            continue
        if not isinstance(col[0], Tensor):
            raise ValueError("vmap(%s, ...): `%s` must only return Tensors, got type %s. Did you "
                             "mean to set out_dims= to None for output?"
                             % (_fname(func), _fname(func), type(col[0])))
        nd = col[0].dim() + 1
        if not -nd <= d < nd:
            raise ValueError("vmap(%s, ..., out_dims=%r): out_dim=%d out of range for outputs "
                             "with %d dims" % (_fname(func), out_dims, d, nd - 1))
        out.append(_functions.stack(col, d % nd))
    return _unflatten(out, spec)
