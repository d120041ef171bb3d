"""vmap's batched path (func/_batched.py) against torch.func.vmap: values and shapes for
the ops with batching rules (and that they did run batched), grad / jacrev / hessian
inside vmap, per-sample gradients of a small CNN through functional_call, and the
per-sample loop taking over (correctly, without running writes twice) where there is
no rule."""
import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.func import _batched


@pytest.fixture
def runs(monkeypatch):
    """'batched' / 'loop' for each vmap call made during the test."""
    log = []
    orig = _batched.run

    def run(func, args, kwargs, n):
        try:
            res = orig(func, args, kwargs, n)
        except _batched.Unbatchable:
            log.append("loop")
            raise
        log.append("batched")
        return res
    monkeypatch.setattr(_batched, "run", run)
    return log


def _data(T):
    rng = np.random.default_rng(0)
    f = lambda *s: T.tensor(rng.standard_normal(s).astype(np.float32))   # noqa: E731
    return dict(x=f(5, 3), w=f(4, 3), b=f(4), ws=f(2, 4, 3), bs=f(2, 4),
                img=f(3, 1, 2, 6, 6), cw=f(4, 2, 3, 3), cb=f(4), cws=f(2, 4, 2, 3, 3),
                t=T.tensor([0, 3, 1, 2, 3]))


def _cases(T):
    F, fn = T.nn.functional, T.func
    d = _data(T)
    x, w, b = d["x"], d["w"], d["b"]
    return {
        "linear tanh": lambda: fn.vmap(lambda v: F.linear(v, w, b).tanh())(x),
        "arith sum": lambda: fn.vmap(lambda v: (v * 2 + 1 - v.exp() / 3).sum())(x),
        "mean dim keepdim": lambda: fn.vmap(lambda v: v.reshape(3, 1).mean(0, keepdim=True))(x),
        "matvec": lambda: fn.vmap(lambda v: w @ v)(x),
        "vecmat in/out dims": lambda: fn.vmap(lambda v: v @ w.T, in_dims=1, out_dims=1)(x.T),
        "matmul both": lambda: fn.vmap(lambda a, c: a.unsqueeze(1) @ c.unsqueeze(0))(x, x + 1),
        "log_softmax": lambda: fn.vmap(lambda v: F.log_softmax(v, 0))(x),
        "softmax method": lambda: fn.vmap(lambda v: v.reshape(1, 3).softmax(-1))(x),
        "grad": lambda: fn.vmap(fn.grad(lambda v: (F.linear(v, w, b).tanh() ** 2).sum()))(x),
        "grad unmapped weight": lambda: fn.vmap(
            fn.grad(lambda w_, v: F.linear(v, w_, b).sin().sum()), in_dims=(None, 0))(w, x),
        "jacrev": lambda: fn.vmap(fn.jacrev(lambda v: F.linear(v, w, b).tanh()))(x),
        "hessian": lambda: fn.vmap(fn.hessian(lambda v: F.linear(v, w, b).tanh().sum()))(x),
        "cross_entropy grad": lambda: fn.vmap(fn.grad(
            lambda w_, v, tt: F.cross_entropy(F.linear(v.unsqueeze(0), w_, b), tt.unsqueeze(0))),
            in_dims=(None, 0, 0))(w, x, d["t"]),
        "nll_loss": lambda: fn.vmap(
            lambda v, tt: F.nll_loss(F.log_softmax(F.linear(v, w, b), -1), tt))(x, d["t"]),
        "basic indexing": lambda: fn.vmap(lambda v: v[1:] * v[0] + v[None, ..., -1])(x),
        "views": lambda: fn.vmap(lambda v: v.reshape(3, 1).t().flatten().unsqueeze(0).squeeze())(x),
        "stack cat": lambda: fn.vmap(lambda v: T.cat([T.stack([v, v * 2], 1), w.T], 1))(x),
        "unmapped output": lambda: fn.vmap(lambda v: T.ones(2))(x),
        "ensemble": lambda: fn.vmap(lambda w_, b_: F.linear(x, w_, b_))(d["ws"], d["bs"]),
        "conv pool": lambda: fn.vmap(
            lambda v: F.max_pool2d(F.relu(F.conv2d(v, d["cw"], d["cb"])), 2))(d["img"]),
        "conv grad weights": lambda: fn.vmap(fn.grad(
            lambda cw_, v: F.conv2d(v, cw_, d["cb"], padding=1).square().mean()),
            in_dims=(None, 0))(d["cw"], d["img"]),
        "conv mapped weights": lambda: fn.vmap(
            lambda cw_: F.conv2d(d["img"][0], cw_, None, stride=2))(d["cws"]),
        "nested": lambda: fn.vmap(fn.vmap(lambda a: a.tanh() * 2))(x.reshape(5, 3, 1)),
    }


