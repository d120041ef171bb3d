"""Python ints (and floats) that a dtype cannot hold, against real PyTorch.

PyTorch reads a Python int as tensor data (``torch.tensor``, ``t[i] = v``:
ValueError beyond int64, RuntimeError when it does not fit an explicit
dtype, uint8 taking -1 as 255) or as a Scalar operand (``t + v``, ``fill_``,
``full``, clamp bounds: OverflowError beyond 64 bits, wrapped into an integer
tensor's dtype in arithmetic). Each case must give the same exception class,
or the same dtype and values, in both libraries (see ``leafgrad._core.scalars``).
"""
import warnings

import numpy as np
import pytest
import torch as real_torch

import leafgrad
from _outcome import builtin_name

def _set(t, i, v):
    t[i] = v
    return t


CASES = [
    ("tensor(2**64)", lambda torch: torch.tensor(2**64)),
    ("tensor(2**63)", lambda torch: torch.tensor(2**63)),
    ("tensor(2**63-1)", lambda torch: torch.tensor(2**63-1)),
    ("tensor(-2**63)", lambda torch: torch.tensor(-2**63)),
    ("tensor(-2**63-1)", lambda torch: torch.tensor(-2**63-1)),
    ("tensor([1, 2**64])", lambda torch: torch.tensor([1, 2**64])),
    ("tensor([1.0, 2**64])", lambda torch: torch.tensor([1.0, 2**64])),
    ("tensor(2**64, dtype=float32)", lambda torch: torch.tensor(2**64, dtype=torch.float32)),
    ("tensor(2**64, dtype=float64)", lambda torch: torch.tensor(2**64, dtype=torch.float64)),
    ("tensor(300, dtype=uint8)", lambda torch: torch.tensor(300, dtype=torch.uint8)),
    ("tensor(-1, dtype=uint8)", lambda torch: torch.tensor(-1, dtype=torch.uint8)),
    ("tensor(2**40, dtype=int32)", lambda torch: torch.tensor(2**40, dtype=torch.int32)),
    ("tensor([2**40], dtype=int32)", lambda torch: torch.tensor([2**40], dtype=torch.int32)),
    ("tensor(128, dtype=int8)", lambda torch: torch.tensor(128, dtype=torch.int8)),
    ("tensor(2**64, dtype=bool)", lambda torch: torch.tensor(2**64, dtype=torch.bool)),
    ("tensor(10**400)", lambda torch: torch.tensor(10**400)),
    ("tensor(10**400, dtype=float32)", lambda torch: torch.tensor(10**400, dtype=torch.float32)),
    ("tensor(1e300, dtype=float32)", lambda torch: torch.tensor(1e300, dtype=torch.float32)),
    ("t + 2**64", lambda torch: torch.tensor([1]) + 2**64),
    ("t + 2**63", lambda torch: torch.tensor([1]) + 2**63),
    ("tf + 2**64", lambda torch: torch.tensor([1.0]) + 2**64),
    ("tf * 10**400", lambda torch: torch.tensor([1.0]) * 10**400),
    ("full((2,), 2**64)", lambda torch: torch.full((2,), 2**64)),
    ("full((2,), 2**63)", lambda torch: torch.full((2,), 2**63)),
    ("as_tensor(2**64)", lambda torch: torch.as_tensor(2**64)),
    ("tensor([[1],[2**64]])", lambda torch: torch.tensor([[1], [2**64]])),
    ("t.fill_(2**64)", lambda torch: torch.tensor([1]).fill_(2**64)),
    ("t[0] = 2**64", lambda torch: torch.tensor([1]).__setitem__(0, 2**64)),
    ("arange(2**64)", lambda torch: torch.arange(2**64)),
    ("zeros(2**64)", lambda torch: torch.zeros(2**64)),
    ("tensor(True+2**64)", lambda torch: torch.tensor(2**64 + True)),
    ("scalar_tensor(2**64)", lambda torch: torch.scalar_tensor(2**64)),
    ("t_int.clamp(max=2**64)", lambda torch: torch.tensor([1]).clamp(max=2**64)),
    ("t == 2**64", lambda torch: torch.tensor([1]) == 2**64),
    ("t_f == 2**64", lambda torch: torch.tensor([1.0]) == 2**64),
    ('tensor(2**64, dtype=int32)', lambda torch: torch.tensor(2**64, dtype=torch.int32)),
    ('tensor(2**63, dtype=int64)', lambda torch: torch.tensor(2**63, dtype=torch.int64)),
    ('tensor(2**63, dtype=float32)', lambda torch: torch.tensor(2**63, dtype=torch.float32)),
    ('tensor(-200, dtype=uint8)', lambda torch: torch.tensor(-200, dtype=torch.uint8)),
    ('tensor(-256, dtype=uint8)', lambda torch: torch.tensor(-256, dtype=torch.uint8)),
    ('tensor([1, 300], dtype=uint8)', lambda torch: torch.tensor([1, 300], dtype=torch.uint8)),
    ('tensor([-1, 2.5], dtype=uint8)', lambda torch: torch.tensor([-1, 2.5], dtype=torch.uint8)),
    ('tensor(-129, dtype=int8)', lambda torch: torch.tensor(-129, dtype=torch.int8)),
    ('tensor(2**31, dtype=int32)', lambda torch: torch.tensor(2**31, dtype=torch.int32)),
    ('tensor(-2**32, dtype=int32)', lambda torch: torch.tensor(-2**32, dtype=torch.int32)),
    ('tensor(2**16, dtype=int16)', lambda torch: torch.tensor(2**16, dtype=torch.int16)),
    ('tensor(2**64, dtype=float16)', lambda torch: torch.tensor(2**64, dtype=torch.float16)),
    ('tensor(70000, dtype=float16)', lambda torch: torch.tensor(70000, dtype=torch.float16)),
    ('tensor([0, 2**64, 10**400], dtype=bool)',
     lambda torch: torch.tensor([0, 2**64, 10**400], dtype=torch.bool)),
    ('tensor(300.5, dtype=uint8)', lambda torch: torch.tensor(300.5, dtype=torch.uint8)),
    ('tensor(nan, int64)', lambda torch: torch.tensor(float('nan'), dtype=torch.int64)),
    ('tensor(inf, int32)', lambda torch: torch.tensor(float('inf'), dtype=torch.int32)),
    ('tensor(-1.5, uint8)', lambda torch: torch.tensor(-1.5, dtype=torch.uint8)),
    ('tensor([True, 2**64])', lambda torch: torch.tensor([True, 2**64])),
    ('tensor([2**63-1, 1.5])', lambda torch: torch.tensor([2**63-1, 1.5])),
    ('tf + 2**63', lambda torch: torch.tensor([1.0]) + 2**63),
    ('tf + (2**64-1)', lambda torch: torch.tensor([1.0]) + (2**64-1)),
    ('tf + -2**63-1', lambda torch: torch.tensor([1.0]) + (-2**63-1)),
    ('ti + (2**64-1)', lambda torch: torch.tensor([1]) + (2**64-1)),
    ('ti * 2**63', lambda torch: torch.tensor([3]) * (2**63)),
    ('ti == 2**63', lambda torch: torch.tensor([3]) == (2**63)),
    ('ti8 + 300', lambda torch: torch.tensor([3], dtype=torch.int8) + 300),
    ('tu8 + -1', lambda torch: torch.tensor([3], dtype=torch.uint8) + -1),
    ('tu8 + 2**40', lambda torch: torch.tensor([3], dtype=torch.uint8) + 2**40),
    ('ti32 + 2**40', lambda torch: torch.tensor([3], dtype=torch.int32) + 2**40),
    ('tf ** 2**64', lambda torch: torch.tensor([1.0]) ** 2**64),
    ('2**64 - tf', lambda torch: 2**64 - torch.tensor([1.0])),
    ('full 2**63 float', lambda torch: torch.full((2,), 2**63, dtype=torch.float32)),
    ('full -2**63-1', lambda torch: torch.full((2,), -2**63-1)),
    ('tensor(10**400, dtype=int64)', lambda torch: torch.tensor(10**400, dtype=torch.int64)),
    ('tensor([1.5, 2**64], dtype=int64)',
     lambda torch: torch.tensor([1.5, 2**64], dtype=torch.int64)),
    ('tensor([1e30], dtype=int64)', lambda torch: torch.tensor([1e30], dtype=torch.int64)),
    ('full -1 uint8', lambda torch: torch.full((2,), -1, dtype=torch.uint8)),
    ('full 300 uint8', lambda torch: torch.full((2,), 300, dtype=torch.uint8)),
    ('full 300.5 uint8', lambda torch: torch.full((2,), 300.5, dtype=torch.uint8)),
    ('full 1e300', lambda torch: torch.full((2,), 1e300)),
    ('fill_ 2**63 i64', lambda torch: torch.tensor([1]).fill_(2**63)),
    ('fill_ 300 i8', lambda torch: torch.tensor([1], dtype=torch.int8).fill_(300)),
    ('fill_ -1 u8', lambda torch: torch.tensor([1], dtype=torch.uint8).fill_(-1)),
    ('fill_ 1e300 f32', lambda torch: torch.tensor([1.0]).fill_(1e300)),
    ('fill_ 2**64 f32', lambda torch: torch.tensor([1.0]).fill_(2**64)),
    ('setitem 2**63', lambda torch: torch.tensor([1]).__setitem__(0, 2**63)),
    ('setitem 300 i8', lambda torch: torch.tensor([1], dtype=torch.int8).__setitem__(0, 300)),
    ('setitem 2**64 f', lambda torch: torch.tensor([1.0]).__setitem__(0, 2**64)),
    ('setitem -1 u8', lambda torch: _set(torch.tensor([1], dtype=torch.uint8), 0, -1)),
    ('ti8 * 2**63', lambda torch: torch.tensor([3], dtype=torch.int8) * 2**63),
    ('ti.clamp(max=2**63)', lambda torch: torch.tensor([3]).clamp(max=2**63)),
    ('ti8.clamp(max=300)', lambda torch: torch.tensor([3], dtype=torch.int8).clamp(max=300)),
    ('tf.clamp(max=2**64)', lambda torch: torch.tensor([3.]).clamp(max=2**64)),
    ('tf.clamp(max=2**63)', lambda torch: torch.tensor([3.]).clamp(max=2**63)),
    ('300 - ti8', lambda torch: 300 - torch.tensor([3], dtype=torch.int8)),
    ('ti8 < 300', lambda torch: torch.tensor([3], dtype=torch.int8) < 300),
    ('ti8 == 259', lambda torch: torch.tensor([3], dtype=torch.int8) == 259),
    ('torch.add(ti8, 300)', lambda torch: torch.add(torch.tensor([3], dtype=torch.int8), 300)),
    ('ti8.add_(300)', lambda torch: torch.tensor([3], dtype=torch.int8).add_(300)),
    ('ti + 2**63', lambda torch: torch.tensor([3]) + 2**63),
    ('ti // 2**63', lambda torch: torch.tensor([3]) // 2**63),
    ('ti8 / 300', lambda torch: torch.tensor([3], dtype=torch.int8) / 300),
    ('ti / 2**64', lambda torch: torch.tensor([3]) / 2**64),
    ('ti * 2.5 big', lambda torch: torch.tensor([3]) * 2**70 * 1.0),
    ('scalar_tensor(2**63)', lambda torch: torch.scalar_tensor(2**63)),
    ('arange(2**63, 2**63+2)', lambda torch: torch.arange(2**63, 2**63 + 2)),
    ('zeros(2**63)', lambda torch: torch.zeros(2**63)),
    ('where big', lambda torch: torch.where(torch.tensor([True]), torch.tensor([1.0]), 2**64)),
    ('as_tensor([2**63])', lambda torch: torch.as_tensor([2**63])),
]


def _outcome(T, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(T)
    except Exception as e:  # noqa: BLE001
        return ("error", builtin_name(type(e)))
    if isinstance(r, T.Tensor):
        return ("tensor", str(r.dtype), tuple(r.shape), r.tolist())
    return (type(r).__name__, r)


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_out_of_range_number_matches_torch(name):
    fn = dict(CASES)[name]
    want, got = _outcome(real_torch, fn), _outcome(leafgrad, fn)
    if want[0] == "tensor" and got[0] == "tensor" and "float" in want[1]:
        assert got[:3] == want[:3], (got, want)
        np.testing.assert_allclose(got[3], want[3], rtol=1e-6)
    else:
        assert got == want


def test_messages_explain_and_fix():
    with pytest.raises(ValueError, match="does not fit in int64.*Fix: pass dtype=torch.float64"):
        leafgrad.tensor(2 ** 64)
    with pytest.raises(RuntimeError, match="outside uint8's range \\[0, 255\\].*Fix"):
        leafgrad.tensor([1, 300], dtype=leafgrad.uint8)
    with pytest.raises(OverflowError, match="does not fit in 64 bits.*Fix"):
        leafgrad.ones(2) * 2 ** 64
