"""Type promotion and dtypes of results, against PyTorch: int + float, float32 +
float64, 0-d tensors vs tensors with dims, Python scalars, int / int true
division, comparisons giving bool; plus the non-differentiable elementwise ops
(comparisons, logical, predicates) that have no row in the op table."""
import itertools
import warnings

import numpy as np
import pytest
import torch

import leafgrad

OPERANDS = {
    "i64": lambda T: T.tensor([1, -2, 3]),
    "i32": lambda T: T.tensor([4, 5, -6], dtype=T.int32),
    "u8": lambda T: T.tensor([1, 2, 3], dtype=T.uint8),
    "bool": lambda T: T.tensor([True, False, True]),
    "f32": lambda T: T.tensor([1.5, -2.25, 3.0]),
    "f64": lambda T: T.tensor([0.5, 2.0, -1.0], dtype=T.float64),
    "0d_i64": lambda T: T.tensor(2),
    "0d_f32": lambda T: T.tensor(2.5),
    "0d_f64": lambda T: T.tensor(-1.5, dtype=T.float64),
    "0d_bool": lambda T: T.tensor(True),
    "2d_f32": lambda T: T.tensor([[1.0], [-0.5]]),
    "int": lambda T: 3,
    "float": lambda T: 1.5,
    "pybool": lambda T: True,
}

BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b, "pow": lambda a, b: a ** b,
    "eq": lambda a, b: a == b, "lt": lambda a, b: a < b, "ge": lambda a, b: a >= b,
    "ne": lambda a, b: a != b,
}

FUNCS = {   # torch.<fn>(a, b): both must be tensors for some of these
    "maximum": lambda T, a, b: T.maximum(a, b), "minimum": lambda T, a, b: T.minimum(a, b),
    "where": lambda T, a, b: T.where(T.tensor([True, False, True]), a, b),
    "atan2": lambda T, a, b: T.atan2(a, b), "fmod": lambda T, a, b: T.fmod(a, b),
    "remainder": lambda T, a, b: T.remainder(a, b), "div": lambda T, a, b: T.div(a, b),
    "floor_divide": lambda T, a, b: T.floor_divide(a, b),
    "logical_and": lambda T, a, b: T.logical_and(a, b),
    "logical_or": lambda T, a, b: T.logical_or(a, b),
    "logical_xor": lambda T, a, b: T.logical_xor(a, b),
    "bitwise_and": lambda T, a, b: T.bitwise_and(a, b) if not (
        a.is_floating_point() or b.is_floating_point()) else T.logical_and(a, b),
    "bitwise_or": lambda T, a, b: T.bitwise_or(a, b) if not (
        a.is_floating_point() or b.is_floating_point()) else T.logical_or(a, b),
    "bitwise_xor": lambda T, a, b: T.bitwise_xor(a, b) if not (
        a.is_floating_point() or b.is_floating_point()) else T.logical_xor(a, b),
    "gt": lambda T, a, b: T.gt(a, b), "le": lambda T, a, b: T.le(a, b),
    "isclose": lambda T, a, b: T.isclose(a.double(), b.double()),
}

UNARY = {
    "exp": lambda T, a: T.exp(a), "sqrt": lambda T, a: T.sqrt(a.abs()),
    "neg": lambda T, a: -a, "abs": lambda T, a: T.abs(a), "sign": lambda T, a: T.sign(a),
    "sum": lambda T, a: a.sum(), "prod": lambda T, a: a.prod(), "cumsum": lambda T, a: a.cumsum(0),
    "mean": lambda T, a: a.mean(), "max": lambda T, a: a.max(), "argmax": lambda T, a: a.argmax(),
    "isnan": lambda T, a: T.isnan(a), "isinf": lambda T, a: T.isinf(a),
    "isfinite": lambda T, a: T.isfinite(a), "isposinf": lambda T, a: T.isposinf(a),
    "isneginf": lambda T, a: T.isneginf(a), "signbit": lambda T, a: T.signbit(a),
    "logical_not": lambda T, a: T.logical_not(a), "bitwise_not": lambda T, a: ~a,
    "relu": lambda T, a: T.relu(a), "sigmoid": lambda T, a: T.sigmoid(a),
    "floor": lambda T, a: T.floor(a), "round": lambda T, a: T.round(a),
    "square": lambda T, a: T.square(a), "clamp_float": lambda T, a: T.clamp(a, min=0.5),
    "clamp_int": lambda T, a: T.clamp(a, min=0, max=2), "norm": lambda T, a: a.norm(),
    "softmax": lambda T, a: T.softmax(a, 0), "sum_dtype": lambda T, a: a.sum(dtype=T.float64),
    "to_f16": lambda T, a: a.half(), "to_long": lambda T, a: a.long(),
    "equal": lambda T, a: T.equal(a, a), "allclose": lambda T, a: T.allclose(a.double(),
                                                                              a.double()),
}


