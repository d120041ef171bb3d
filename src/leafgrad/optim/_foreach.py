"""The ``foreach=True`` / ``fused=True`` paths: each update is one NumPy call over all the
parameters of a group that share a dtype (and whatever else makes their scalars equal,
such as Adam's step count), instead of one call per parameter.

How: the gradients are gathered into one flat array per bucket (one ``concatenate``);
the optimizer's state tensors are views of one flat array per bucket and state name,
built on first use and rebuilt whenever a state tensor is no longer the view it was
(``load_state_dict``, a user's assignment), so they are read and written in place;
the update is computed flat and added to each parameter through a view of it. The
arithmetic is the per-parameter loop's, element for element and in the same dtype, so
the results are bit for bit the loop's. Parameters that are not floating point, or
whose gradient has another dtype or shape, take the loop.
"""
from itertools import accumulate

import numpy as np

from .._tensor.tensor import Tensor

__all__ = []


def check_flags(foreach, fused, differentiable):
    """PyTorch's constructor checks of the ``fused`` flag (RuntimeError)."""
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together. Fix: pass only "
                           "one of them (both are the same flat update in leafgrad).")
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`. Fix: pass "
                           "fused=False (or None) to differentiate through the step.")


def wanted(group):
    """Whether ``group`` asks for the flat path (``foreach`` or ``fused`` true, not
    ``differentiable``)."""
    return bool(group.get("foreach") or group.get("fused")) and not group.get("differentiable")


class Bucket:
    """Parameters updated together: ``params``, their data arrays ``xs`` and gradient
    arrays ``gs``, the flat offsets of each, and ``key`` (what they share)."""

    __slots__ = ("key", "params", "xs", "gs", "offsets")

    def __init__(self, key):
        self.key = key
        self.params, self.xs, self.gs = [], [], []

    def grads(self, maximize):
        """The gradients as one flat array (negated when ``maximize``)."""
        gs = self.gs
        flat = np.concatenate([g.reshape(-1) for g in gs]) if len(gs) > 1 \
            else np.array(gs[0].reshape(-1))
        if maximize:
            np.negative(flat, out=flat)
        return flat

    def data(self):
        """The parameters' data as one new flat array (a copy)."""
        return np.concatenate([x.reshape(-1) for x in self.xs])

    def add(self, update):
        """``x += update[slice of x]`` for every parameter (each its loop's in-place add),
        then bump the parameters' versions."""
        o = self.offsets
        for i, x in enumerate(self.xs):
            x += update[o[i]:o[i + 1]].reshape(x.shape)
        for p in self.params:
            p._bump_version()

    def store(self, flat):
        """Copy ``flat`` (the new data of all the parameters) into them; bump versions."""
        o = self.offsets
        for i, x in enumerate(self.xs):
            np.copyto(x, flat[o[i]:o[i + 1]].reshape(x.shape))
        for p in self.params:
            p._bump_version()


def buckets(group, key=None):
    """Split the parameters of ``group`` that have a gradient into buckets.

    ``key(p, x)`` (optional, called once per such parameter, in order) adds to the
    bucket key beside the dtype. Returns (list of Bucket, list of (p, x, g) for the
    loop): the loop takes the parameters the flat path does not (non-floating dtypes, a
    gradient of another dtype or shape, a bucket with a parameter listed twice), with
    ``g`` negated under ``maximize``.
    """
    maximize = group.get("maximize", False)
    params = [p for p in group["params"] if p._grad is not None]
    xs = [p._data for p in params]
    gs = [p._grad._data for p in params]
    ok = [x.dtype.kind == "f" and g.dtype == x.dtype and g.shape == x.shape
          for x, g in zip(xs, gs)]
    keys = [(x.dtype if key is None else (x.dtype, key(p, x))) if o else None
            for p, x, o in zip(params, xs, ok)]
    if params and keys.count(keys[0]) == len(keys) and keys[0] is not None:
        found = {keys[0]: Bucket(keys[0])}          # the usual case: one bucket
        found[keys[0]].params, found[keys[0]].xs, found[keys[0]].gs = params, xs, gs
        rest = []
    else:
        found = {}
        rest = [(p, x, -g if maximize else g)
                for p, x, g, k in zip(params, xs, gs, keys) if k is None]
        for p, x, g, k in zip(params, xs, gs, keys):
            if k is not None:
                b = found.get(k)
                if b is None:
                    b = found[k] = Bucket(k)
                b.params.append(p)
                b.xs.append(x)
                b.gs.append(g)
    out = []
    for b in found.values():
        if len({id(p) for p in b.params}) < len(b.params):
            # a parameter listed twice is updated twice, one after the other: the loop
            rest.extend((p, x, -g if maximize else g) for p, x, g in zip(b.params, b.xs, b.gs))
            continue
        b.offsets = list(accumulate((x.size for x in b.xs), initial=0))
        out.append(b)
    return out, rest


def flat_state(opt, bucket, name):
    """One flat array whose consecutive views are ``opt.state[p][name]._data`` for the
    parameters of ``bucket``: the cached one while every state tensor still holds its
    view, else a new one (the state's values copied in, each tensor rebound to its view)."""
    cache = opt.__dict__.get("_flat_states")
    if cache is None:       # not in __getstate__: a copy or an unpickled optimizer rebuilds
        cache = opt.__dict__["_flat_states"] = {}
    state = opt.state
    tensors = [state[p][name] for p in bucket.params]
    ckey = (name, id(bucket.params[0]))
    hit = cache.get(ckey)
    if hit is not None:
        flat, views = hit
        if len(views) == len(tensors) and all(
                t._data is v for t, v in zip(tensors, views)):
            return flat
    flat = np.concatenate([t._data.reshape(-1) for t in tensors]).astype(
        bucket.xs[0].dtype, copy=False)
    cache[ckey] = flat, _bind(tensors, flat, bucket)
    return flat


def new_flat_state(opt, bucket, name, flat):
    """Make ``flat`` the storage of a new state entry ``name`` of every parameter of
    ``bucket`` (each a tensor viewing its slice)."""
    tensors = [Tensor._make_plain(None) for _ in bucket.params]
    for p, t in zip(bucket.params, tensors):
        opt.state[p][name] = t
    cache = opt.__dict__.setdefault("_flat_states", {})
    cache[(name, id(bucket.params[0]))] = flat, _bind(tensors, flat, bucket)


def _bind(tensors, flat, bucket):
    o = bucket.offsets
    views = []
    for i, (t, x) in enumerate(zip(tensors, bucket.xs)):
        v = flat[o[i]:o[i + 1]].reshape(x.shape)
        t._data = v
        views.append(v)
    return views
