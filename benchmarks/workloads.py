"""Benchmark workloads, written once against the PyTorch API.

Every workload is a function ``name(torch, clock, **size)``: ``torch`` is the
module under test (``leafgrad`` or real ``torch``), ``clock`` a :class:`Clock`
that times the measured sections (and records how much CPU other processes
used meanwhile), ``size`` one entry of :data:`SIZES`. It returns a dict of
metric values; :data:`METRICS` says what each one is.

HIPS ``autograd`` and ``mygrad`` have a NumPy-style API instead; their
versions of the workloads live in ``adapters.py``.

This module imports neither torch nor leafgrad: the harness runs each
measurement in a fresh process that imports only the framework it measures.
"""
import contextlib
import os
import resource
import statistics
import time

import numpy as np

# ---------------------------------------------------------------------------
# sizes: "full" is the benchmark, "quick" a tiny run for CI and the smoke test
# ---------------------------------------------------------------------------
SIZES = {
    "tiny_ops": {
        "full": dict(n=20_000, reps=5),
        "quick": dict(n=200, reps=1),
    },
    "digits_mlp": {
        "full": dict(epochs=5, batch=32, hidden=128, n_train=None),
        "quick": dict(epochs=1, batch=32, hidden=16, n_train=96),
    },
    "breast_cancer_bce": {
        "full": dict(steps=200, batch=64, hidden=(64, 32)),
        "quick": dict(steps=3, batch=64, hidden=(8, 8)),
    },
    "blas_mlp": {
        "full": dict(batch=512, sizes=(784, 1024, 1024, 10), steps=10, warmup=2),
        "quick": dict(batch=16, sizes=(784, 32, 32, 10), steps=1, warmup=1),
    },
    "deep_chain": {
        "full": dict(n_small=100_000, n_large=1_000_000),
        "quick": dict(n_small=400, n_large=4000),
    },
    "hvp": {
        "full": dict(n=1000, reps=20, warmup=3),
        "quick": dict(n=16, reps=1, warmup=1),
    },
    "conv_digits": {
        "full": dict(steps=200, batch=64, channels=(16, 32)),
        "quick": dict(steps=2, batch=16, channels=(2, 4)),
    },
    "rng": {
        "full": dict(n=1_000_000, reps=5),
        "quick": dict(n=1000, reps=1),
    },
    "optim_step": {
        "full": dict(sizes=(64, 128, 128, 10), steps=300, warmup=20),
        "quick": dict(sizes=(64, 16, 10), steps=5, warmup=1),
    },
}

# Workloads from the issue that cannot run yet, with the reason.
SKIPPED = {}

# metric key -> (label, kind). kind: "time" / "mem" (lower is better, ratio
# leafgrad / torch is shown), "acc" (higher is better, no ratio), "growth"
# (a ratio of two times of one framework, shown as is).
METRICS = {
    "tiny_ops": [
        ("fwd_us_per_op", "forward µs/op", "time"),
        ("bwd_us_per_op", "backward µs/op", "time"),
        ("total_us_per_op", "fwd+bwd µs/op", "time"),
    ],
    "digits_mlp": [
        ("s_per_epoch", "s/epoch", "time"),
        ("test_acc", "test accuracy", "acc"),
    ],
    "breast_cancer_bce": [
        ("ms_per_step", "ms/step", "time"),
        ("test_acc", "test accuracy", "acc"),
    ],
    "blas_mlp": [
        ("ms_per_step", "ms/step", "time"),
        ("floor_ms", "bare NumPy matmuls ms/step", "time"),
        ("x_floor", "step / matmul floor", "growth"),
        ("peak_rss_mib", "peak RSS MiB", "mem"),
        ("rss_growth_mib", "RSS growth in training MiB", "mem"),
    ],
    "deep_chain": [
        ("small_s", "100k ops fwd+bwd s", "time"),
        ("large_s", "1M ops fwd+bwd s", "time"),
        ("growth", "1M / 100k time", "growth"),
        ("small_fwd_s", "100k ops forward s", "time"),
        ("bytes_per_node", "graph memory B/node", "mem"),
    ],
    "hvp": [
        ("ms_per_hvp", "ms/HVP", "time"),
    ],
    "conv_digits": [
        ("ms_per_step", "ms/step", "time"),
        ("test_acc", "test accuracy", "acc"),
    ],
    "rng": [
        ("randn_ms", "randn(n) float32 ms", "time"),
        ("rand_ms", "rand(n) float32 ms", "time"),
        ("numpy_normal_ms", "NumPy default_rng standard_normal ms", "time"),
        ("x_numpy", "randn / NumPy normal", "growth"),
    ],
    "optim_step": [
        ("sgd_us", "SGD momentum step µs (loop)", "time"),
        ("sgd_foreach_us", "SGD momentum step µs (foreach=True)", "time"),
        ("adam_us", "Adam step µs (loop)", "time"),
        ("adam_foreach_us", "Adam step µs (foreach=True)", "time"),
        ("adamw_fused_us", "AdamW step µs (fused=True)", "time"),
    ],
}

