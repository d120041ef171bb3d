"""torch.functional's Python-level functions (atleast_*, block_diag, cartesian_prod,
chain_matmul, unravel_index) against real PyTorch: values, shapes, dtypes, gradients."""
import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import leafgrad
from _outcome import builtin_name


def _both(fn, arrays):
    """fn on leafgrad and on torch with the same float64 leaves; outputs and grads."""
    res = []
    for T in (leafgrad, torch):
        xs = [T.tensor(a, dtype=T.float64, requires_grad=True) for a in arrays]
        out = fn(T, *xs)
        outs = out if isinstance(out, tuple) else (out,)
        total = sum((o.double() * (i + 1.5)).sum() for i, o in enumerate(outs) if o.requires_grad)
        grads = T.autograd.grad(total, xs, allow_unused=True) if xs else ()
        res.append(([o.detach().numpy() for o in outs],
                    [None if g is None else g.numpy() for g in grads]))
    return res


shapes = st.lists(st.integers(1, 3), min_size=0, max_size=4).map(tuple)


@given(st.lists(shapes, min_size=1, max_size=3), st.sampled_from(["atleast_1d", "atleast_2d",
                                                                   "atleast_3d"]))
def test_atleast(shs, name):
    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=s) for s in shs]
    (lo, lg), (to, tg) = _both(lambda T, *xs: getattr(T, name)(*xs), arrays)
    assert [o.shape for o in lo] == [o.shape for o in to]
    for a, b in zip(lo + lg, to + tg):
        np.testing.assert_allclose(a, b)


@given(st.lists(st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple), min_size=1,
                max_size=4))
def test_block_diag(shs):
    rng = np.random.default_rng(1)
    arrays = [rng.normal(size=s) for s in shs]
    (lo, lg), (to, tg) = _both(lambda T, *xs: T.block_diag(*xs), arrays)
    for a, b in zip(lo + lg, to + tg):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b)


def test_block_diag_dtypes_and_empty():
    for T in (leafgrad, torch):
        assert str(T.block_diag(T.tensor([1, 2]), T.tensor([[3.0]])).dtype).endswith("float32")
    assert tuple(leafgrad.block_diag().shape) == tuple(torch.block_diag().shape)


@given(st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_cartesian_prod(sizes):
    rng = np.random.default_rng(2)
    arrays = [rng.normal(size=n) for n in sizes]
    (lo, lg), (to, tg) = _both(lambda T, *xs: T.cartesian_prod(*xs), arrays)
    for a, b in zip(lo + lg, to + tg):
        np.testing.assert_allclose(a, b)


def test_chain_matmul_warns_and_multiplies():
    rng = np.random.default_rng(3)
    arrays = [rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4, 2))]
    with pytest.warns(UserWarning):
        (lo, lg), (to, tg) = _both(lambda T, *xs: T.chain_matmul(*xs), arrays)
    for a, b in zip(lo + lg, to + tg):
        np.testing.assert_allclose(a, b)


@pytest.mark.parametrize("case", [
    lambda T: T.unravel_index(T.tensor([4, 1, -1]), (2, 3)),
    lambda T: T.unravel_index(T.tensor([[0, 5], [2, 3]]), (3, 2)),
    lambda T: T.unravel_index(T.tensor(7), (2, 2, 2)),
    lambda T: T.unravel_index(T.tensor([6]), (2, 3)),
    lambda T: T.unravel_index(T.tensor([1.0]), (2, 3)),
])
def test_unravel_index(case):
    def run(T):
        try:
            return [t.tolist() for t in case(T)]
        except Exception as e:     # noqa: BLE001 - compared with torch
            return builtin_name(type(e))
    assert run(leafgrad) == run(torch)


def test_module_importable_as_torch_functional():
    import leafgrad.functional as F
    assert F.einsum is leafgrad.einsum
    assert set(F.__all__) <= set(dir(F))
