"""LBFGS against real PyTorch: iterates, losses, evaluation counts and state, with and
without the strong-Wolfe line search, for several history sizes; errors as PyTorch's.

float64 problems away from convergence: near the optimum, PyTorch's own stopping tests
compare losses for exact equality, where BLAS summation order decides (implementation
defined), so the tests stop before that regime."""
import numpy as np
import pytest
import torch

import leafgrad


def rosenbrock_run(T, line_search, history, steps=3, max_iter=5, start=(-1.5, 2.0)):
    p = T.tensor(list(start), dtype=T.float64, requires_grad=True)
    opt = T.optim.LBFGS([p], lr=1, max_iter=max_iter, history_size=history,
                        line_search_fn=line_search)

    def closure():
        opt.zero_grad()
        loss = (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2
        loss.backward()
        return loss
    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        st = opt.state[p]
        out.append((loss.item(), p.detach().numpy().copy(), st["func_evals"], st["n_iter"]))
    return out


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
@pytest.mark.parametrize("history", [100, 3, 1])
def test_rosenbrock_matches_torch(line_search, history):
    a = rosenbrock_run(torch, line_search, history)
    b = rosenbrock_run(leafgrad, line_search, history)
    for (la, pa, fa, na), (lb, pb, fb, nb) in zip(a, b):
        assert (fa, na) == (fb, nb)
        np.testing.assert_allclose(lb, la, rtol=1e-9)
        np.testing.assert_allclose(pb, pa, rtol=1e-9, atol=1e-12)


def mlp_run(T, line_search):
    rng = np.random.default_rng(0)
    X = T.tensor(rng.normal(size=(32, 3)), dtype=T.float32)
    y = T.tensor(rng.normal(size=(32,)), dtype=T.float32)
    w = T.tensor([0.5, -0.3, 0.1], requires_grad=True)
    b = T.tensor(0.0, requires_grad=True)
    opt = T.optim.LBFGS([w, b], max_iter=3, line_search_fn=line_search)

    def closure():
        opt.zero_grad()
        loss = (((X @ w + b).tanh() - y) ** 2).mean() + 0.1 * (w ** 4).sum()
        loss.backward()
        return loss
    loss = opt.step(closure)
    return loss.item(), w.detach().numpy().copy(), b.item(), opt.state[w]["func_evals"]


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_float32_parameters_and_0d_parameter(line_search):
    a, b = mlp_run(torch, line_search), mlp_run(leafgrad, line_search)
    assert a[3] == b[3]
    np.testing.assert_allclose(b[0], a[0], rtol=1e-6)
    np.testing.assert_allclose(b[1], a[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b[2], a[2], rtol=1e-5, atol=1e-6)


def test_converged_start_returns_at_once():
    for T in (torch, leafgrad):
        p = T.tensor([1.0, 1.0], dtype=T.float64, requires_grad=True)
        opt = T.optim.LBFGS([p])

        def closure():
            opt.zero_grad()
            loss = ((p - 1) ** 2).sum()
            loss.backward()
            return loss
        assert opt.step(closure).item() == 0.0
        assert opt.state[p]["func_evals"] == 1 and opt.state[p]["n_iter"] == 0


def test_errors_like_torch():
    for T in (torch, leafgrad):
        p = T.zeros(2, requires_grad=True)
        q = T.zeros(2, requires_grad=True)
        with pytest.raises(ValueError):
            T.optim.LBFGS([p], lr=-1)
        with pytest.raises(ValueError):
            T.optim.LBFGS([{"params": [p]}, {"params": [q]}])
        opt = T.optim.LBFGS([p], line_search_fn="armijo")

        def closure():
            opt.zero_grad()
            loss = ((p - 1) ** 2).sum()
            loss.backward()
            return loss
        with pytest.raises(RuntimeError):
            opt.step(closure)


def test_state_dict_round_trip_continues_identically():
    def run(T, split):
        p = T.tensor([-1.5, 2.0], dtype=T.float64, requires_grad=True)
        opt = T.optim.LBFGS([p], max_iter=3, history_size=4)

        def closure():
            opt.zero_grad()
            loss = (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2
            loss.backward()
            return loss
        opt.step(closure)
        if split:
            sd = opt.state_dict()
            opt = T.optim.LBFGS([p], max_iter=3, history_size=4)
            opt.load_state_dict(sd)
        opt.step(closure)
        return p.detach().numpy().copy()
    np.testing.assert_allclose(run(leafgrad, True), run(leafgrad, False), rtol=1e-12)
    np.testing.assert_allclose(run(leafgrad, True), run(torch, True), rtol=1e-9)
