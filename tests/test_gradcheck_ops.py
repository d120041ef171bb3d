"""leafgrad's own ``autograd.gradcheck`` and ``gradgradcheck`` on every op row of
tests/op_table.py (float64, central differences), as the semantics issue asks:
first derivatives for every row, second derivatives where the row has them."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import leafgrad
from leafgrad.autograd import gradcheck, gradgradcheck
from test_ops_vs_torch import FD_ROWS, _draw, _flat, _kw_as


def _fn(row, kw):
    def f(*ins):
        outs = [o for o in _flat(row.fn(leafgrad, *ins, **kw))
                if isinstance(o, leafgrad.Tensor) and o.requires_grad]
        return tuple(outs)
    return f


@pytest.mark.parametrize("row", FD_ROWS, ids=[r.name for r in FD_ROWS])
@settings(max_examples=2, deadline=None, derandomize=True)
@given(data=st.data())
def test_gradcheck_and_gradgradcheck(row, data):
    arrays, kw, _ = _draw(data, row)
    kw = _kw_as(kw, np.float64)
    xs = tuple(leafgrad.tensor(a, requires_grad=True) for a in arrays)
    f = _fn(row, kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            outs = f(*xs)
        except Exception:
            return          # invalid parameters for this op; test_ops_vs_torch checks the error
        if not outs:
            return
        assert gradcheck(f, xs, eps=1e-6, atol=1e-5, rtol=1e-3)
        # second order: keep it cheap (one VJP per output element per input element)
        if row.second_order and sum(o.numel() for o in outs) <= 16 and \
                sum(x.numel() for x in xs) <= 16:
            assert gradgradcheck(f, xs, eps=1e-6, atol=1e-4, rtol=1e-3)
