"""The shift operators (<<, >>, <<=, >>=, reflected) against real PyTorch: values,
dtypes and the refusals (float tensors: NotImplementedError)."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad

_DT = ["int64", "int32", "int16", "int8", "uint8", "bool"]


@settings(max_examples=60, deadline=None)
@given(dt=st.sampled_from(_DT), a=st.lists(st.integers(-100, 100), min_size=1, max_size=4),
       b=st.integers(-2, 70), op=st.sampled_from(["<<", ">>"]), tensor_b=st.booleans())
def test_shift_operators_match_torch(dt, a, b, op, tensor_b):
    def run(T):
        x = T.tensor(np.array(a).astype(dt))
        other = T.tensor(np.full(len(a), b).astype(dt)) if tensor_b else b
        if dt in ("uint8", "bool") and not tensor_b and b < 0:
            other = 1
        out = x << other if op == "<<" else x >> other
        y = x.clone()
        if dt != "bool":
            if op == "<<":
                y <<= other
            else:
                y >>= other
        return out, y
    try:
        t, ty = run(torch)
    except Exception as e:      # e.g. bool << bool: no kernel
        with pytest.raises(type(e)):
            run(leafgrad)
        return
    lg, ly = run(leafgrad)
    for p, q in ((t, lg), (ty, ly)):
        assert str(p.dtype) == str(q.dtype)
        np.testing.assert_array_equal(p.numpy(), q.numpy())


def test_reflected_and_inplace_identity():
    for T in (torch, leafgrad):
        x = T.tensor([1, 2, 3])
        assert (1 << x).tolist() == [2, 4, 8] and (64 >> x).tolist() == [32, 16, 8]
        y = x
        y <<= 2
        assert y is x and x.tolist() == [4, 8, 12]


@pytest.mark.parametrize("call", [lambda T: T.tensor([1.5]) << 1,
                                  lambda T: T.tensor([1.5]) >> 1,
                                  lambda T: 2.5 << T.tensor([1]),
                                  lambda T: T.tensor([1]) << 1.5])
def test_float_shifts_refused_as_torch(call):
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)):
        call(leafgrad)