def _np(r):
    if isinstance(r, (tuple, list)):
        return [_np(e) for e in r]
    return r.detach().numpy()


@pytest.mark.parametrize("case", sorted(_cases(torch)))
def test_batched_as_torch(case, runs):
    want = _np(_cases(torch)[case]())
    got = _np(_cases(leafgrad)[case]())
    for a, b in zip(np.atleast_1d(want) if not isinstance(want, list) else want,
                    np.atleast_1d(got) if not isinstance(got, list) else got):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    assert "batched" in runs, runs          # (nested: the outer loops, the inner batches)


def test_batched_forward_is_the_unbatched_computation():
    # the Jacobians tutorial's check: a batched jacobian equals the jacobian of the summed
    # outputs exactly as in PyTorch (one batched matmul forward, not one per sample)
    d = _data(leafgrad)
    F = leafgrad.nn.functional
    predict = lambda w_, b_, v: F.linear(v, w_, b_).tanh()   # noqa: E731
    x = leafgrad.randn(64, 3)
    j0 = leafgrad.func.vmap(leafgrad.func.jacrev(predict, argnums=2),
                            in_dims=(None, None, 0))(d["w"], d["b"], x)
    j1 = leafgrad.func.jacrev(lambda w_, b_, v: predict(w_, b_, v).sum(0), argnums=2)(
        d["w"], d["b"], x).movedim(1, 0)
    assert leafgrad.equal(j0, j1)


def _cnn(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Conv2d(1, 3, 3), T.nn.ReLU(), T.nn.MaxPool2d(2),
                           T.nn.Flatten(), T.nn.Linear(12, 4))


def test_per_sample_grads_of_a_cnn_as_torch(runs):
    res = []
    rng = np.random.default_rng(1)
    data = rng.standard_normal((6, 1, 6, 6)).astype(np.float32)
    targets = np.array([0, 1, 2, 3, 1, 0])
    for T in (torch, leafgrad):
        model = _cnn(T)
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, s, t):
            out = T.func.functional_call(model, p, (s.unsqueeze(0),))
            return T.nn.functional.cross_entropy(out, t.unsqueeze(0))
        g = T.func.vmap(T.func.grad(loss), in_dims=(None, 0, 0))(
            params, T.tensor(data), T.tensor(targets))
        res.append({k: v.numpy() for k, v in g.items()})
    for k in res[0]:
        np.testing.assert_allclose(res[0][k], res[1][k], rtol=1e-4, atol=1e-5)
    assert runs == ["batched"]


def test_fallback_to_the_loop_where_no_rule(runs):
    x = _data(leafgrad)["x"]
    xt = _data(torch)["x"]
    got = leafgrad.func.vmap(lambda v: v.cumsum(0) * 2)(x)
    want = torch.func.vmap(lambda v: v.cumsum(0) * 2)(xt)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert runs == ["loop"]


def test_a_write_sends_to_the_loop_before_it_happens(runs):
    c = leafgrad.zeros(())
    x = _data(leafgrad)["x"]

    def f(v):
        c.add_(1)           # a write to a captured tensor: not run twice
        return v * 2
    leafgrad.func.vmap(f)(x)
    assert runs == ["loop"] and c.item() == x.shape[0]


def test_functions_are_put_back_also_after_errors():
    F = leafgrad.nn.functional
    before = (F.linear, leafgrad.tanh, leafgrad.stack, leafgrad.nn.Conv2d._fn)
    with pytest.raises(RuntimeError):
        leafgrad.func.vmap(lambda v: F.linear(v, leafgrad.ones(2, 7)))(leafgrad.ones(3, 5))
    assert (F.linear, leafgrad.tanh, leafgrad.stack, leafgrad.nn.Conv2d._fn) == before
    assert not _batched.active()


def test_random_ops_inside_refused_as_torch():
    for T in (torch, leafgrad):
        with pytest.raises(RuntimeError):
            T.func.vmap(lambda v: v + T.randn(3))(T.ones(2, 3))