WORKLOAD_NAMES = list(SIZES)


class compiling:
    """``torch`` (leafgrad) as the workloads see it, except that every ``nn.Sequential``
    they build comes back wrapped in ``torch.compile`` (the "leafgrad (compiled)" column:
    the models' forward and backward replayed, the loss and optimizer eager)."""

    def __init__(self, torch):
        self._torch = torch
        self.nn = _CompilingNN(torch)

    def __getattr__(self, name):
        return getattr(self._torch, name)


class _CompilingNN:
    def __init__(self, torch):
        self._torch = torch

    def Sequential(self, *layers):
        return self._torch.compile(self._torch.nn.Sequential(*layers))

    def __getattr__(self, name):
        return getattr(self._torch.nn, name)


# ---------------------------------------------------------------------------
# the clock: wall time per section, plus other processes' CPU use
# ---------------------------------------------------------------------------
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _busy_seconds():
    """CPU seconds all processes on the machine have been busy (from /proc/stat),
    or None where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            v = f.readline().split()
    except OSError:
        return None
    # cpu user nice system idle iowait irq softirq steal ...
    return sum(int(v[i]) for i in (1, 2, 3, 6, 7, 8)) / _TICK


class Clock:
    """Times named sections; ``with clock("fwd"): ...`` appends one duration.

    Around every section it also reads the machine's busy CPU time
    (/proc/stat) and this process's CPU time (all threads); the difference is
    what other processes used. :meth:`noise` returns it as cores busy on
    average over the timed sections (0.0 on an idle machine; /proc/stat
    counts in 10 ms ticks, so short sections are imprecise).
    """

    def __init__(self):
        self.times = {}
        self.wall = 0.0
        self.own = 0.0
        self.busy = 0.0
        self.have_proc = _busy_seconds() is not None

    @contextlib.contextmanager
    def __call__(self, name):
        b0 = _busy_seconds() if self.have_proc else 0.0
        c0 = time.process_time()
        t0 = time.perf_counter()
        try:
            yield
        finally:
            t1 = time.perf_counter()
            c1 = time.process_time()
            b1 = _busy_seconds() if self.have_proc else 0.0
            self.times.setdefault(name, []).append(t1 - t0)
            self.wall += t1 - t0
            self.own += c1 - c0
            self.busy += b1 - b0

    def reset(self):
        """Forget everything timed so far (after a warm-up)."""
        self.__init__()

    def median(self, name):
        return statistics.median(self.times[name])

    def total(self, name):
        return sum(self.times[name])

    MIN_WINDOW = 0.3     # seconds: below this, 10 ms ticks make the estimate meaningless

    def noise(self):
        """Average number of cores other processes kept busy while timing
        (None when the timed sections were too short to tell)."""
        if not self.have_proc or self.wall < self.MIN_WINDOW:
            return None
        return max(0.0, (self.busy - self.own) / self.wall)

    def own_cores(self):
        return self.own / self.wall if self.wall > 0 else None


def max_rss_mib():
    """Peak resident set size of this process so far (MiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def current_rss_mib():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return max_rss_mib()


# ---------------------------------------------------------------------------
# data (NumPy; identical for every framework)
# ---------------------------------------------------------------------------
def digits_data(n_train=None):
    """sklearn digits scaled to [0, 1]: 1437 train / 360 test rows (float32, int64)."""
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)
    y = y.astype(np.int64)
    perm = np.random.RandomState(0).permutation(len(X))
    X, y = X[perm], y[perm]
    Xte, yte, Xtr, ytr = X[:360], y[:360], X[360:], y[360:]
    if n_train is not None:
        Xtr, ytr = Xtr[:n_train], ytr[:n_train]
    return Xtr, ytr, Xte, yte


