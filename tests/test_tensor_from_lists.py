"""torch.tensor(data) for Python data beyond nested lists of numbers, against PyTorch:
ranges are sequences, one-element tensors inside lists are numbers of their dtype (more
elements raise ValueError), data that is no number raises PyTorch's classes, and arrays
with a negative stride are refused (ValueError) by tensor/from_numpy/as_tensor."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad

DATA = {
    "range": lambda T: range(4), "range_step": lambda T: range(0, 10, 3),
    "nested_range": lambda T: [range(2), range(2)], "tuple_range": lambda T: (range(3),),
    "one_elem_tensors": lambda T: [T.ones(1), T.ones(1)],
    "tensor_and_number": lambda T: [T.tensor(1.0), 2],
    "mixed_dims": lambda T: [T.ones(1, 1), T.ones(1)],
    "nested_one_elem": lambda T: [[T.ones(1)], [T.tensor(2.0)]],
    "int32_and_float": lambda T: [T.tensor(1, dtype=T.int32), 2.5],
    "f64_and_int": lambda T: [T.tensor(1.0, dtype=T.float64), 1],
    "f64_one": lambda T: [T.tensor([1.0], dtype=T.float64)],
    "bool_and_int": lambda T: [T.tensor(True), 1],
    "u8_i8": lambda T: [T.tensor(1, dtype=T.uint8), T.tensor(-1, dtype=T.int8)],
    "two_elem_tensor": lambda T: [T.ones(2)], "nested_two_elem": lambda T: [[T.ones(2)]],
    "empty_tensor": lambda T: [T.zeros(0)],
    "object": lambda T: object(), "none": lambda T: None, "dict": lambda T: {1: 2},
    "list_none": lambda T: [None], "list_str": lambda T: ["a"], "str": lambda T: "a",
    "bytes": lambda T: b"ab", "number_none": lambda T: [1, None],
    "generator": lambda T: (x for x in [1, 2]),
}


def _make(T, name):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = T.tensor(DATA[name](T))
    except Exception as e:     # noqa: BLE001  (the class is what is compared)
        return next(k for k in type(e).__mro__ if k.__module__ == "builtins")
    return str(r.dtype), tuple(r.shape), r.tolist()


@pytest.mark.parametrize("name", sorted(DATA))
def test_tensor_from_data(name):
    assert _make(leafgrad, name) == _make(torch, name)


def test_copy_construct_warning_text():
    with pytest.warns(UserWarning) as theirs:
        torch.tensor(torch.ones(1))
    with pytest.warns(UserWarning) as ours:
        leafgrad.tensor(leafgrad.ones(1))
    assert str(ours[0].message) == str(theirs[0].message)
    assert ours[0].filename == __file__


NEG = {"rev": lambda: np.arange(4)[::-1], "flip2d": lambda: np.ones((2, 3))[:, ::-2],
       "transposed": lambda: np.ones((2, 3)).T, "in_list": lambda: [np.arange(3)[::-1]]}


@pytest.mark.parametrize("fn", ["tensor", "from_numpy", "as_tensor"])
@pytest.mark.parametrize("name", sorted(NEG))
def test_negative_strides(fn, name):
    def make(T):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = getattr(T, fn)(NEG[name]())
        except (ValueError, TypeError) as e:
            return type(e)
        return tuple(r.shape), r.stride(), r.tolist()
    assert make(leafgrad) == make(torch)


@pytest.mark.parametrize("value", [None, "a", object()])
@pytest.mark.parametrize("fn", ["full", "full_like"])
def test_full_refuses_non_numbers(fn, value):
    for T in (torch, leafgrad):
        with pytest.raises(TypeError):
            T.full((2,), value) if fn == "full" else T.full_like(T.ones(2), value)


@pytest.mark.parametrize("make", [
    lambda: [np.float64(1.5), 2], lambda: [np.float32(1.5), np.float64(2)],
    lambda: [np.uint8(1), np.int8(2)], lambda: [np.complex128(1j), 1.0],
    lambda: [[np.float64(1)], [np.float32(2.0)]], lambda: [np.int16(1), True],
    lambda: [1, np.float16(2)], lambda: [True, np.int8(3)], lambda: [np.int64(1), 2.5],
    lambda: [np.int32(3), 4], lambda: [np.bool_(True), False],
], ids=["f64_int", "f32_f64", "u8_i8", "c128_float", "nested", "i16_bool", "int_f16",
        "bool_i8", "i64_float", "i32_int", "npbool_bool"])
def test_numpy_scalars_in_lists_keep_their_dtype(make):
    """A NumPy scalar inside a list counts as its own dtype, promoted with the rest
    (PyTorch's infer_scalar_type): [np.float64(1.5), 2] is float64, not the default."""
    want, got = torch.tensor(make()), leafgrad.tensor(make())
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
