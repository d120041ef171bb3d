"""The workloads for HIPS ``autograd`` and ``mygrad`` (NumPy-style APIs).

Each follows the corresponding function in ``workloads.py`` step by step
(same data, sizes, model shapes, initialisation scheme, optimizer and
checks), written the way those libraries are meant to be used: HIPS autograd
differentiates Python functions (``grad`` / ``make_vjp``), mygrad records ops
on ``mygrad.Tensor`` and runs ``.backward()``. Workloads a library cannot do
are missing from its table and show as n/a (mygrad has no higher-order
derivatives, hence no ``hvp``).
"""
import numpy as np

import workloads as W


def _init_mlp(sizes, seed):
    """nn.Linear's default init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), W is out x in."""
    rng = np.random.RandomState(seed)
    params = []
    for i, o in zip(sizes[:-1], sizes[1:]):
        b = 1 / np.sqrt(i)
        params.append([rng.uniform(-b, b, (o, i)).astype(np.float32),
                       rng.uniform(-b, b, (o,)).astype(np.float32)])
    return params


class _SGD:
    """torch.optim.SGD's update on NumPy arrays: buf = m * buf + g; p -= lr * buf."""

    def __init__(self, arrays, lr, momentum=0.0):
        self.arrays, self.lr, self.momentum = arrays, lr, momentum
        self.bufs = [None] * len(arrays)

    def step(self, grads):
        for k, (p, g) in enumerate(zip(self.arrays, grads)):
            if self.momentum:
                if self.bufs[k] is None:
                    self.bufs[k] = np.array(g, dtype=p.dtype)
                else:
                    self.bufs[k] *= self.momentum
                    self.bufs[k] += g
                g = self.bufs[k]
            p -= self.lr * g


# ---------------------------------------------------------------------------
# HIPS autograd
# ---------------------------------------------------------------------------
def _ag():
    import autograd
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp
    return autograd, anp, logsumexp


def _ag_forward(anp, params, x, sigmoid=False):
    n = len(params)
    for k, (Wt, b) in enumerate(params):
        x = anp.dot(x, Wt.T) + b
        if k < n - 1:
            x = anp.maximum(x, 0.0)
    if sigmoid:
        x = 0.5 * (anp.tanh(0.5 * x) + 1.0)          # sigmoid, without overflow
    return x


def _ag_ce(anp, logsumexp):
    def loss(params, x, y):
        logits = _ag_forward(anp, params, x)
        return anp.mean(logsumexp(logits, axis=1) - logits[np.arange(len(y)), y])
    return loss


def _flat(params):
    return [a for pair in params for a in pair]