def cancer_data():
    """sklearn breast cancer, standardized with the train statistics:
    455 train / 114 test rows; targets float32 of shape (n, 1)."""
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True)
    perm = np.random.RandomState(0).permutation(len(X))
    X, y = X[perm], y[perm]
    Xte, yte, Xtr, ytr = X[:114], y[:114], X[114:], y[114:]
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Xtr, Xte = (Xtr - mu) / sd, (Xte - mu) / sd
    f = np.float32
    return (Xtr.astype(f), ytr.astype(f).reshape(-1, 1), Xte.astype(f), yte.astype(f).reshape(-1, 1))


def epoch_orders(n, epochs, seed=1):
    rng = np.random.RandomState(seed)
    return [rng.permutation(n) for _ in range(epochs)]


def blas_data(batch, sizes):
    rng = np.random.RandomState(0)
    X = rng.randn(batch, sizes[0]).astype(np.float32)
    y = rng.randint(0, sizes[-1], batch).astype(np.int64)
    return X, y


def matmul_floor(batch, sizes):
    """The bare NumPy matrix products of one MLP training step, in nn.Linear's
    layout (W is out x in): forward x @ W.T per layer; backward g.T @ h for
    every weight and g @ W for every layer but the first. Returns a function
    that runs them once."""
    rng = np.random.RandomState(0)
    f = np.float32
    Ws = [(rng.randn(o, i) / np.sqrt(i)).astype(f) for i, o in zip(sizes[:-1], sizes[1:])]
    x = rng.randn(batch, sizes[0]).astype(f)
    g_out = [rng.randn(batch, o).astype(f) for o in sizes[1:]]

    assert all(a.dtype == f for a in Ws + g_out + [x])

    def one():
        hs = [x]
        for W in Ws:
            hs.append(hs[-1] @ W.T)
        for k in range(len(Ws) - 1, -1, -1):
            g = g_out[k]
            _ = g.T @ hs[k]                  # dW
            if k > 0:
                _ = g @ Ws[k]                # d input
    return one


def time_against_floor(clock, step, batch, sizes, steps, warmup):
    """Time ``step()`` and the bare matmuls of one step alternately (so both
    see the same machine), after ``warmup`` steps. Returns the blas_mlp
    metrics except the loss; the peak RSS is read before the floor runs."""
    rss0 = current_rss_mib()
    for _ in range(warmup):
        step()
    peak = max_rss_mib()
    floor = matmul_floor(batch, sizes)
    floor()
    for _ in range(steps):
        with clock("step"):
            step()
        with clock("floor"):
            floor()
    ms, fl = clock.median("step") * 1e3, clock.median("floor") * 1e3
    return {"ms_per_step": ms, "floor_ms": fl, "x_floor": ms / fl, "peak_rss_mib": peak,
            "rss_growth_mib": max(0.0, peak - rss0)}   # peak is in coarser units than rss0


# ---------------------------------------------------------------------------
# the workloads (PyTorch API; `torch` is leafgrad or torch)
# ---------------------------------------------------------------------------
def _mlp(torch, sizes, last=None):
    nn = torch.nn
    layers = []
    for k, (i, o) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(i, o))
        if k < len(sizes) - 2:
            layers.append(nn.ReLU())
    if last is not None:
        layers.append(last)
    return nn.Sequential(*layers)


