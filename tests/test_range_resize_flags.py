"""torch.range, Tensor.resize_ / resize_as_ and the Tensor.is_<device> flags against PyTorch."""
import warnings

import numpy as np
import pytest
import torch as T

import leafgrad as L

RANGES = [(0, 1, 0.3), (0, 1, 0.1), (3, 0, -1), (0, 0), (0, 5, 2), (-2.5, 2.5, 0.5), (1, 10, 3)]


@pytest.mark.parametrize("args", RANGES)
@pytest.mark.parametrize("dtype", [None, "float64", "int32", "int64"])
def test_range_values_dtype_and_warning(args, dtype):
    if dtype and dtype.startswith("int") and len(args) == 3 and abs(args[2]) < 1:
        pytest.skip("a step truncated to 0: PyTorch's integer kernel divides by it (SIGFPE)")
    kw = {} if dtype is None else {"dtype": getattr(T, dtype)}
    lkw = {} if dtype is None else {"dtype": getattr(L, dtype)}
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        want = T.range(*args, **kw)
    with warnings.catch_warnings(record=True) as wl:
        warnings.simplefilter("always")
        got = L.range(*args, **lkw)
    assert [str(w.message) for w in wl] == [str(w.message) for w in wt]
    assert wl[0].filename == __file__            # points at the caller, as PyTorch's
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("args", [(0, 3, 0), (3, 0), (0, 3, -1)])
def test_range_errors(args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError) as et:
            T.range(*args)
        with pytest.raises(RuntimeError) as el:
            L.range(*args)
    assert str(el.value) == str(et.value)


@pytest.mark.parametrize("new", [(2, 2), (3, 3), (0,), (6,), (1, 2, 3)])
def test_resize_keeps_storage_prefix_and_version_as_torch(new):
    t, g = T.arange(6.0), L.arange(6.0)
    vt, vg = t.view(2, 3), g.view(2, 3)
    t.resize_(*new)
    g.resize_(*new)
    assert tuple(g.shape) == tuple(t.shape) and g.stride() == t.stride()
    assert g._version == t._version
    n = min(6, int(np.prod(new)))
    np.testing.assert_array_equal(g.numpy().reshape(-1)[:n], t.numpy().reshape(-1)[:n])
    if int(np.prod(new)) <= 6:               # same storage: a write is seen by the old view
        t.view(-1)[:1] = 7.0 if t.numel() else 0
        g.view(-1)[:1] = 7.0 if g.numel() else 0
        np.testing.assert_array_equal(vg.numpy(), vt.numpy())


def test_resize_as_and_requires_grad_error():
    assert tuple(L.zeros(2).resize_as_(L.zeros(1, 3)).shape) == \
        tuple(T.zeros(2).resize_as_(T.zeros(1, 3)).shape)
    with pytest.raises(RuntimeError) as et:
        T.zeros(2, requires_grad=True).resize_(3)
    with pytest.raises(RuntimeError) as el:
        L.zeros(2, requires_grad=True).resize_(3)
    assert str(el.value) == str(et.value)


def test_every_device_flag_as_torch():
    t, g = T.zeros(2), L.zeros(2)
    flags = [n for n in dir(T.Tensor) if n.startswith("is_")
             and not callable(getattr(t, n))]
    assert "is_xpu" in flags and "is_cpu" in flags
    for name in flags:
        assert getattr(g, name) == getattr(t, name), name
    assert L.zeros(2, device="meta").is_cpu == T.zeros(2, device="meta").is_cpu


@pytest.mark.parametrize("sparse_dim", [None, 1, 2])
def test_to_sparse_coo_as_torch(sparse_dim):
    a = np.array([[[0, 1.5], [0, 0]], [[0, 0], [2.0, 0]], [[0, 0], [0, 0]]])
    args = () if sparse_dim is None else (sparse_dim,)
    want = T.tensor(a).to_sparse(*args)
    got = L.tensor(a).to_sparse(*args)
    assert got.is_sparse and str(got.layout) == str(want.layout)
    assert got.sparse_dim() == want.sparse_dim() and got.is_coalesced() == want.is_coalesced()
    np.testing.assert_array_equal(got.indices().numpy(), want.indices().numpy())
    np.testing.assert_array_equal(got.values().numpy(), want.values().numpy())
    np.testing.assert_array_equal(got.to_dense().numpy(), want.to_dense().numpy())
