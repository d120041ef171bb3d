"""NumPy arrays and tensors in one operator, against real PyTorch.

PyTorch's operators refuse ndarray operands; what then happens is Python's
and NumPy's doing: ``t + a`` is computed by NumPy on ``t.__array__()`` and
wrapped back as a tensor (NumPy's promotion, no graph; refused when ``t``
requires grad), ``a + t`` raises TypeError except ``a / t`` (NumPy computes
``t.reciprocal() * a``), ``<``/``>=`` raise, ``==`` compares elementwise and
``!=`` is Python's identity test. leafgrad must give the same result type,
dtype, shape and values, or the same exception class.
"""
import operator
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from _outcome import builtin_name

ARRAYS = {
    "f64": np.array([1.0, 2.0, 3.0]), "f32": np.array([1, 2, 3], np.float32),
    "i64": np.array([1, 2, 3]), "i32": np.array([1, 2, 3], np.int32),
    "bool": np.array([True, False, True]), "0d": np.array(3.0), "col": np.array([[1.0], [7.0]]),
}
TENSORS = {
    "t": lambda T: T.tensor([1.0, 2.0, 7.0]),
    "t_rg": lambda T: T.tensor([1.0, 2.0, 7.0], requires_grad=True),
    "t_int": lambda T: T.tensor([1, 2, 7]),
    "t_0d": lambda T: T.tensor(7.0),
    "t_bool": lambda T: T.tensor([True, True, False]),
    "t_f64": lambda T: T.tensor([0.5, 2.0, 7.0], dtype=T.float64),
}
OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "@": operator.matmul, "**": operator.pow, "//": operator.floordiv, "%": operator.mod,
    "&": operator.and_, "|": operator.or_, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}


def _outcome(T, op, arr, tensor, side):
    t = TENSORS[tensor](T)
    a = ARRAYS[arr].copy()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = OPS[op](a, t) if side == "left" else OPS[op](t, a)
    except Exception as e:   # noqa: BLE001
        return ("error", builtin_name(type(e)))
    if isinstance(r, (T.Tensor,)):
        return ("tensor", str(r.dtype), tuple(r.shape), r.requires_grad,
                np.array(r.detach().tolist(), dtype=np.float64))
    if isinstance(r, np.ndarray):
        return ("ndarray", r.dtype.name, r.shape, r.astype(np.float64))
    return (type(r).__name__, r)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_ndarray_operand_matches_torch(op, side):
    for arr in ARRAYS:
        for tensor in TENSORS:
            want = _outcome(torch, op, arr, tensor, side)
            got = _outcome(leafgrad, op, arr, tensor, side)
            what = "%s %s %s (array on the %s)" % (arr, op, tensor, side)
            assert got[:-1] == want[:-1] if want[0] in ("tensor", "ndarray") else got == want, \
                "%s: leafgrad %s, torch %s" % (what, got[:4], want[:4])
            if want[0] in ("tensor", "ndarray"):
                np.testing.assert_array_equal(got[-1], want[-1], err_msg=what)


def test_inplace_operator_with_ndarray_rebinds_as_torch():
    for T in (torch, leafgrad):
        t = T.tensor([1.0, 2.0])
        orig = t
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t += np.array([1.0, 1.0])
        # not in place: NumPy computed a new float64 tensor, the old one is unchanged
        assert str(t.dtype) == "torch.float64" and t.tolist() == [2.0, 3.0]
        assert orig.tolist() == [1.0, 2.0]
        a = np.array([1.0, 2.0])
        with pytest.raises(TypeError):
            a += T.tensor([1.0, 1.0])
        with pytest.raises(RuntimeError):
            t2 = T.tensor([1.0, 2.0], requires_grad=True) * 1
            t2 *= np.array([1.0, 1.0])


def test_numpy_ufuncs_on_tensors_return_tensors():
    for T in (torch, leafgrad):
        t = T.tensor([1.0, 2.0, 7.0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = np.sin(t), np.add(np.array([1.0, 2.0, 3.0]), t), np.greater(t, 1.5)
        assert all(isinstance(x, T.Tensor) for x in r)
        assert [str(x.dtype) for x in r] == ["torch.float32", "torch.float64", "torch.uint8"]
        np.testing.assert_allclose(r[0].tolist(), np.sin(np.array([1.0, 2.0, 7.0], np.float32)))


def test_ndarray_on_the_left_message_says_how_to_fix():
    with pytest.raises(TypeError, match="torch.from_numpy"):
        np.ones(3) * leafgrad.ones(3)
    with pytest.raises(TypeError, match="torch.from_numpy"):
        np.ones(3) < leafgrad.ones(3)
