"""Tensors over read-only memory (``torch.frombuffer(bytes)``, ``torch.from_numpy`` of a
read-only array): PyTorch's warning when they are made; a write raises a RuntimeError that
names the cause and the fix (PyTorch would write into memory Python treats as immutable),
and changes nothing. Reads share the buffer as PyTorch's do."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from leafgrad._tensor import buffers as _buffers, creation as _creation


_FROMBUFFER = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
    "This means you can write to the underlying (supposedly non-writable) buffer using the "
    "tensor. You may want to copy the buffer to protect its data or make it writable before "
    "converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program.")
_FROM_NUMPY = (
    "The given NumPy array is not writable, and PyTorch does not support non-writable "
    "tensors. This means writing to this tensor will result in undefined behavior. You may "
    "want to copy the array to protect its data or make it writable before converting it to "
    "a tensor. This type of warning will be suppressed for the rest of this program.")


@pytest.fixture
def fresh_warnings(monkeypatch):
    # PyTorch warns once per program: start each test as a fresh program would
    monkeypatch.setattr(_buffers, "_warned", [])
    monkeypatch.setattr(_creation, "_warned_read_only", [])


def _warns(make):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = make()
    return t, [(x.category, str(x.message).split(" (Triggered")[0], x.filename) for x in w]


def test_frombuffer_read_only_warns_as_pytorch_once(fresh_warnings):
    t, got = _warns(lambda: leafgrad.frombuffer(b"abcd", dtype=leafgrad.uint8))
    _, want = _warns(lambda: torch.frombuffer(b"abcd", dtype=torch.uint8))
    # (PyTorch warns once per process: when an earlier test made it warn, its text here)
    want = [(c, m) for c, m, _ in want] or [(UserWarning, _FROMBUFFER)]
    assert [(c, m) for c, m, _ in got] == want
    assert got[0][2] == __file__                # the user's line, as PyTorch's
    assert t.tolist() == [97, 98, 99, 100]
    _, again = _warns(lambda: leafgrad.frombuffer(b"efgh", dtype=leafgrad.uint8))
    assert again == []                          # suppressed for the rest of the program


def test_from_numpy_read_only_warns_as_pytorch(fresh_warnings):
    res = []
    for T in (torch, leafgrad):
        a = np.arange(3.0)
        a.flags.writeable = False
        t, w = _warns(lambda: T.from_numpy(a))
        res.append([(c, m) for c, m, _ in w])
        assert t.tolist() == [0.0, 1.0, 2.0]
    assert res[1] == (res[0] or [(UserWarning, _FROM_NUMPY)])
    writable = np.arange(3.0)
    assert _warns(lambda: leafgrad.from_numpy(writable))[1] == []


_WRITES = {
    "setitem": lambda T, t: t.__setitem__(0, 1),
    "setitem_slice": lambda T, t: t.__setitem__(slice(1, 3), 7),
    "add_": lambda T, t: t.add_(1),
    "mul_tensor": lambda T, t: t.mul_(T.tensor(2, dtype=T.uint8)),
    "fill_": lambda T, t: t.fill_(0),
    "zero_view": lambda T, t: t[1:].zero_(),
    "copy_": lambda T, t: t.copy_(T.zeros(4, dtype=T.uint8)),
    "out=": lambda T, t: T.add(t, 1, out=t),
    "index_put_": lambda T, t: t.index_put_((T.tensor([0]),), T.tensor([5], dtype=T.uint8)),
    "view_dtype_neg_": lambda T, t: t.view(T.int8).neg_(),
    "clamp_": lambda T, t: t.clamp_(0, 50),
}


@pytest.mark.parametrize("name", sorted(_WRITES))
def test_write_into_read_only_buffer_raises_and_changes_nothing(name, fresh_warnings):
    data = b"abcd"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = leafgrad.frombuffer(data, dtype=leafgrad.uint8)
    with pytest.raises(RuntimeError, match="read-only buffer") as info:
        _WRITES[name](leafgrad, t)
    msg = str(info.value)
    assert "Fix:" in msg and "bytearray" in msg and "clone()" in msg
    assert t.tolist() == [97, 98, 99, 100] and data == b"abcd"
    # the same write on a writable buffer goes through to it, as PyTorch's
    res = []
    for T in (torch, leafgrad):
        buf = bytearray(b"abcd")
        w = T.frombuffer(buf, dtype=T.uint8)
        _WRITES[name](T, w)
        res.append((w.tolist(), bytes(buf)))
    assert res[1] == res[0]


def test_from_numpy_read_only_write_raises(fresh_warnings):
    a = np.arange(3.0)
    a.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = leafgrad.from_numpy(a)
    with pytest.raises(RuntimeError, match="read-only buffer"):
        t.mul_(2)
    assert a.tolist() == [0.0, 1.0, 2.0]


def test_read_only_view_of_changing_buffer_shares_memory_as_pytorch():
    res = []
    for T in (torch, leafgrad):
        ba = bytearray(b"abcd")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = T.frombuffer(memoryview(ba).toreadonly(), dtype=T.uint8)
        ba[1] = 66
        res.append(t.tolist())
    assert res[1] == res[0] == [97, 66, 99, 100]


def test_expanded_view_write_keeps_pytorchs_overlap_error():
    for T in (torch, leafgrad):
        e = T.zeros(3)[:1].expand(3)
        with pytest.raises(RuntimeError, match="single memory location"):
            e.add_(1)
        e.fill_(2.0)            # allowed: each element once, as PyTorch
        assert e.tolist() == [2.0, 2.0, 2.0]
