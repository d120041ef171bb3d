"""torch.linalg.qr (and torch.qr), householder_product (torch.orgqr), matrix_rank, cond,
vander against real torch 2.13 (eig/eigvals: tests/test_linalg_eig_vs_torch.py). Q's column signs are implementation-defined:
values are compared after making diag(R) positive (unique for full-rank inputs), and the
gradients are those of sign-invariant functions of Q and R."""
import numpy as np
import pytest
import torch

import leafgrad
from _outcome import raised

R_ = np.random.RandomState(11)
MATS = {"tall": R_.randn(5, 3), "square": R_.randn(4, 4), "wide": R_.randn(3, 5),
        "batch": R_.randn(2, 4, 3)}


def _normalized(T, Q, R):
    s = T.sign(R.diagonal(0, -2, -1)).detach()
    return Q * s.unsqueeze(-2), R * s.unsqueeze(-1)


def _qr_run(T, a, mode):
    A = T.tensor(a, requires_grad=True)
    Q, R = T.linalg.qr(A, mode=mode)
    k = min(a.shape[-2:])
    Qn, Rn = _normalized(T, Q[..., :, :k], R[..., :k, :])
    if mode == "complete" and a.shape[-2] == a.shape[-1]:
        Qn, Rn = _normalized(T, Q, R)
    w1 = T.tensor(np.cos(np.arange(Qn.numel())).reshape(Qn.shape))
    w2 = T.tensor(np.sin(np.arange(Rn.numel())).reshape(Rn.shape))
    loss = (w1 * Qn).sum() + (w2 * Rn).sum() + (Qn ** 3).sum()
    (g,) = T.autograd.grad(loss, A, create_graph=True)
    (gg,) = T.autograd.grad((g * g).sum(), A)
    return [x.detach().numpy() for x in (Qn, Rn, g, gg)] + [tuple(Q.shape), tuple(R.shape)]


@pytest.mark.parametrize("name", sorted(MATS))
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_matches_torch(name, mode):
    a = MATS[name]
    if mode == "complete" and a.shape[-2] > a.shape[-1]:
        pytest.skip("not differentiable in PyTorch either (tested below)")
    got, want = _qr_run(leafgrad, a, mode), _qr_run(torch, a, mode)
    assert got[4:] == want[4:]
    for g, w in zip(got[:4], want[:4]):
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-10)


def test_qr_invariants_and_old_api():
    a = MATS["tall"]
    Q, R = leafgrad.linalg.qr(leafgrad.tensor(a))
    np.testing.assert_allclose((Q @ R).numpy(), a, atol=1e-12)
    np.testing.assert_allclose((Q.mT @ Q).numpy(), np.eye(3), atol=1e-12)
    assert np.allclose(np.tril(R.numpy(), -1), 0)
    Q2, R2 = leafgrad.qr(leafgrad.tensor(a), some=False)
    assert tuple(Q2.shape) == (5, 5) and type(leafgrad.qr(leafgrad.tensor(a))).__name__ == "qr"
    Qr, Rr = leafgrad.linalg.qr(leafgrad.tensor(a), mode="r")
    assert tuple(Qr.shape) == (0,) == tuple(torch.linalg.qr(torch.tensor(a), mode="r").Q.shape)


def _hh(T, a, tau):
    A = T.tensor(a, requires_grad=True)
    t = T.tensor(tau, requires_grad=True)
    out = T.linalg.householder_product(A, t)
    loss = (out * T.tensor(np.cos(np.arange(out.numel())).reshape(out.shape))).sum()
    gA, gt = T.autograd.grad(loss, (A, t), create_graph=True)
    gg = T.autograd.grad((gA ** 2).sum() + (gt ** 2).sum(), (A, t))
    return [x.detach().numpy() for x in (out, gA, gt) + tuple(gg)] + \
        [T.orgqr(A, t).detach().numpy()]


@pytest.mark.parametrize("shape,k", [((5, 3), 3), ((4, 4), 2), ((2, 4, 3), 3)])
def test_householder_product_matches_torch(shape, k):
    a = R_.randn(*shape)
    tau = R_.rand(*(shape[:-2] + (k,))) + 0.5
    for g, w in zip(_hh(leafgrad, a, tau), _hh(torch, a, tau)):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-11)


