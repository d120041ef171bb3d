"""nn.utils.parametrize, nn.utils.parametrizations.weight_norm/spectral_norm and the older
hook-based nn.utils.weight_norm/spectral_norm, against real PyTorch: class names, repr,
state_dict keys and shapes, values and gradients, assignment through right_inverse,
caching, removal, errors."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from _outcome import builtin_name


def sym(T):
    class Sym(T.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)
    return Sym()


def sym_inv(T):
    class SymInv(T.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()
    return SymInv()


def linear(T, i=3, o=3):
    m = T.nn.Linear(i, o)
    with T.no_grad():
        m.weight.copy_(T.tensor(np.arange(i * o, dtype=np.float32).reshape(o, i) / 7 - 0.5))
        m.bias.copy_(T.tensor(np.linspace(-1, 1, o, dtype=np.float32)))
    return m


def summary(T, m, x):
    """Class name, repr, state_dict (keys, shapes), output, grads of every parameter."""
    out = m(x)
    out.pow(2).sum().backward()
    return (type(m).__name__, repr(m), [(k, tuple(v.shape)) for k, v in m.state_dict().items()],
            out.detach().numpy().round(5).tolist(),
            [(n, None if p.grad is None else p.grad.numpy().round(4).tolist())
             for n, p in m.named_parameters()])


def run(case):
    res = []
    for T in (leafgrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                res.append(case(T))
            except Exception as e:     # noqa: BLE001 - compared with torch
                res.append(("raise", builtin_name(type(e))))
    return res


def _x(T, n=3):
    return T.tensor(np.linspace(-1, 2, 2 * n, dtype=np.float32).reshape(2, n))


CASES = {
    "register": lambda T: summary(T, T.nn.utils.parametrize.register_parametrization(
        linear(T), "weight", sym(T)), _x(T)),
    "two parametrizations": lambda T: summary(T, T.nn.utils.parametrize.register_parametrization(
        T.nn.utils.parametrize.register_parametrization(linear(T), "weight", sym_inv(T)),
        "weight", sym(T)), _x(T)),
    "assign needs right_inverse": lambda T: setattr(
        T.nn.utils.parametrize.register_parametrization(linear(T), "weight", sym(T)),
        "weight", T.eye(3)),
    "assign through right_inverse": lambda T: (lambda m: (setattr(m, "weight", T.eye(3) * 2),
                                                          m.parametrizations.weight.original.tolist())[1])(
        T.nn.utils.parametrize.register_parametrization(linear(T), "weight", sym_inv(T))),
    "shape change refused": lambda T: T.nn.utils.parametrize.register_parametrization(
        linear(T), "weight", (lambda M: M())(type("Bad", (T.nn.Module,), {
            "forward": lambda self, X: X[:2]}))),
    "no such tensor": lambda T: T.nn.utils.parametrize.register_parametrization(
        linear(T), "nope", sym(T)),
    "is_parametrized": lambda T: (lambda m: (T.nn.utils.parametrize.is_parametrized(m),
                                             T.nn.utils.parametrize.is_parametrized(m, "weight"),
                                             T.nn.utils.parametrize.is_parametrized(m, "bias")))(
        T.nn.utils.parametrize.register_parametrization(linear(T), "weight", sym(T))),
    "remove keeps value": lambda T: (lambda m: (T.nn.utils.parametrize.remove_parametrizations(
        m, "weight"), type(m).__name__, type(m.weight).__name__, m.weight.tolist(),
        hasattr(m, "parametrizations"))[1:])(
        T.nn.utils.parametrize.register_parametrization(linear(T), "weight", sym(T))),
    "remove original": lambda T: (lambda m: (T.nn.utils.parametrize.remove_parametrizations(
        m, "weight", leave_parametrized=False), m.weight.tolist())[1])(
        T.nn.utils.parametrize.register_parametrization(linear(T), "weight", sym(T))),
    "remove twice": lambda T: (lambda m: (T.nn.utils.parametrize.remove_parametrizations(
        m, "weight"), T.nn.utils.parametrize.remove_parametrizations(m, "weight")))(
        T.nn.utils.parametrize.register_parametrization(linear(T), "weight", sym(T))),
    "cached": lambda T: (lambda m: (lambda: [m.weight is m.weight,
                                             (lambda c: (c.__enter__(), m.weight is m.weight,
                                                         c.__exit__(None, None, None))[1])(
                                                 T.nn.utils.parametrize.cached())])())(
        T.nn.utils.parametrize.register_parametrization(linear(T), "weight", sym(T)))(),
    "weight_norm": lambda T: summary(T, T.nn.utils.parametrizations.weight_norm(linear(T, 3, 2)),
                                     _x(T)),
    "weight_norm dim=None": lambda T: summary(T, T.nn.utils.parametrizations.weight_norm(
        linear(T, 3, 2), dim=None), _x(T)),
    "weight_norm dim=1": lambda T: summary(T, T.nn.utils.parametrizations.weight_norm(
        linear(T, 3, 2), dim=1), _x(T)),
    "old weight_norm": lambda T: summary(T, T.nn.utils.weight_norm(linear(T, 3, 2)), _x(T)),
    "old remove_weight_norm": lambda T: (lambda m: (T.nn.utils.remove_weight_norm(m),
                                                    [n for n, _ in m.named_parameters()],
                                                    m.weight.detach().numpy().round(5).tolist())[1:])(
        T.nn.utils.weight_norm(linear(T, 3, 2))),
    "old weight_norm twice": lambda T: T.nn.utils.weight_norm(T.nn.utils.weight_norm(linear(T))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_like_torch(name):
    a, b = run(CASES[name])
    assert a == b


def _spectral_pair(new_api, dim=None, steps=3, conv=False):
    """Same starting u, v in both libraries (copied after registration), then training
    steps: the power iterations and w / sigma must agree."""
    out = []
    state = None
    for T in (torch, leafgrad):
        m = (T.nn.Conv2d(2, 3, 2) if conv else linear(T, 4, 3))
        if conv:
            with T.no_grad():
                m.weight.copy_(T.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(3, 2, 2, 2)))
                m.bias.zero_()
        if new_api:
            T.nn.utils.parametrizations.spectral_norm(m, dim=dim)
            bufs = ("parametrizations.weight.0._u", "parametrizations.weight.0._v")
        else:
            T.nn.utils.spectral_norm(m, dim=dim)
            bufs = ("weight_u", "weight_v")
        sd = m.state_dict()
        if state is None:
            state = {k: sd[k].numpy().copy() for k in bufs}
        else:
            with T.no_grad():
                for k in bufs:
                    sd[k].copy_(T.tensor(state[k]))
        x = T.ones(1, 2, 3, 3) if conv else _x(T, 4)
        vals = []
        for _ in range(steps):
            y = m(x)
            y.pow(2).sum().backward()
            vals.append(y.detach().numpy().copy())
        m.eval()
        vals.append(m(x).detach().numpy().copy())
        out.append((vals, [k for k in m.state_dict()], [p.grad.numpy() for p in m.parameters()]))
    return out


@pytest.mark.parametrize("new_api", [True, False])
@pytest.mark.parametrize("conv", [False, True])
def test_spectral_norm_matches_torch(new_api, conv):
    (ta, tk, tg), (la, lk, lg) = _spectral_pair(new_api, conv=conv)
    assert tk == lk
    for a, b in zip(ta, la):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
    for a, b in zip(tg, lg):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)


def test_spectral_norm_errors():
    for T in (torch, leafgrad):
        with pytest.raises(ValueError):
            T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 2), n_power_iterations=0)
        with pytest.raises(IndexError):
            T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 2), dim=3)
        with pytest.raises(RuntimeError):
            T.nn.utils.spectral_norm(T.nn.utils.spectral_norm(T.nn.Linear(2, 2)))


def test_optimizer_trains_parametrized_module():
    m = leafgrad.nn.utils.parametrizations.weight_norm(linear(leafgrad, 3, 2))
    opt = leafgrad.optim.SGD(m.parameters(), lr=0.1)
    x = _x(leafgrad)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = m(x).pow(2).sum()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


def test_old_remove_spectral_norm_like_torch():
    def case(T):
        m = T.nn.utils.spectral_norm(linear(T, 3, 2))
        m.eval()
        with T.no_grad():
            before = m(_x(T)).numpy().round(5).tolist()
        T.nn.utils.remove_spectral_norm(m)
        with pytest.raises(ValueError):
            T.nn.utils.remove_spectral_norm(m)
        return [n for n, _ in m.named_parameters()], list(m.state_dict()), before == m(
            _x(T)).detach().numpy().round(5).tolist()
    assert case(leafgrad) == case(torch)
