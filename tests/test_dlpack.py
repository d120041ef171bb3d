"""DLPack and torch.asarray: leafgrad tensors share memory with NumPy and PyTorch both
ways where the layout allows, and refuse as PyTorch refuses."""
import numpy as np
import pytest
import torch

import leafgrad as lg


def shares(a, b):
    return np.shares_memory(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "int8",
                                   "uint8", "bool", "complex64"])
def test_torch_from_leafgrad_shares_memory(dtype):
    t = lg.zeros(2, 3, dtype=getattr(lg, dtype))
    tt = torch.from_dlpack(t)
    assert tt.dtype == getattr(torch, dtype) and tuple(tt.shape) == (2, 3)
    tt[0, 1] = 1
    assert t[0, 1].item() == 1                       # the same memory
    back = lg.from_dlpack(tt)
    back[1, 2] = 1
    assert tt[1, 2].item() == 1 and t[1, 2].item() == 1


def test_leafgrad_from_torch_shares_memory_views_and_strides():
    base = torch.arange(12.0).reshape(3, 4)
    view = base.t()[1:]                               # non-contiguous, offset
    lt = lg.from_dlpack(view)
    assert lt.shape == tuple(view.shape)
    np.testing.assert_array_equal(lt.numpy(), view.numpy())
    base[1, 1] = 100.0
    assert lt[0, 1].item() == 100.0
    assert shares(lt.numpy(), base.numpy())


def test_numpy_both_ways_and_capsules():
    t = lg.arange(5.0)
    a = np.from_dlpack(t)
    a[0] = 7
    assert t[0].item() == 7
    n = np.arange(4.0)
    lt = lg.from_dlpack(n)
    n[3] = -1
    assert lt[3].item() == -1
    cap = torch.utils.dlpack.to_dlpack(torch.ones(2))  # legacy capsule
    assert lg.from_dlpack(cap).tolist() == [1.0, 1.0]
    tt = torch.utils.dlpack.from_dlpack(lg.utils.dlpack.to_dlpack(t))
    tt[1] = 9
    assert t[1].item() == 9


def test_device_and_refusals():
    t = lg.ones(2)
    assert t.__dlpack_device__() == (1, 0) == torch.ones(2).__dlpack_device__()
    assert lg.utils.dlpack.DLDeviceType.kDLCPU == torch.utils.dlpack.DLDeviceType.kDLCPU
    r = lg.ones(2, requires_grad=True)
    with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
        torch.from_dlpack(r)
    with pytest.raises(BufferError):
        lg.from_dlpack(torch.ones(2, requires_grad=True))
    torch.from_dlpack(r.detach())[0] = 5              # detach shares, as in PyTorch
    assert r[0].item() == 5


def test_asarray_semantics():
    t = lg.ones(3)
    assert lg.asarray(t) is t
    assert lg.asarray(t, copy=True) is not t and lg.asarray(t, copy=True).tolist() == [1] * 3
    assert lg.asarray(t, dtype=lg.float64).dtype is lg.float64
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Float' into dtype "
                                         "'Double'"):
        lg.asarray(t, dtype=lg.float64, copy=False)
    n = np.ones(3)
    a = lg.asarray(n)
    n[0] = 5
    assert a.dtype is lg.float64 and a[0].item() == 5
    assert lg.asarray(n, copy=True)[0].item() == 5 and not shares(lg.asarray(n, copy=True), n)
    with pytest.raises(ValueError, match="can't alias arbitrary sequence into a tensor"):
        lg.asarray([1, 2], copy=False)
    for obj in ([1, 2.0], np.float64(2.0), 3, [[True]]):
        assert str(lg.asarray(obj).dtype) == str(torch.asarray(obj).dtype)
    tt = torch.arange(3.0)
    la = lg.asarray(tt)                               # a torch tensor: shared through DLPack
    tt[0] = 42
    assert la[0].item() == 42
    g = lg.asarray(np.ones(2, dtype=np.float32), requires_grad=True)
    assert g.requires_grad and g.is_leaf
    assert lg.asarray(lg.ones(2, requires_grad=True)).requires_grad
