"""Overhead of utils.GradientMonitor recording every step, on the benchmarks'
small MLP (digits_mlp: 64-128-128-10, ReLU, batch 32, cross-entropy, SGD with
momentum). Trains two identical models on the same batches, one with a monitor,
alternating step by step (noise on a shared machine hits both alike), times
every step, and prints the median and 20th-percentile step time of each and
the relative overhead (the aim: under 10%).

    PYTHONPATH=src python benchmarks/monitor_overhead.py [--steps 2000]
"""
import argparse
import os
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")      # one BLAS thread: stable timings on a shared machine

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import leafgrad as torch                                      # noqa: E402
from leafgrad.utils import GradientMonitor                    # noqa: E402
from workloads import _mlp, digits_data                       # noqa: E402


def setup(monitor, hidden=128, track_updates=True):
    torch.manual_seed(0)
    model = _mlp(torch, (64, hidden, hidden, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return model, opt, (GradientMonitor(model, opt, track_updates=track_updates)
                        if monitor else None)


def one_step(model, opt, mon, X, y):
    """One training step; returns its wall time (s)."""
    t0 = time.perf_counter()
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(X), y)
    loss.backward()
    opt.step()
    if mon is not None:
        mon.step(loss)
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2000, help="steps of each model (default 2000)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--block", type=int, default=25,
                    help="steps of one model before switching to the other (default 25); "
                         "1 alternates every step, which keeps both models' arrays "
                         "competing for the cache (a loop trains one model)")
    ap.add_argument("--no-updates", action="store_true",
                    help="monitor gradient norms only (track_updates=False)")
    args = ap.parse_args(argv)
    Xtr, ytr, _, _ = digits_data()
    X, y = torch.from_numpy(Xtr), torch.from_numpy(ytr)
    pairs = [setup(False), setup(True, track_updates=not args.no_updates)]
    times = ([], [])
    b = args.batch
    block = args.block
    for k0 in range(0, args.steps + 50, block):
        for j in ((0, 1) if (k0 // block) % 2 == 0 else (1, 0)):  # alternate blocks
            for k in range(k0, k0 + block):
                i = (k * b) % (len(X) - b)
                t = one_step(*pairs[j], X[i:i + b], y[i:i + b])
                if k >= 50:                            # warm-up steps not counted
                    times[j].append(t)
    q = lambda v, f: sorted(v)[int(f * (len(v) - 1))]
    out = {}
    for f, what in ((0.5, "median"), (0.2, "20th percentile")):
        p, m = q(times[0], f), q(times[1], f)
        out[what] = (m - p) / p
        print("%-16s step without monitor %7.1f us, with monitor %7.1f us: overhead %+.1f%%"
              % (what, p * 1e6, m * 1e6, 100 * (m - p) / p))
    return out

if __name__ == "__main__":
    main()
