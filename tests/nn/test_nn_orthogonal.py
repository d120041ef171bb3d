"""nn.utils.parametrizations.orthogonal (matrix_exp, cayley, householder; with and without
the dynamic trivialization) and torch.geqrf against real torch 2.13: the parametrized
weight, the gradient of the original, state_dict keys, repr, assignment, errors."""
import numpy as np
import pytest
import torch

import leafgrad
from _outcome import raised

CASES = [((4, 4), None, True), ((6, 3), None, True), ((3, 6), None, True),
         ((4, 4), "cayley", True), ((5, 3), "householder", False),
         ((5, 3), "matrix_exp", True), ((3, 5), "cayley", True), ((4, 4), "householder", True),
         ((2, 4, 3), None, True)]


def _run(T, shape, omap, triv):
    T.manual_seed(0)
    m = T.nn.Module()
    m.weight = T.nn.Parameter(T.tensor(np.random.RandomState(1).randn(*shape)))
    T.nn.utils.parametrizations.orthogonal(m, orthogonal_map=omap, use_trivialization=triv)
    W = m.weight
    x = T.tensor(np.random.RandomState(2).randn(shape[-1], 2))
    ((W @ x) ** 3).sum().backward()
    orig = m.parametrizations.weight.original
    out = [W.detach().numpy(), orig.grad.numpy(), sorted(m.state_dict().keys()),
           repr(m.parametrizations.weight[0])]
    if triv or omap == "householder":      # assignment goes through right_inverse
        with T.no_grad():
            m.weight = W.detach() * 1.0
        out.append(m.weight.detach().numpy())
    return out


@pytest.mark.parametrize("shape,omap,triv", CASES)
def test_orthogonal_matches_torch(shape, omap, triv):
    got, want = _run(leafgrad, shape, omap, triv), _run(torch, shape, omap, triv)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-8, atol=1e-11)
    assert got[2:4] == want[2:4]
    if len(want) > 4:
        np.testing.assert_allclose(got[4], want[4], rtol=1e-9, atol=1e-12)
    W = got[0].reshape((-1,) + shape[-2:])
    for w in W:     # orthonormal columns (rows when wide)
        g = w.T @ w if shape[-2] >= shape[-1] else w @ w.T
        np.testing.assert_allclose(g, np.eye(min(shape[-2:])), atol=1e-12)


def test_geqrf_matches_torch():
    a = np.random.RandomState(4).randn(2, 5, 3)
    a[1, 1:, 0] = 0     # a column already reduced: tau 0
    got, want = leafgrad.geqrf(leafgrad.tensor(a)), torch.geqrf(torch.tensor(a))
    np.testing.assert_allclose(got.a.numpy(), want.a.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got.tau.numpy(), want.tau.numpy(), rtol=1e-12, atol=1e-14)


def _errors(T):
    P = T.nn.utils.parametrizations

    def lin():
        return T.nn.Linear(3, 3)
    return raised([lambda: P.orthogonal(lin(), "nope"),
                   lambda: P.orthogonal(lin(), "bias"),
                   lambda: P.orthogonal(lin(), orthogonal_map="bad"),
                   lambda: setattr(P.orthogonal(lin(), use_trivialization=False), "weight",
                                   T.eye(3))])


def test_errors_match_torch():
    assert _errors(leafgrad) == _errors(torch)
