"""addmm / addmv / addr / baddbmm / addbmm with beta and alpha of 0, 1 and others,
against PyTorch: beta == 0 ignores input's NaN; alpha == 0 ignores the product's NaN
for the ops PyTorch computes by a BLAS call (addmm, addmv, addbmm) but not for addr and
baddbmm; values (signs of zeros included), grad_fn names and gradients."""
import itertools

import numpy as np
import pytest
import torch

import leafgrad

NAN = float("nan")
OPS = {
    "addmm": ((3, 2), (3, 4), (4, 2)),
    "addmv": ((3,), (3, 4), (4,)),
    "addr": ((3, 4), (3,), (4,)),
    "baddbmm": ((2, 3, 2), (2, 3, 4), (2, 4, 2)),
    "addbmm": ((3, 2), (2, 3, 4), (2, 4, 2)),
}


def _inputs(T, shapes, seed, nan_in):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s) for s in shapes]
    arrs[nan_in].reshape(-1)[0] = NAN
    arrs[0].reshape(-1)[-1] = -0.0
    return [T.tensor(a, requires_grad=True) for a in arrs]


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("beta,alpha", list(itertools.product([0, 1, -0.5], [0, 1, 2.5])))
@pytest.mark.parametrize("nan_in", [0, 1])
def test_scaled_blas_ops_match_torch(op, beta, alpha, nan_in):
    got = []
    for T in (torch, leafgrad):
        xs = _inputs(T, OPS[op], 11, nan_in)
        y = getattr(T, op)(*xs, beta=beta, alpha=alpha)
        row = [y.detach().numpy(), type(y.grad_fn).__name__]
        if not np.isnan(row[0]).any():
            gs = T.autograd.grad(y.sum(), xs, allow_unused=True)
            row += [None if g is None else g.numpy() for g in gs]
        got.append(row)
    (tv, tn, *tg), (lv, ln, *lg) = got
    assert ln == tn
    np.testing.assert_allclose(lv, tv, rtol=1e-12, atol=0)    # NaN where NaN
    zero = tv == 0                  # the sign of an exact zero is defined
    np.testing.assert_array_equal(np.signbit(lv[zero]), np.signbit(tv[zero]))
    assert len(lg) == len(tg)
    for a, b in zip(lg, tg):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
