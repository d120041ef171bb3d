"""Factories against PyTorch 2.13: ``out=`` on zeros/ones/empty/full/arange/linspace/eye
and the random factories (it was accepted and ignored: a silently wrong result), and
``arange`` with an integer dtype and float bounds (PyTorch truncates start and step)."""
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import leafgrad as lg


def _outcome(f, T):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = f(T)
    except Exception as e:   # noqa: BLE001
        return ("raises", type(e).__name__)
    return ("value", str(r.dtype).rsplit(".")[-1], tuple(r.shape), r.tolist())


OUT_CASES = {
    "zeros_int_out": lambda T: T.zeros(2, out=T.empty(2, dtype=T.int64)),
    "zeros_dtype_mismatch": lambda T: T.zeros(2, dtype=T.float32, out=T.empty(2, dtype=T.int64)),
    "zeros_double_into_float": lambda T: T.zeros(2, dtype=T.float64, out=T.empty(2)),
    "rand_into_long": lambda T: T.rand(2, out=T.empty(2, dtype=T.int64)),
    "zeros_out_requires_grad": lambda T: T.zeros(2, out=T.empty(2, requires_grad=True)),
    "ones_resize": lambda T: T.ones(3, out=T.empty(0)),
    "arange_resize": lambda T: T.arange(5, out=T.empty(2)),
    "arange_int32_out": lambda T: T.arange(5, out=T.empty(0, dtype=T.int32)),
    "arange_float_end_long_out": lambda T: T.arange(5.5, out=T.empty(0, dtype=T.int64)),
    "linspace_double_out": lambda T: T.linspace(0, 1, 3, out=T.empty(0, dtype=T.float64)),
    "eye_long_out": lambda T: T.eye(2, out=T.empty(0, dtype=T.int64)),
    "full_int_value_float_out": lambda T: T.full((2,), 3, out=T.empty(0)),
    "full_float_value_long_out": lambda T: T.full((2,), 3.5, out=T.empty(0, dtype=T.int64)),
    "out_not_a_tensor": lambda T: T.zeros(2, out=[1, 2]),
}


@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_factory_out_matches_torch(name):
    f = OUT_CASES[name]
    assert _outcome(f, lg) == _outcome(f, torch)


RANDOM_OUT = {
    "rand": lambda T, o: T.rand(2, 3, out=o),
    "randn": lambda T, o: T.randn(2, 3, out=o),
    "randint": lambda T, o: T.randint(0, 5, (2, 3), out=o),
    "randperm": lambda T, o: T.randperm(6, out=o),
    "normal": lambda T, o: T.normal(0.0, 1.0, (2, 3), out=o),
    "bernoulli": lambda T, o: T.bernoulli(T.full((2, 3), 0.5), out=o),
    "multinomial": lambda T, o: T.multinomial(T.ones(5), 3, out=o),
}


@pytest.mark.parametrize("name", sorted(RANDOM_OUT))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_random_factories_write_into_out_with_torchs_stream(name, dtype):
    res = []
    for T in (lg, torch):
        T.manual_seed(7)
        o = T.zeros(2, 3, dtype=getattr(T, dtype))
        old = id(o)
        r = _outcome(lambda T: RANDOM_OUT[name](T, o), T)
        if r[0] == "value":
            assert id(o) == old
            # the stream continues as without out=
            r = r + (T.rand(2).tolist(),)
            assert (RANDOM_OUT[name](T, o) is o)
        res.append(r)
    a, b = res
    assert a[:3] == b[:3]
    if a[0] == "value":
        np.testing.assert_allclose(np.asarray(a[3], float), np.asarray(b[3], float),
                                   rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(a[4], b[4], rtol=1e-6)


def test_out_is_written_in_place_and_its_version_bumped():
    c = lg.zeros(2, 2)
    v = c.view(4)
    before = c._version
    r = lg.rand(2, 2, out=c)
    assert r is c and c._version > before
    assert v.tolist() == c.reshape(4).tolist() and c.abs().sum().item() > 0


bound = st.floats(-20, 20, allow_nan=False).map(lambda v: round(v, 2))
step = st.floats(-4, 4, allow_nan=False).map(lambda v: round(v, 2)).filter(lambda v: v != 0)


@given(start=bound, end=bound, step=step,
       dtype=st.sampled_from(["int64", "int32", "int16", "uint8", "float32", "float64"]))
def test_arange_float_bounds_integer_dtypes_match_torch(start, end, step, dtype):
    f = lambda T: T.arange(start, end, step, dtype=getattr(T, dtype))  # noqa: E731
    assert _outcome(f, lg) == _outcome(f, torch)
