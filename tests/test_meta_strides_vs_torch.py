"""Meta tensors' views report PyTorch's strides, storage offsets and contiguity
(``_tensor/meta.py``: a meta array carries its strides and start; views are computed on a
layout stand-in that NumPy never reads), compared with real torch's meta device."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad


def _layout(t):
    return tuple(t.shape), t.stride(), t.storage_offset(), t.is_contiguous()


def _both(f, shape=(3, 4), dtype="float32"):
    res = []
    for T in (torch, leafgrad):
        r = f(T, T.empty(*shape, dtype=getattr(T, dtype), device="meta"))
        res.append([_layout(e) for e in r] if isinstance(r, (tuple, list)) else _layout(r))
    return res


CASES = {
    "t": lambda T, m: m.t(),
    "slice": lambda T, m: m[1:, ::2],
    "select": lambda T, m: m[1],
    "transpose": lambda T, m: m.transpose(0, 1),
    "mT": lambda T, m: m.mT,
    "permute": lambda T, m: m.permute(1, 0),
    "diagonal": lambda T, m: m.diagonal(),
    "diagonal_offset": lambda T, m: m.diagonal(1),
    "diagonal_of_t": lambda T, m: m.t().diagonal(-1),
    "expand": lambda T, m: m[:, :1].expand(3, 5),
    "expand_new_dims": lambda T, m: m[0].expand(2, 3, 4),
    "narrow": lambda T, m: m.narrow(1, 1, 2),
    "unfold": lambda T, m: m.unfold(1, 2, 1),
    "unfold_dim0": lambda T, m: m.unfold(0, 2, 1),
    "as_strided": lambda T, m: m.as_strided((2, 2), (1, 3), 1),
    "as_strided_of_slice": lambda T, m: m[1:].as_strided((2,), (2,)),
    "split": lambda T, m: m.split(2, 1),
    "chunk": lambda T, m: m.chunk(2, 0),
    "unbind": lambda T, m: m.unbind(1),
    "movedim": lambda T, m: m.movedim(0, 1),
    "slice_t_slice": lambda T, m: m[1:].t()[::2, 1:],
    "none_and_ellipsis": lambda T, m: m[None, ..., 2],
    "none_between": lambda T, m: m[:, None, 1:],
    "unsqueeze": lambda T, m: m.unsqueeze(1),
    "view": lambda T, m: m.view(12),
    "view_of_slice": lambda T, m: m[1:].view(2, 2, 2),
    "reshape_view_of_t": lambda T, m: m.t().reshape(2, 2, 3),
    "reshape_copy_of_t": lambda T, m: m.t().reshape(12),
    "contiguous_of_t": lambda T, m: m.t().contiguous(),
    "clone_of_t": lambda T, m: m.t().clone(),
    "elementwise_of_t": lambda T, m: m.t() + 1,
    "exp_of_t": lambda T, m: m.t().exp(),
    "to_double_of_t": lambda T, m: m.t().double(),
    "empty_like_of_t": lambda T, m: T.empty_like(m.t()),
    "flip": lambda T, m: m.flip(0),
    "squeeze": lambda T, m: m[:1].squeeze(0),
    "empty_strided": lambda T, m: T.empty_strided((2, 3), (1, 2), device="meta"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_meta_view_layout_as_pytorch(name):
    want, got = _both(CASES[name])
    assert got == want


@pytest.mark.parametrize("name", ["real", "imag", "view_as_real", "real_of_slice_t"])
def test_meta_complex_views_as_pytorch(name):
    f = {"real": lambda T, m: m.real, "imag": lambda T, m: m.imag,
         "view_as_real": lambda T, m: T.view_as_real(m),
         "real_of_slice_t": lambda T, m: m[1:].t().imag}[name]
    want, got = _both(f, dtype="complex64")
    assert got == want


def test_meta_view_that_cannot_be_a_view_raises_as_pytorch():
    for T in (torch, leafgrad):
        m = T.empty(3, 4, device="meta")
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            m.t().view(12)
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            m[:, :2].view(6)


def test_meta_layout_matches_leafgrads_cpu_layout():
    # the meta device and the CPU give one layout for the same view (both PyTorch's)
    for name, f in CASES.items():
        if name in ("none_and_ellipsis", "none_between", "expand_new_dims"):
            continue        # leafgrad's CPU arrays keep NumPy's 0 stride for new size-1 dims
        res = []
        for dev in ("cpu", "meta"):
            r = f(leafgrad, leafgrad.empty(3, 4, device=dev))
            res.append([_layout(e) for e in r] if isinstance(r, tuple) else _layout(r))
        assert res[0] == res[1], name


def test_meta_views_cost_no_memory():
    # a huge meta tensor's views and their layout without allocating
    m = leafgrad.empty(2 ** 20, 2 ** 20, device="meta")
    v = m.t()[5:, ::3].unfold(0, 4, 2)
    w = torch.empty(2 ** 20, 2 ** 20, device="meta").t()[5:, ::3].unfold(0, 4, 2)
    assert _layout(v) == _layout(w)


def _random_step(rng, x):
    """A view (or copy) drawn for ``x``'s shape: a function applied to both tensors."""
    import math
    nd, sh = x.ndim, tuple(x.shape)
    name = rng.choice(["t", "transpose", "slice", "select", "narrow", "unfold", "diagonal",
                       "expand", "unsqueeze", "permute", "reshape", "squeeze", "index",
                       "flatten", "clone", "mul", "movedim"])
    if nd == 0 or (name == "t" and nd > 2) or (name == "diagonal" and nd < 2):
        name = "unsqueeze"
    d = rng.randint(0, nd - 1) if nd else 0
    n = sh[d] if nd else 0
    if name == "t":
        return lambda x: x.t()
    if name in ("transpose", "movedim"):
        a, b = rng.randint(0, nd - 1), rng.randint(0, nd - 1)
        return lambda x: getattr(x, name)(a, b)
    if name == "permute":
        p = list(range(nd))
        rng.shuffle(p)
        return lambda x: x.permute(*p)
    if name == "slice":
        key = (slice(None),) * d + (slice(rng.randint(0, n), None, rng.randint(1, 3)),)
        return lambda x: x[key]
    if name == "select" and n:
        i = rng.randint(0, n - 1)
        return lambda x: x.select(d, i)
    if name == "narrow":
        lo = rng.randint(0, n)
        ln = rng.randint(0, n - lo)
        return lambda x: x.narrow(d, lo, ln)
    if name == "unfold" and n:
        size, step = rng.randint(1, n), rng.randint(1, 3)
        return lambda x: x.unfold(d, size, step)
    if name == "diagonal":
        e = rng.choice([i for i in range(nd) if i != d])
        off = rng.randint(-2, 2)
        return lambda x: x.diagonal(off, d, e)
    if name == "expand" and n == 1:
        sizes = tuple(rng.randint(1, 4) if i == d else -1 for i in range(nd))
        return lambda x: x.expand(*sizes)
    if name == "reshape":
        rem, dims = math.prod(sh), []
        while rem > 1 and len(dims) < 3:
            k = rng.choice([k for k in range(1, rem + 1) if rem % k == 0])
            dims.append(k)
            rem //= k
        dims.append(rem)
        for _ in range(rng.randint(0, 2)):
            dims.insert(rng.randint(0, len(dims)), 1)
        how = rng.choice(["reshape", "view"])
        return lambda x: getattr(x, how)(*dims)
    if name == "squeeze":
        return lambda x: x.squeeze(d)
    if name == "flatten":
        return lambda x: x.flatten()
    if name in ("clone", "mul"):
        f = (lambda x: x.clone()) if name == "clone" else (lambda x: x * 2)
        f.copies = True
        return f
    if name == "index":
        key = []
        for i in range(nd):
            c = rng.random()
            key.append(slice(rng.randint(-sh[i], sh[i]), None, rng.randint(1, 2)) if c < 0.4
                       else rng.randint(0, sh[i] - 1) if c < 0.6 and sh[i] else slice(None))
            if rng.random() < 0.3:
                key.append(None)
        if rng.random() < 0.3:
            key.insert(rng.randint(0, len(key)), Ellipsis)
        key = tuple(key)
        return lambda x: x[key]
    u = rng.randint(0, nd)
    return lambda x: x.unsqueeze(u)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.integers(0, 2 ** 32 - 1))
def test_meta_view_chains_as_pytorch(shape, seed):
    # chains of views, reshapes, indexing and copies (clone, an elementwise op) of meta
    # tensors: every step's layout as PyTorch's, and the same errors (view of a layout
    # that cannot be viewed). Not compared: the strides of an *empty* elementwise result
    # or copy (PyTorch's meta kernels give size-0 dims strides of their own there).
    import random
    rng = random.Random(seed)
    pair = [T.empty(*shape, device="meta") for T in (torch, leafgrad)]
    for _ in range(rng.randint(1, 6)):
        f = _random_step(rng, pair[0])
        res = []
        for x in pair:
            try:
                res.append(f(x))
            except RuntimeError as e:
                res.append(e)
        assert [isinstance(r, Exception) for r in res] == [isinstance(res[0], Exception)] * 2
        if isinstance(res[0], Exception):
            return
        pair = res
        if pair[0].numel() == 0 and getattr(f, "copies", False):
            return
        assert _layout(pair[1]) == _layout(pair[0])
