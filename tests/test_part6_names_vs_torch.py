"""Issue 24 item 6 names against PyTorch: the view scatters (slice/select/diagonal_scatter),
index_put / index_reduce / put / fill_diagonal_, the storage and buffer names, and
round(decimals=) / return_types. Values, dtypes, grad_fn names, gradients and the
exception class of each refusal are compared with real torch (hypothesis draws)."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad

LIBS = (torch, leafgrad)


def _same_error(fn):
    """``fn(lib)`` raises the same exception class under both libraries (or neither
    raises and the results are equal)."""
    out = []
    for T in LIBS:
        try:
            out.append(("ok", np.asarray(fn(T).detach().numpy())))
        except Exception as e:   # noqa: BLE001 - the class is what is compared
            out.append(("err", type(e).__name__, str(e)))
    if out[0][0] == "ok" and out[1][0] == "ok":
        np.testing.assert_array_equal(out[1][1], out[0][1])
    else:
        assert out[0][:2] == out[1][:2], out
    return out


# ------------------------------------------------------------- view scatters
_SCATTER_CASES = {
    "slice_wrong_shape": lambda T: T.slice_scatter(T.zeros(3, 4), T.ones(3, 2), 1, 0, 4, 1),
    "slice_step_zero": lambda T: T.slice_scatter(T.zeros(3, 4), T.ones(3, 2), 1, 0, 4, 0),
    "slice_step_neg": lambda T: T.slice_scatter(T.zeros(3, 4), T.ones(3, 2), 1, 0, 4, -1),
    "slice_dim": lambda T: T.slice_scatter(T.zeros(3, 4), T.ones(3, 4), 5),
    "slice_0d": lambda T: T.slice_scatter(T.zeros(()), T.zeros(()), 0),
    "slice_number": lambda T: T.slice_scatter(T.zeros(3), 2.0, 0),
    "slice_empty": lambda T: T.slice_scatter(T.zeros(3, 4), T.ones(3, 0), 1, 10, 20),
    "select_index": lambda T: T.select_scatter(T.zeros(3, 4), T.ones(4), 0, 5),
    "select_neg_index": lambda T: T.select_scatter(T.zeros(3, 4), T.ones(4), 0, -4),
    "select_shape": lambda T: T.select_scatter(T.zeros(3, 4), T.ones(1, 4), 0, 1),
    "select_1d": lambda T: T.select_scatter(T.zeros(3), T.tensor(1.0), 0, -1),
    "diag_same_dims": lambda T: T.diagonal_scatter(T.zeros(3, 4), T.ones(3), 0, 0, 0),
    "diag_shape": lambda T: T.diagonal_scatter(T.zeros(3, 4), T.ones(4), 0),
    "diag_offset_out": lambda T: T.diagonal_scatter(T.zeros(3, 4), T.ones(0), 5),
    "int_input_float_src": lambda T: T.slice_scatter(T.zeros(3, 4, dtype=T.int32),
                                                     T.ones(3, 2) * 1.5, 1, 0, 4, 2),
    "double_src": lambda T: T.diagonal_scatter(T.zeros(3, 4), T.ones(3, dtype=T.float64)),
}


@pytest.mark.parametrize("case", sorted(_SCATTER_CASES))
def test_view_scatter_values_and_refusals(case):
    out = _same_error(_SCATTER_CASES[case])
    if out[1][0] == "err":
        assert ("Fix" in out[1][2] or out[1][1] == "TypeError"
                or out[1][2].startswith("Dimension out of range")), out[1]


def test_view_scatter_result_dtype_is_inputs():
    for T in LIBS:
        r = T.select_scatter(T.zeros(2, 3), T.ones(3, dtype=T.float64), 0, 1)
        assert str(r.dtype).endswith("float32")


@pytest.mark.parametrize("name", ["slice_scatter", "select_scatter", "diagonal_scatter"])
def test_view_scatter_grad_fn_out_and_method(name):
    args = {"slice_scatter": ((2, 2), dict(dim=1, start=1, end=None, step=2)),
            "select_scatter": ((2,), dict(dim=1, index=-1)),
            "diagonal_scatter": ((2,), dict(offset=1))}[name]
    res = []
    for T in LIBS:
        x = T.arange(8.0).reshape(2, 4).requires_grad_()
        s = T.full(args[0], -1.0, dtype=T.float64, requires_grad=True)
        r = getattr(x, name)(s, **args[1])
        (r * T.arange(8.0).reshape(2, 4)).sum().backward()
        o = getattr(T, name)(x.detach(), s.detach(), **args[1])
        if name == "slice_scatter":   # the only one of the three with out= in PyTorch
            o = T.empty(2, 4)
            T.slice_scatter(x.detach(), s.detach(), out=o, **args[1])
        res.append((type(r.grad_fn).__name__, r.detach().numpy(), x.grad.numpy(),
                    s.grad.numpy(), str(s.grad.dtype)[-7:], o.numpy()))
    assert res[0][0] == res[1][0]
    for a, b in zip(res[0][1:], res[1][1:]):
        np.testing.assert_array_equal(np.asarray(b), np.asarray(a))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_view_scatter_second_order_matches_torch(data):
    n, m = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    off = data.draw(st.integers(-m, m))
    xs = np.random.default_rng(n * 10 + m).standard_normal((n, m))
    src_n = np.diagonal(xs, off).shape[0]
    res = []
    for T in LIBS:
        x = T.tensor(xs, requires_grad=True)
        s = T.tensor(np.linspace(-1, 1, src_n), requires_grad=True)
        r = T.diagonal_scatter(x * x, s * s, off)
        gx, gs = T.autograd.grad(r.sum(), (x, s), create_graph=True)
        g2 = T.autograd.grad((gx * gx).sum() + (gs * gs).sum(), (x, s))
        res.append([v.detach().numpy() for v in (r, gx, gs) + tuple(g2)])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-12)