def ag_tiny_ops(clock, n, reps):
    autograd, anp, _ = _ag()

    def f(xw):
        x, w = xw
        for _ in range(n_cur // 5):
            x = x * w
            x = x + 0.5
            x = anp.exp(x)
            x = anp.log(x)
            x = x - 0.5
        return anp.sum(x)

    def once(n):
        nonlocal n_cur
        n_cur = n
        args = (np.array([0.3], np.float32), np.array([1.0], np.float32))
        with clock("fwd"):
            vjp, ans = autograd.make_vjp(f)(args)
        with clock("bwd"):
            gx, gw = vjp(np.float32(1.0))
            del vjp, ans
        return float(gx[0]), float(gw[0])

    n_cur = n
    once(min(n, 1000))
    clock.reset()
    for _ in range(reps):
        gx, gw = once(n)
    if not abs(gx - 1.0) < 1e-2:
        raise AssertionError("tiny_ops: wrong gradient %r" % gx)
    fwd = clock.median("fwd") / n * 1e6
    bwd = clock.median("bwd") / n * 1e6
    return {"fwd_us_per_op": fwd, "bwd_us_per_op": bwd, "total_us_per_op": fwd + bwd}


def _ag_train(clock, params, loss, batches, steps, lr, momentum):
    autograd, _, _ = _ag()
    g = autograd.grad(loss)
    opt = _SGD(_flat(params), lr, momentum)
    with clock("train"):
        for s in range(steps):
            xb, yb = batches[s % len(batches)]
            opt.step(_flat(g(params, xb, yb)))
    return clock.total("train")


def ag_digits_mlp(clock, epochs, batch, hidden, n_train):
    autograd, anp, logsumexp = _ag()
    Xtr, ytr, Xte, yte = W.digits_data(n_train)
    batches = [(Xtr[p][i:i + batch], ytr[p][i:i + batch])
               for p in W.epoch_orders(len(Xtr), epochs) for i in range(0, len(Xtr), batch)]
    loss = _ag_ce(anp, logsumexp)
    sizes = (64, hidden, hidden, 10)
    _ag_train(clock, _init_mlp(sizes, 1), loss, batches, 5, 0.05, 0.9)
    clock.reset()
    params = _init_mlp(sizes, 0)
    t = _ag_train(clock, params, loss, batches, len(batches), 0.05, 0.9)
    pred = _ag_forward(np, params, Xte).argmax(1)
    return {"s_per_epoch": t / epochs, "test_acc": float((pred == yte).mean())}


def _bce(anp, p, y):
    # nn.BCELoss clamps its logs at -100; clipping p keeps log(0) (a saturated
    # float32 sigmoid) out of both the loss and its gradient here
    p = anp.clip(p, 1e-6, 1 - 1e-6)
    return -anp.mean(y * anp.log(p) + (1 - y) * anp.log(1 - p))


def ag_breast_cancer_bce(clock, steps, batch, hidden):
    autograd, anp, _ = _ag()
    Xtr, ytr, Xte, yte = W.cancer_data()
    batches = [(Xtr[i:i + batch], ytr[i:i + batch]) for i in range(0, len(Xtr), batch)]

    def loss(params, x, y):
        return _bce(anp, _ag_forward(anp, params, x, sigmoid=True), y)

    sizes = (30,) + tuple(hidden) + (1,)
    _ag_train(clock, _init_mlp(sizes, 1), loss, batches, 5, 0.05, 0.9)
    clock.reset()
    params = _init_mlp(sizes, 0)
    t = _ag_train(clock, params, loss, batches, steps, 0.05, 0.9)
    p = _ag_forward(np, params, Xte, sigmoid=True)
    return {"ms_per_step": t / steps * 1e3, "test_acc": float(((p > 0.5) == (yte > 0.5)).mean())}


def ag_blas_mlp(clock, batch, sizes, steps, warmup):
    autograd, anp, logsumexp = _ag()
    X, y = W.blas_data(batch, sizes)
    params = _init_mlp(sizes, 0)
    g = autograd.grad(_ag_ce(anp, logsumexp))
    opt = _SGD(_flat(params), 0.01)

    def step():
        opt.step(_flat(g(params, X, y)))

    return W.time_against_floor(clock, step, batch, sizes, steps, warmup)


def ag_deep_chain(clock, n_small, n_large):
    autograd, anp, _ = _ag()

    def chain(n, name):
        def f(x):
            for _ in range(n // 4):
                x = x + 1.0
                x = x * 2.0
                x = x - 2.0
                x = x * 0.5
            return anp.sum(x)
        with clock(name):
            vjp, ans = autograd.make_vjp(f)(np.ones(1, np.float32))
            g = vjp(np.float32(1.0))
            del vjp, ans
        if g[0] != 1.0:
            raise AssertionError("deep_chain: wrong gradient %r" % g)

    chain(1000, "warmup")
    clock.reset()
    chain(n_small, "small")
    chain(n_large, "large")
    small, large = clock.total("small"), clock.total("large")
    return {"small_s": small, "large_s": large, "growth": large / small}


def ag_hvp(clock, n, reps, warmup):
    autograd, anp, _ = _ag()
    Wn, x, v, expected = W.hvp_problem(n)

    def f(x):
        return anp.sum(anp.tanh(anp.dot(Wn, x)))

    df = autograd.grad(f)
    hvp = autograd.grad(lambda x, v: anp.sum(df(x) * v))
    for _ in range(warmup):
        hvp(x, v)
    for _ in range(reps):
        with clock("hvp"):
            hv = hvp(x, v)
    W.check_hvp(hv, expected)
    return {"ms_per_hvp": clock.median("hvp") * 1e3}


AUTOGRAD = {
    "tiny_ops": ag_tiny_ops,
    "digits_mlp": ag_digits_mlp,
    "breast_cancer_bce": ag_breast_cancer_bce,
    "blas_mlp": ag_blas_mlp,
    "deep_chain": ag_deep_chain,
    "hvp": ag_hvp,
}


# ---------------------------------------------------------------------------
# mygrad
# ---------------------------------------------------------------------------
def _mg_params(sizes, seed):
    import mygrad as mg
    return [[mg.tensor(Wt), mg.tensor(b)] for Wt, b in _init_mlp(sizes, seed)]


def _mg_forward(params, x, sigmoid=False):
    import mygrad as mg
    from mygrad.nnet.activations import relu
    from mygrad.nnet.activations import sigmoid as sig
    n = len(params)
    for k, (Wt, b) in enumerate(params):
        x = mg.matmul(x, Wt.T) + b
        if k < n - 1:
            x = relu(x)
    return sig(x) if sigmoid else x


def _mg_train(clock, params, loss_fn, batches, steps, lr, momentum):
    flat = _flat(params)
    opt = _SGD([p.data for p in flat], lr, momentum)
    with clock("train"):
        for s in range(steps):
            xb, yb = batches[s % len(batches)]
            loss = loss_fn(params, xb, yb)
            loss.backward()
            opt.step([p.grad for p in flat])
    return clock.total("train")


def _mg_ce(params, x, y):
    from mygrad.nnet.losses import softmax_crossentropy
    return softmax_crossentropy(_mg_forward(params, x), y)


def mg_tiny_ops(clock, n, reps):
    import mygrad as mg

    def once(n):
        x0 = mg.tensor(np.array([0.3], np.float32))
        w = mg.tensor(np.array([1.0], np.float32))
        with clock("fwd"):
            x = x0
            for _ in range(n // 5):
                x = x * w
                x = x + 0.5
                x = mg.exp(x)
                x = mg.log(x)
                x = x - 0.5
        loss = x.sum()
        with clock("bwd"):
            loss.backward()
            del x, loss
        return float(x0.grad[0]), float(w.grad[0])

    once(min(n, 1000))
    clock.reset()
    for _ in range(reps):
        gx, gw = once(n)
    if not abs(gx - 1.0) < 1e-2:
        raise AssertionError("tiny_ops: wrong gradient %r" % gx)
    fwd = clock.median("fwd") / n * 1e6
    bwd = clock.median("bwd") / n * 1e6
    return {"fwd_us_per_op": fwd, "bwd_us_per_op": bwd, "total_us_per_op": fwd + bwd}


def mg_digits_mlp(clock, epochs, batch, hidden, n_train):
    Xtr, ytr, Xte, yte = W.digits_data(n_train)
    batches = [(Xtr[p][i:i + batch], ytr[p][i:i + batch])
               for p in W.epoch_orders(len(Xtr), epochs) for i in range(0, len(Xtr), batch)]
    sizes = (64, hidden, hidden, 10)
    _mg_train(clock, _mg_params(sizes, 1), _mg_ce, batches, 5, 0.05, 0.9)
    clock.reset()
    params = _mg_params(sizes, 0)
    t = _mg_train(clock, params, _mg_ce, batches, len(batches), 0.05, 0.9)
    pred = _mg_forward(params, Xte).data.argmax(1)
    return {"s_per_epoch": t / epochs, "test_acc": float((pred == yte).mean())}


def mg_breast_cancer_bce(clock, steps, batch, hidden):
    import mygrad as mg
    Xtr, ytr, Xte, yte = W.cancer_data()
    batches = [(Xtr[i:i + batch], ytr[i:i + batch]) for i in range(0, len(Xtr), batch)]

    def loss(params, x, y):
        return _bce(mg, _mg_forward(params, x, sigmoid=True), y)

    sizes = (30,) + tuple(hidden) + (1,)
    _mg_train(clock, _mg_params(sizes, 1), loss, batches, 5, 0.05, 0.9)
    clock.reset()
    params = _mg_params(sizes, 0)
    t = _mg_train(clock, params, loss, batches, steps, 0.05, 0.9)
    p = _mg_forward(params, Xte, sigmoid=True).data
    return {"ms_per_step": t / steps * 1e3, "test_acc": float(((p > 0.5) == (yte > 0.5)).mean())}


def mg_blas_mlp(clock, batch, sizes, steps, warmup):
    X, y = W.blas_data(batch, sizes)
    params = _mg_params(sizes, 0)
    flat = _flat(params)
    opt = _SGD([p.data for p in flat], 0.01)

    def step():
        loss = _mg_ce(params, X, y)
        loss.backward()
        opt.step([p.grad for p in flat])

    return W.time_against_floor(clock, step, batch, sizes, steps, warmup)


def mg_deep_chain(clock, n_small, n_large):
    import mygrad as mg

    def chain(n, name):
        x0 = mg.tensor(np.ones(1, np.float32))
        with clock(name):
            x = x0
            for _ in range(n // 4):
                x = x + 1.0
                x = x * 2.0
                x = x - 2.0
                x = x * 0.5
            x.sum().backward()
            del x
        if x0.grad[0] != 1.0:
            raise AssertionError("deep_chain: wrong gradient %r" % x0.grad)

    chain(1000, "warmup")
    clock.reset()
    chain(n_small, "small")
    chain(n_large, "large")
    small, large = clock.total("small"), clock.total("large")
    return {"small_s": small, "large_s": large, "growth": large / small}


MYGRAD = {
    "tiny_ops": mg_tiny_ops,
    "digits_mlp": mg_digits_mlp,
    "breast_cancer_bce": mg_breast_cancer_bce,
    "blas_mlp": mg_blas_mlp,
    "deep_chain": mg_deep_chain,
    # hvp: mygrad has no higher-order derivatives
}

ADAPTERS = {"autograd": AUTOGRAD, "mygrad": MYGRAD}