def _result(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as e:
            return None, e


def _check(tfn, lfn):
    t, te = _result(tfn)
    lg, le = _result(lfn)
    if te is not None:
        assert le is not None, "torch raised %r but leafgrad returned %r" % (te, lg)
        assert isinstance(le, type(te)), "torch raised %s, leafgrad %s: %s" % (
            type(te).__name__, type(le).__name__, le)
        return
    assert le is None, "leafgrad raised %r; torch returned %r" % (le, t)
    if isinstance(t, bool):
        assert lg is t
        return
    assert str(lg.dtype) == str(t.dtype), "dtype %s vs torch %s" % (lg.dtype, t.dtype)
    assert tuple(lg.shape) == tuple(t.shape)
    a, b = np.asarray(lg._data), t.numpy()
    if a.dtype.kind == "f" or a.dtype == np.float16:
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=1e-6,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(a, b)


BOOLS = ("bool", "0d_bool", "pybool")
# bool-only arithmetic that torch refuses (NotImplementedError) or computes in another dtype:
# checked on their own in test_bool_arithmetic_gaps
BOOL_BINARY_GAPS = {"floordiv", "mod", "pow", "floor_divide", "fmod", "remainder"}
BOOL_UNARY_GAPS = {"abs", "argmax", "floor", "relu", "round", "sign", "sqrt", "square"}


def _gap(op, *names):
    return ((op in BOOL_BINARY_GAPS and len(names) == 2 and all(n in BOOLS for n in names))
            or (op in BOOL_UNARY_GAPS and len(names) == 1 and names[0] in BOOLS))


PAIRS = [(a, b) for a, b in itertools.product(OPERANDS, OPERANDS)
         if not (a in ("int", "float", "pybool") and b in ("int", "float", "pybool"))]


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_operator_promotion(op):
    f = BINARY[op]
    for a, b in PAIRS:
        if _gap(op, a, b):
            continue
        try:
            _check(lambda: f(OPERANDS[a](torch), OPERANDS[b](torch)),
                   lambda: f(OPERANDS[a](leafgrad), OPERANDS[b](leafgrad)))
        except AssertionError as e:
            raise AssertionError("%s %s %s: %s" % (a, op, b, e)) from None


TENSOR_OPERANDS = [k for k in OPERANDS if k not in ("int", "float", "pybool")]


@pytest.mark.parametrize("fn", sorted(FUNCS))
def test_function_promotion(fn):
    f = FUNCS[fn]
    for a, b in itertools.product(TENSOR_OPERANDS, TENSOR_OPERANDS):
        if _gap(fn, a, b):
            continue
        try:
            _check(lambda: f(torch, OPERANDS[a](torch), OPERANDS[b](torch)),
                   lambda: f(leafgrad, OPERANDS[a](leafgrad), OPERANDS[b](leafgrad)))
        except AssertionError as e:
            raise AssertionError("%s(%s, %s): %s" % (fn, a, b, e)) from None


@pytest.mark.parametrize("fn", sorted(UNARY))
def test_unary_result_dtype(fn):
    f = UNARY[fn]
    for a in TENSOR_OPERANDS:
        if _gap(fn, a):
            continue
        try:
            _check(lambda: f(torch, OPERANDS[a](torch)), lambda: f(leafgrad, OPERANDS[a](leafgrad)))
        except AssertionError as e:
            raise AssertionError("%s(%s): %s" % (fn, a, e)) from None


def test_specific_promotions():
    # the headline rules, spelled out
    T = leafgrad
    assert (T.tensor([1, 2]) + T.tensor([0.5, 1.0])).dtype == T.float32
    assert (T.tensor([1.0]) + T.tensor([1.0], dtype=T.float64)).dtype == T.float64
    assert (T.tensor([1.0]) + T.tensor(1.0, dtype=T.float64)).dtype == T.float32   # 0-d loses
    assert (T.tensor([1]) + T.tensor(1.0)).dtype == T.float32       # category wins
    assert (T.tensor([1]) + 2.5).dtype == T.float32
    assert (T.tensor([1], dtype=T.int32) + 2).dtype == T.int32
    assert (T.tensor([1.0], dtype=T.float64) * 2.0).dtype == T.float64
    assert (T.tensor([3]) / T.tensor([2])).dtype == T.float32
    assert (T.tensor([3]) / T.tensor([2])).tolist() == [1.5]
    assert (T.tensor([3]) // 2).dtype == T.int64
    assert (T.tensor([1.0]) < 2).dtype == T.bool
    assert (T.tensor([True]) + True).dtype == T.bool
    assert (T.tensor([True]) + 1).dtype == T.int64
    assert T.tensor([1, 2]).sum().dtype == T.int64
    assert T.tensor([True, True]).sum().item() == 2


def test_default_dtype_follows_set_default_dtype():
    for T in (torch, leafgrad):
        old = T.get_default_dtype()
        try:
            T.set_default_dtype(T.float64)
            assert str(T.tensor([1.0]).dtype) == "torch.float64"
            assert str((T.tensor([1]) / 2).dtype) == "torch.float64"
            assert str(T.arange(3.0).dtype) == "torch.float64"
        finally:
            T.set_default_dtype(old)
    assert leafgrad.get_default_dtype() == leafgrad.float32


def test_broadcast_shapes():
    for shapes in [((2, 1), (3,)), ((), (4, 1)), ((1,), (1, 1, 2)), ((5, 1, 3), (4, 1))]:
        assert tuple(leafgrad.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))
    with pytest.raises(RuntimeError):
        torch.broadcast_shapes((2,), (3,))
    with pytest.raises(RuntimeError):
        leafgrad.broadcast_shapes((2,), (3,))


def test_broadcast_error_class_and_message():
    for T in (torch, leafgrad):
        with pytest.raises(RuntimeError, match="size of tensor a \\(2\\) must match"):
            T.ones(2) + T.ones(3)


BOOL_GAP_CASES = ([("binary", op, a, b) for op in sorted(BOOL_BINARY_GAPS & set(BINARY))
                   for a in BOOLS for b in BOOLS if not (a == b == "pybool")]
                  + [("func", op, a, b) for op in sorted(BOOL_BINARY_GAPS & set(FUNCS))
                     for a in BOOLS[:2] for b in BOOLS[:2]]
                  + [("unary", op, a, None) for op in sorted(BOOL_UNARY_GAPS) for a in BOOLS[:2]])


@pytest.mark.parametrize("kind,op,a,b", BOOL_GAP_CASES)
def test_bool_arithmetic_matches_torch(kind, op, a, b):
    if kind == "binary":
        f = BINARY[op]
        _check(lambda: f(OPERANDS[a](torch), OPERANDS[b](torch)),
               lambda: f(OPERANDS[a](leafgrad), OPERANDS[b](leafgrad)))
    elif kind == "func":
        f = FUNCS[op]
        _check(lambda: f(torch, OPERANDS[a](torch), OPERANDS[b](torch)),
               lambda: f(leafgrad, OPERANDS[a](leafgrad), OPERANDS[b](leafgrad)))
    else:
        f = UNARY[op]
        _check(lambda: f(torch, OPERANDS[a](torch)), lambda: f(leafgrad, OPERANDS[a](leafgrad)))
