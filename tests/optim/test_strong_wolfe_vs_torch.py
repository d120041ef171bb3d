"""``torch.optim.lbfgs._strong_wolfe`` and ``_cubic_interpolate`` with PyTorch's signature
(``obj_func(x, t, d)``, flat Tensors) against real torch: same step, loss, gradient and
number of evaluations (issue 28: libraries call the line search directly)."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad
from leafgrad.optim import lbfgs as ours_lbfgs
from torch.optim import lbfgs as torch_lbfgs


def _objective(lib, a, b):
    """Rosenbrock-like f(x) = sum(a (x1 - x0^2)^2 + (b - x0)^2) on a flat float64 x."""
    def obj_func(x, t, d):
        y = (x + t * d).detach().requires_grad_(True)
        f = (a * (y[1:] - y[:-1] ** 2) ** 2 + (b - y[:-1]) ** 2).sum()
        f.backward()
        return float(f.detach()), y.grad
    return obj_func


def _search(lib, mod, x0, a, b, t, max_ls, tol):
    obj = _objective(lib, a, b)
    x = lib.tensor(x0, dtype=lib.float64)
    f, g = obj(x, 0.0, lib.zeros_like(x))
    d = -g
    return mod._strong_wolfe(obj, x, t, d, f, g, g.dot(d), max_ls=max_ls,
                             tolerance_change=tol)


@settings(max_examples=40, deadline=None)
@given(x0=st.lists(st.floats(-2, 2), min_size=2, max_size=6),
       a=st.floats(0.5, 100), b=st.floats(-1, 2), t=st.sampled_from([1e-3, 0.1, 1.0, 10.0]),
       max_ls=st.integers(1, 25), tol=st.sampled_from([1e-9, 1e-3]))
def test_strong_wolfe_matches_torch(x0, a, b, t, max_ls, tol):
    tf, tg, tt, tn = _search(torch, torch_lbfgs, x0, a, b, t, max_ls, tol)
    of, og, ot, on = _search(leafgrad, ours_lbfgs, x0, a, b, t, max_ls, tol)
    assert on == tn
    assert isinstance(og, leafgrad.Tensor) and og.dtype == leafgrad.float64
    np.testing.assert_allclose(float(ot), float(tt), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(of, tf, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(og.numpy(), tg.numpy(), rtol=1e-8, atol=1e-10)
    assert type(ot).__name__ == type(tt).__name__


@pytest.mark.parametrize("args", [
    (0.0, 1.0, -1.0, 1.0, 0.5, 2.0),       # a real minimiser inside
    (0.0, 1.0, -1.0, 1.0, 3.0, -2.0),      # negative discriminant: the midpoint
    (2.0, 0.5, 1.0, 0.0, 1.0, -3.0),       # x1 > x2
])
def test_cubic_interpolate_matches_torch(args):
    theirs = torch_lbfgs._cubic_interpolate(*[torch.tensor(v, dtype=torch.float64)
                                              for v in args])
    ours = ours_lbfgs._cubic_interpolate(*[leafgrad.tensor(v, dtype=leafgrad.float64)
                                           for v in args])
    np.testing.assert_allclose(float(ours), float(theirs), rtol=1e-12)
    theirs_b = torch_lbfgs._cubic_interpolate(
        *[torch.tensor(v, dtype=torch.float64) for v in args], bounds=(0.1, 0.3))
    ours_b = ours_lbfgs._cubic_interpolate(
        *[leafgrad.tensor(v, dtype=leafgrad.float64) for v in args], bounds=(0.1, 0.3))
    np.testing.assert_allclose(float(ours_b), float(theirs_b), rtol=1e-12)