def _misc(T):
    out = {}
    low = np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 0.5]) + np.outer([0.0, 1.0, 1.0], [2.0, 0, 1])
    out["rank"] = [int(T.linalg.matrix_rank(T.tensor(m))) for m in
                   (low, MATS["square"], np.zeros((3, 2)), low @ low.T)]
    out["rank_h"] = int(T.linalg.matrix_rank(T.tensor(low @ low.T), hermitian=True))
    out["rank_tol"] = [int(T.linalg.matrix_rank(T.tensor(np.diag([3.0, 1.0, 1e-3])), atol=a,
                                                rtol=r))
                       for a, r in ((0.01, None), (None, 0.5), (0.0, 1e-4), (2.0, 0.1))]
    out["rank_batch"] = T.linalg.matrix_rank(T.tensor(MATS["batch"])).tolist()
    out["rank_dtype"] = str(T.linalg.matrix_rank(T.tensor(low)).dtype)
    conds = []
    for p in (None, 2, -2, "fro", "nuc", 1, -1, float("inf"), float("-inf")):
        A = T.tensor(MATS["square"], requires_grad=True)
        c = T.linalg.cond(A, p)
        # PyTorch 2.13's backward raises for the norms through inv (an in-place bug in
        # its kernel): gradients compared for the others
        g = T.autograd.grad(c, A)[0].numpy() if p in (None, 2, -2, "nuc") else None
        conds.append((c.item(), g))
    out["cond"] = conds
    x = T.tensor([0.0, 1.5, -2.0], requires_grad=True)
    v = T.linalg.vander(x, N=4)
    (g,) = T.autograd.grad((v * T.tensor(np.arange(12.0).reshape(3, 4))).sum(), x)
    out["vander"] = (v.detach().numpy(), g.numpy(), T.linalg.vander(T.tensor([2, 3])).tolist())
    return out


def test_rank_cond_vander_match_torch():
    got, want = _misc(leafgrad), _misc(torch)
    for k in ("rank", "rank_h", "rank_tol", "rank_batch", "rank_dtype"):
        assert got[k] == want[k], k
    for (gc, gg), (wc, wg) in zip(got["cond"], want["cond"]):
        np.testing.assert_allclose(gc, wc, rtol=1e-10)
        if wg is not None:
            np.testing.assert_allclose(gg, wg, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(got["vander"][0], want["vander"][0])
    np.testing.assert_allclose(got["vander"][1], want["vander"][1])
    assert got["vander"][2] == want["vander"][2]


def _errors(T):
    a = T.tensor(MATS["tall"], requires_grad=True)
    calls = [
        lambda: T.linalg.qr(a, mode="bad"),
        lambda: T.linalg.qr(T.ones(3, 3, dtype=T.int64)),
        lambda: T.linalg.qr(a, mode="r").R.sum().backward(),
        lambda: T.linalg.qr(a, mode="complete").Q.sum().backward(),
        lambda: T.linalg.householder_product(T.ones(3, 4), T.ones(2)),
        lambda: T.linalg.householder_product(T.ones(4, 3), T.ones(4)),
        lambda: T.linalg.cond(T.ones(3, 2), "fro"),
    ]
    return raised(calls)


def test_errors_match_torch():
    assert _errors(leafgrad) == _errors(torch)


@pytest.mark.parametrize("p", ["fro", 1, float("inf")])
def test_cond_gradient_is_finite_differences(p):
    # PyTorch cannot backpropagate these (see above): checked against central differences
    a = MATS["square"]
    A = leafgrad.tensor(a, requires_grad=True)
    (g,) = leafgrad.autograd.grad(leafgrad.linalg.cond(A, p), A)
    eps, num = 1e-6, np.zeros_like(a)
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = eps
        num[i] = (leafgrad.linalg.cond(leafgrad.tensor(a + d), p).item()
                  - leafgrad.linalg.cond(leafgrad.tensor(a - d), p).item()) / (2 * eps)
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-7)
