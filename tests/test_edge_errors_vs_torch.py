"""Issue 10 items 9 and 10: every op on edge inputs (0-d tensors, size-0 dims, dims out of
range) against real torch: both raise the same built-in exception class (leafgrad's own
classes subclass PyTorch's), or both return the same shape and values.

This is how NumPy's exception classes leaking through (ValueError for an empty
reduction where PyTorch raises IndexError, ...) and invalid calls accepted with a wrong
result are found; a case listed in KNOWN is a mismatch not fixed yet, with its reason.
"""
import builtins
import warnings

import numpy as np
import pytest
import torch

import leafgrad

SHAPES = [(), (0,), (3,), (3, 0), (0, 3), (2, 3)]
DIMS = [0, 1, -1, 2, -3]

# name -> f(T, x, d): one call per (shape, dim)
OPS = {
    "sum": lambda T, x, d: x.sum(d),
    "mean": lambda T, x, d: x.mean(d),
    "prod": lambda T, x, d: x.prod(d),
    "amax": lambda T, x, d: x.amax(d),
    "amin": lambda T, x, d: x.amin(d),
    "amax_all": lambda T, x, d: x.amax(),
    "max_dim": lambda T, x, d: x.max(d)[0],
    "min_dim": lambda T, x, d: x.min(d)[0],
    "max_all": lambda T, x, d: x.max(),
    "argmax": lambda T, x, d: x.argmax(d),
    "argmin_all": lambda T, x, d: x.argmin(),
    "median_dim": lambda T, x, d: x.median(d)[0],
    "std": lambda T, x, d: x.std(d),
    "var": lambda T, x, d: x.var(d),
    "logsumexp": lambda T, x, d: T.logsumexp(x, d),
    "cumsum": lambda T, x, d: x.cumsum(d),
    "cumprod": lambda T, x, d: x.cumprod(d),
    "softmax": lambda T, x, d: T.softmax(x, d),
    "log_softmax": lambda T, x, d: T.log_softmax(x, d),
    "sort": lambda T, x, d: T.sort(x, d)[0],
    "argsort": lambda T, x, d: T.argsort(x, d),
    "topk": lambda T, x, d: T.topk(x, 1, d)[0],
    "roll": lambda T, x, d: T.roll(x, 1, d),
    "roll_flat": lambda T, x, d: T.roll(x, 1),
    "transpose": lambda T, x, d: x.transpose(0, d),
    "flip": lambda T, x, d: x.flip(d),
    "squeeze": lambda T, x, d: x.squeeze(d),
    "unsqueeze": lambda T, x, d: x.unsqueeze(d),
    "narrow": lambda T, x, d: x.narrow(d, 0, 1),
    "select": lambda T, x, d: x.select(d, 0),
    "chunk": lambda T, x, d: x.chunk(2, d)[0],
    "split": lambda T, x, d: x.split(1, d)[0],
    "unbind": lambda T, x, d: x.unbind(d)[0],
    "movedim": lambda T, x, d: x.movedim(d, 0),
    "index_select": lambda T, x, d: x.index_select(d, T.tensor([0])),
    "gather": lambda T, x, d: x.gather(d, T.zeros(x.shape, dtype=T.int64)),
    "norm": lambda T, x, d: x.norm(dim=d),
    "count_nonzero": lambda T, x, d: T.count_nonzero(x, d),
    "all": lambda T, x, d: x.all(d),
    "any": lambda T, x, d: x.any(d),
    "tril": lambda T, x, d: x.tril(),
    "triu": lambda T, x, d: x.triu(d),
    "diag": lambda T, x, d: T.diag(x),
    "diagonal": lambda T, x, d: x.diagonal(0, 0, d),
    "t": lambda T, x, d: x.t(),
    "flatten": lambda T, x, d: x.flatten(d),
    "cat": lambda T, x, d: T.cat([x, x], d),
    "stack": lambda T, x, d: T.stack([x, x], d),
    "glu": lambda T, x, d: T.nn.functional.glu(x, d),
    "outer": lambda T, x, d: T.outer(x, x),
    "pad": lambda T, x, d: T.nn.functional.pad(x, (1, -1)),
    "pad_odd": lambda T, x, d: T.nn.functional.pad(x, (1,)),
    "hstack": lambda T, x, d: T.hstack([x, x]),
    "vstack": lambda T, x, d: T.vstack([x, x]),
    "tile": lambda T, x, d: T.tile(x, ()),
    "repeat_interleave": lambda T, x, d: x.repeat_interleave(2, d),
    "masked_fill": lambda T, x, d: x.masked_fill(T.ones(x.shape[-1:], dtype=T.bool), 0.0),
    "kl_div": lambda T, x, d: T.nn.functional.kl_div(x, x.exp(), reduction="batchmean"),
    "sub_bool": lambda T, x, d: x - T.ones(x.shape, dtype=T.bool),
    "div_floor": lambda T, x, d: T.div(x, 2.0, rounding_mode="floor"),
    "add_alpha": lambda T, x, d: T.add(x, x, alpha=2),
    "nan_to_num": lambda T, x, d: T.nan_to_num(x, nan=None),
    "permute": lambda T, x, d: x.permute(d, *range(1, x.dim())),
    "expand": lambda T, x, d: x.expand(2, *x.shape),
    "reshape": lambda T, x, d: x.reshape(d, -1),
    "view": lambda T, x, d: x.view(-1, d),
    "matmul": lambda T, x, d: x @ x,
    "mm": lambda T, x, d: T.mm(x, x.t()) if x.dim() == 2 else T.mm(x, x),
    "dot": lambda T, x, d: T.dot(x, x),
    "mv": lambda T, x, d: T.mv(x, x),
    "diff": lambda T, x, d: T.diff(x, dim=d),
    "unflatten": lambda T, x, d: x.unflatten(d, (1, -1)),
    "take_along_dim": lambda T, x, d: T.take_along_dim(x, T.zeros(x.shape, dtype=T.int64), d),
    "unique_dim": lambda T, x, d: T.unique(x, dim=d),
    "normalize": lambda T, x, d: T.nn.functional.normalize(x, dim=d),
    "cross_entropy": lambda T, x, d: T.nn.functional.cross_entropy(x, T.zeros(x.shape[:1], dtype=T.int64)),
    "layer_norm": lambda T, x, d: T.nn.functional.layer_norm(x, x.shape[-1:]),
    "std_all": lambda T, x, d: x.std(),
    "median_all": lambda T, x, d: x.median(),
    "prod_all": lambda T, x, d: x.prod(),
}