def tiny_ops(torch, clock, n, reps):
    """A chain of ``n`` elementwise ops on one-element float32 tensors that
    require grad (cycle: x*w, +0.5, exp, log, -0.5), then backward. Measures
    per-op overhead: µs per op, forward and backward (incl. freeing the graph)
    separately."""
    def once(n):
        x0 = torch.tensor([0.3], requires_grad=True)
        w = torch.tensor([1.0], requires_grad=True)
        with clock("fwd"):
            x = x0
            for _ in range(n // 5):
                x = x * w
                x = x + 0.5
                x = torch.exp(x)
                x = torch.log(x)
                x = x - 0.5
        loss = x.sum()
        with clock("bwd"):
            loss.backward()
            del x, loss
        return x0.grad.item(), w.grad.item()

    once(min(n, 1000))
    clock.reset()
    for _ in range(reps):
        gx, gw = once(n)
    if not (abs(gx - 1.0) < 1e-2 and abs(gw - 0.3 * (n // 5)) < 0.05 * 0.3 * (n // 5)):
        raise AssertionError("tiny_ops: wrong gradients %r %r" % (gx, gw))
    fwd = clock.median("fwd") / n * 1e6
    bwd = clock.median("bwd") / n * 1e6
    return {"fwd_us_per_op": fwd, "bwd_us_per_op": bwd, "total_us_per_op": fwd + bwd}


def digits_mlp(torch, clock, epochs, batch, hidden, n_train):
    """sklearn digits, MLP 64-h-h-10 with ReLU, cross-entropy, SGD(lr=0.05,
    momentum=0.9), minibatches sliced from per-epoch shuffled tensors."""
    F = torch.nn.functional
    Xtr, ytr, Xte, yte = digits_data(n_train)
    data = [(torch.from_numpy(Xtr[p]), torch.from_numpy(ytr[p]))
            for p in epoch_orders(len(Xtr), epochs)]

    def train(model, opt, data, max_steps=None):
        steps = 0
        for X, y in data:
            for i in range(0, len(X), batch):
                opt.zero_grad()
                loss = F.cross_entropy(model(X[i:i + batch]), y[i:i + batch])
                loss.backward()
                opt.step()
                steps += 1
                if max_steps is not None and steps >= max_steps:
                    return loss
        return loss

    torch.manual_seed(1)                      # warm-up on a throwaway model
    m = _mlp(torch, (64, hidden, hidden, 10))
    train(m, torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9), data, max_steps=5)

    torch.manual_seed(0)
    model = _mlp(torch, (64, hidden, hidden, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with clock("train"):
        loss = train(model, opt, data)
    with torch.no_grad():
        pred = model(torch.from_numpy(Xte)).argmax(1).numpy()
    return {"s_per_epoch": clock.total("train") / epochs, "test_acc": float((pred == yte).mean()),
            "final_loss": float(loss.item())}


def breast_cancer_bce(torch, clock, steps, batch, hidden):
    """sklearn breast cancer, MLP 30-h1-h2-1 with ReLU and a Sigmoid output,
    nn.BCELoss, SGD(lr=0.05, momentum=0.9), minibatches of ``batch`` cycling
    over the shuffled training set."""
    nn = torch.nn
    Xtr, ytr, Xte, yte = cancer_data()
    batches = [(torch.from_numpy(Xtr[i:i + batch]), torch.from_numpy(ytr[i:i + batch]))
               for i in range(0, len(Xtr), batch)]
    loss_fn = nn.BCELoss()

    def run(model, opt, steps):
        for s in range(steps):
            xb, yb = batches[s % len(batches)]
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
        return loss

    sizes = (30,) + tuple(hidden) + (1,)
    torch.manual_seed(1)
    m = _mlp(torch, sizes, nn.Sigmoid())
    run(m, torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9), 5)

    torch.manual_seed(0)
    model = _mlp(torch, sizes, nn.Sigmoid())
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with clock("train"):
        loss = run(model, opt, steps)
    with torch.no_grad():
        p = model(torch.from_numpy(Xte)).numpy()
    return {"ms_per_step": clock.total("train") / steps * 1e3,
            "test_acc": float(((p > 0.5) == (yte > 0.5)).mean()), "final_loss": float(loss.item())}


def blas_mlp(torch, clock, batch, sizes, steps, warmup):
    """MLP 784-1024-1024-10 (float32, ReLU), batch 512, cross-entropy, plain
    SGD: ms per training step, against the bare NumPy matmuls of one step
    (timed alternately with the steps, in the same process), and the
    process's peak RSS (read before the floor's own arrays exist: the floor's
    arrays are about the size of one step's activations)."""
    F = torch.nn.functional
    Xn, yn = blas_data(batch, sizes)
    X, y = torch.from_numpy(Xn), torch.from_numpy(yn)
    torch.manual_seed(0)
    model = _mlp(torch, sizes)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(X), y)
        loss.backward()
        opt.step()
        return loss

    out = time_against_floor(clock, step, batch, sizes, steps, warmup)
    out["final_loss"] = float(step().item())
    return out


def deep_chain(torch, clock, n_small, n_large):
    """A chain of n scalar-tensor ops on a one-element tensor (cycle: +1, *2,
    -2, *0.5: value and gradient stay exactly 1), forward + backward + freeing
    the graph, for n = 100k and 1M. Growth 1M / 100k should be ~10 (linear).
    Also: the 100k forward alone, and the graph's memory per node (resident
    memory grown during the 100k forward, over n)."""
    mem = {}

    def chain(n, name):
        x0 = torch.ones(1, requires_grad=True)
        rss0 = current_rss_mib()
        with clock(name):
            with clock(name + "_fwd"):
                x = x0
                for _ in range(n // 4):
                    x = x + 1.0
                    x = x * 2.0
                    x = x - 2.0
                    x = x * 0.5
            mem[name] = (current_rss_mib() - rss0) * 2**20 / n
            x.sum().backward()
            del x
        if x0.grad.item() != 1.0:
            raise AssertionError("deep_chain: wrong gradient %r" % x0.grad.item())

    chain(1000, "warmup")
    clock.reset()
    chain(n_small, "small")
    chain(n_large, "large")
    small, large = clock.total("small"), clock.total("large")
    return {"small_s": small, "large_s": large, "growth": large / small,
            "small_fwd_s": clock.total("small_fwd"), "bytes_per_node": mem["small"]}


def hvp_problem(n):
    rng = np.random.RandomState(0)
    W = (rng.randn(n, n) / np.sqrt(n)).astype(np.float32)
    x = rng.randn(n).astype(np.float32)
    v = rng.randn(n).astype(np.float32)
    t = np.tanh(W.astype(np.float64) @ x)
    expected = W.T.astype(np.float64) @ (-2 * t * (1 - t * t) * (W.astype(np.float64) @ v))
    return W, x, v, expected


def check_hvp(hv, expected):
    hv = np.asarray(hv, dtype=np.float64)
    err = np.abs(hv - expected).max() / (np.abs(expected).max() + 1e-12)
    if not err < 1e-3:
        raise AssertionError("hvp: wrong result (relative error %.2g)" % err)


def hvp(torch, clock, n, reps, warmup):
    """Hessian-vector product of f(x) = sum(tanh(W @ x)), W n x n float32, by
    double backward (autograd.grad with create_graph=True, then grad of
    <grad, v>): ms per HVP, checked against the closed form."""
    Wn, xn, vn, expected = hvp_problem(n)
    W, v = torch.from_numpy(Wn), torch.from_numpy(vn)
    x = torch.from_numpy(xn).requires_grad_()

    def one():
        y = torch.tanh(W @ x).sum()
        g, = torch.autograd.grad(y, x, create_graph=True)
        hv, = torch.autograd.grad((g * v).sum(), x)
        return hv

    for _ in range(warmup):
        one()
    for _ in range(reps):
        with clock("hvp"):
            hv = one()
    check_hvp(hv.detach().numpy(), expected)
    return {"ms_per_hvp": clock.median("hvp") * 1e3}


def _cnn(torch, c1, c2):
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, c1, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(c2 * 2 * 2, 10))


def conv_digits(torch, clock, steps, batch, channels):
    """sklearn digits as 1x8x8 images, CNN Conv2d(1, 16, 3, padding=1)-ReLU-MaxPool2d(2)-
    Conv2d(16, 32, 3, padding=1)-ReLU-MaxPool2d(2)-Flatten-Linear(128, 10), cross-entropy,
    SGD(lr=0.05, momentum=0.9), minibatches of ``batch`` cycling over the shuffled
    training set (full batches only): ms per training step, test accuracy."""
    F = torch.nn.functional
    Xtr, ytr, Xte, yte = digits_data()
    (order,) = epoch_orders(len(Xtr), 1)
    Xtr, ytr = Xtr[order].reshape(-1, 1, 8, 8), ytr[order]
    batches = [(torch.from_numpy(Xtr[i:i + batch]), torch.from_numpy(ytr[i:i + batch]))
               for i in range(0, len(Xtr) - batch + 1, batch)]

    def run(model, opt, steps):
        for s in range(steps):
            xb, yb = batches[s % len(batches)]
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
        return loss

    torch.manual_seed(1)                      # warm-up on a throwaway model
    m = _cnn(torch, *channels)
    run(m, torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9), 5)

    torch.manual_seed(0)
    model = _cnn(torch, *channels)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    with clock("train"):
        loss = run(model, opt, steps)
    with torch.no_grad():
        pred = model(torch.from_numpy(Xte.reshape(-1, 1, 8, 8))).argmax(1).numpy()
    return {"ms_per_step": clock.total("train") / steps * 1e3,
            "test_acc": float((pred == yte).mean()), "final_loss": float(loss.item())}


def rng(torch, clock, n, reps):
    """Drawing n float32 normals and uniforms from the seeded default generator (PyTorch's
    stream in leafgrad), against NumPy's own normal generator (issue 9: <= 2x NumPy)."""
    torch.manual_seed(0)
    gen = np.random.default_rng(0)
    torch.randn(16)
    for _ in range(reps):
        with clock("randn"):
            torch.randn(n)
        with clock("rand"):
            torch.rand(n)
        with clock("numpy"):
            gen.standard_normal(n, dtype=np.float32)
    ms = {k: clock.median(k) * 1e3 for k in ("randn", "rand", "numpy")}
    return {"randn_ms": ms["randn"], "rand_ms": ms["rand"], "numpy_normal_ms": ms["numpy"],
            "x_numpy": ms["randn"] / ms["numpy"]}


def optim_step(torch, clock, sizes, steps, warmup):
    """``optimizer.step()`` alone on a digits-sized MLP (64-128-128-10: 6 parameters) with
    fixed gradients, for SGD(momentum 0.9) and Adam with the per-parameter loop and with
    ``foreach=True``, and AdamW with ``fused=True``: the median of ``steps`` timed steps,
    the configurations interleaved step by step."""
    torch.manual_seed(0)
    configs = {"sgd_us": (torch.optim.SGD, dict(lr=1e-3, momentum=0.9)),
               "sgd_foreach_us": (torch.optim.SGD, dict(lr=1e-3, momentum=0.9, foreach=True)),
               "adam_us": (torch.optim.Adam, dict(lr=1e-3)),
               "adam_foreach_us": (torch.optim.Adam, dict(lr=1e-3, foreach=True)),
               "adamw_fused_us": (torch.optim.AdamW, dict(lr=1e-3, fused=True))}
    opts = {}
    for name, (cls, kw) in configs.items():
        model = _mlp(torch, sizes)
        for p in model.parameters():
            p.grad = torch.randn(p.shape) * 1e-2
        opts[name] = cls(model.parameters(), **kw)
    for _ in range(warmup):
        for opt in opts.values():
            opt.step()
    clock.reset()
    for _ in range(steps):
        for name, opt in opts.items():
            with clock(name):
                opt.step()
    return {name: clock.median(name) * 1e6 for name in opts}


WORKLOADS = {
    "tiny_ops": tiny_ops,
    "digits_mlp": digits_mlp,
    "breast_cancer_bce": breast_cancer_bce,
    "blas_mlp": blas_mlp,
    "deep_chain": deep_chain,
    "hvp": hvp,
    "conv_digits": conv_digits,
    "rng": rng,
    "optim_step": optim_step,
}

# the model workloads (char_lstm, embed_mlp, attention, rng) live in their own file
import workloads_models as _models  # noqa: E402

SIZES.update(_models.SIZES)
METRICS.update(_models.METRICS)
WORKLOADS.update(_models.WORKLOADS)
WORKLOAD_NAMES = list(SIZES)
