"""torch.result_type / torch.can_cast and torch.add/sub/div with out=, against PyTorch."""
import itertools

import pytest
import torch

import leafgrad

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_can_cast(a, b):
    assert leafgrad.can_cast(getattr(leafgrad, a), getattr(leafgrad, b)) == \
        torch.can_cast(getattr(torch, a), getattr(torch, b))


OPERANDS = {
    "i64": lambda T: T.tensor([1, 2]), "f64_0d": lambda T: T.tensor(1.0, dtype=T.float64),
    "u8": lambda T: T.tensor([1], dtype=T.uint8), "bool": lambda T: T.tensor([True]),
    "f16": lambda T: T.tensor([1.0], dtype=T.float16), "i32_0d": lambda T: T.tensor(3, dtype=T.int32),
    "int": lambda T: 1, "float": lambda T: 2.5, "pybool": lambda T: True, "neg": lambda T: -1,
}


@pytest.mark.parametrize("a,b", list(itertools.product(sorted(OPERANDS), repeat=2)))
def test_result_type(a, b):
    theirs = torch.result_type(OPERANDS[a](torch), OPERANDS[b](torch))
    ours = leafgrad.result_type(OPERANDS[a](leafgrad), OPERANDS[b](leafgrad))
    assert repr(ours) == repr(theirs)


def test_result_type_and_can_cast_errors():
    for T in (torch, leafgrad):
        with pytest.raises(TypeError):
            T.result_type("a", 1)
        with pytest.raises(TypeError):
            T.can_cast(1, T.int32)


CALLS = {
    "add": lambda T, o: T.add(T.ones(2), T.tensor([1.0, 2.0]), out=o),
    "add_alpha": lambda T, o: T.add(T.ones(2), 2, alpha=3, out=o),
    "sub": lambda T, o: T.sub(T.ones(2), T.tensor([0.5, 4.0]), out=o),
    "subtract_alpha": lambda T, o: T.subtract(T.ones(2), 1, alpha=2, out=o),
    "div": lambda T, o: T.div(T.tensor([3.0, -3.0]), 2, out=o),
    "div_floor": lambda T, o: T.div(T.tensor([3.0, -3.0]), 2, rounding_mode="floor", out=o),
    "divide_trunc": lambda T, o: T.divide(T.tensor([3.0, -3.0]), 2, rounding_mode="trunc", out=o),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_arith_out(name):
    to, lo = torch.zeros(2), leafgrad.zeros(2)
    tr, lr = CALLS[name](torch, to), CALLS[name](leafgrad, lo)
    assert lr is lo and tr is to
    assert lo.tolist() == to.tolist() and lo._version == to._version


def test_arith_out_refuses_grad_and_bad_cast():
    x = leafgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        leafgrad.add(x, 1, out=leafgrad.zeros(2))
    with pytest.raises(RuntimeError):
        torch.add(torch.ones(2, requires_grad=True), 1, out=torch.zeros(2))
    for T in (torch, leafgrad):
        with pytest.raises(RuntimeError):
            T.add(T.ones(2), 0.5, out=T.zeros(2, dtype=T.int64))