# (op, shape, dim) -> why leafgrad still differs
KNOWN = {
    ("pad", (0,), 0): "F.pad moved to the padding module: a crop of an empty dim pads instead "
                      "of raising (pad_nd has the check; the new F.pad does not call it yet)",
    ("pad", (3, 0), 0): "as above",
}


def _cls(e):
    for c in type(e).__mro__:
        if getattr(builtins, c.__name__, None) is c:
            return c.__name__
    return type(e).__name__


def _run(T, name, shape, d):
    x = (T.arange(int(np.prod(shape)), dtype=T.float32) - 1.5).reshape(shape)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = OPS[name](T, x, d)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return ("raise", _cls(e), str(e))
    return ("ok", tuple(r.shape), r.detach().numpy().astype(float))


CASES = [(n, s, d) for n in OPS for s in SHAPES for d in DIMS
         if not (n in ("amax_all", "max_all", "argmin_all", "roll_flat", "tril", "diag", "t",
                       "outer", "pad", "pad_odd", "hstack", "vstack", "tile", "masked_fill",
                       "kl_div", "sub_bool", "div_floor", "add_alpha", "nan_to_num", "matmul",
                       "mm", "dot", "mv", "expand", "cross_entropy", "layer_norm", "std_all",
                       "median_all", "prod_all")
                 and d != 0)]


@pytest.mark.parametrize("name,shape,d", CASES, ids=["%s-%s-%d" % c for c in CASES])
def test_edge_inputs_match_torch(name, shape, d):
    if (name, shape, d) in KNOWN:
        pytest.xfail(KNOWN[name, shape, d])
    t = _run(torch, name, shape, d)
    lg = _run(leafgrad, name, shape, d)
    assert t[0] == lg[0], "torch: %s; leafgrad: %s" % (t[:2] + t[2:][:1], lg[:2] + lg[2:][:1])
    if t[0] == "raise":
        assert t[1] == lg[1], "torch %s (%s); leafgrad %s (%s)" % (t[1], t[2], lg[1], lg[2])
    else:
        assert t[1] == lg[1]
        np.testing.assert_allclose(lg[2], t[2], rtol=1e-5, atol=1e-6)


def test_errors_name_a_fix():
    # the messages of the new checks: PyTorch's first words, then the cause and a fix
    x = leafgrad.ones(2, 3)
    for fn in (lambda: leafgrad.nn.functional.glu(x, 1), lambda: leafgrad.outer(x, x),
               lambda: leafgrad.nn.functional.pad(x, (1,)), lambda: leafgrad.tril(x[0]),
               lambda: x.index_select(0, leafgrad.tensor([[0]])),
               lambda: leafgrad.roll(leafgrad.tensor(1.0), 1, 0)):
        with pytest.raises((RuntimeError, IndexError), match="Fix: "):
            fn()


def test_bad_input_changes_nothing():
    x = leafgrad.ones(2, 3)
    for fn in (lambda: x.masked_fill_(leafgrad.ones(2, dtype=leafgrad.bool), 0.0),
               lambda: x.__setitem__((0, [5]), 2.0), lambda: x.add_(x, alpha=1.5j)):
        with pytest.raises(Exception):
            fn()
    assert x._version == 0 and (x.numpy() == 1).all()
