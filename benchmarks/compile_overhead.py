"""torch.compile's costs on a digits-sized MLP step (64-128-128-10, batch 32, ReLU,
cross-entropy outside the model, SGD with momentum), eager against compiled, interleaved
in blocks so that load from other processes hits both alike; times are this process's CPU
time (time.process_time), less sensitive to a loaded machine than wall time:

    PYTHONPATH=src python benchmarks/compile_overhead.py [--blocks 15] [--steps 200]

Prints medians and min-max spread of: one eager step, one replayed step, the capturing
call (a fresh compile's first step, forward and backward), and one guard check.
"""
import argparse
import statistics
import time

import leafgrad as torch
from leafgrad._dynamo import eval_frame

nn, F = torch.nn, torch.nn.functional


def _model(sizes=(64, 128, 128, 10)):
    torch.manual_seed(0)
    layers = []
    for i, o in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(i, o), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def _steps(run, model, opt, x, y, n):
    t0 = time.process_time()
    for _ in range(n):
        opt.zero_grad()
        F.cross_entropy(run(x), y).backward()
        opt.step()
    return (time.process_time() - t0) / n * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=15)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--sizes", type=int, nargs="+", default=[64, 128, 128, 10],
                    help="layer widths (e.g. 4 8 8 2 with --batch 1: Python's cost alone)")
    ap.add_argument("--batch", type=int, default=32)
    a = ap.parse_args()
    sizes = tuple(a.sizes)
    x, y = torch.randn(a.batch, sizes[0]), torch.randint(0, sizes[-1], (a.batch,))
    me, mc = _model(sizes), _model(sizes)
    ce = torch.compile(mc)
    oe = torch.optim.SGD(me.parameters(), lr=0.01, momentum=0.9)
    oc = torch.optim.SGD(mc.parameters(), lr=0.01, momentum=0.9)
    _steps(me, me, oe, x, y, 20)
    _steps(ce, mc, oc, x, y, 20)
    eager, comp, capture, guard = [], [], [], []
    for _ in range(a.blocks):
        eager.append(_steps(me, me, oe, x, y, a.steps))
        comp.append(_steps(ce, mc, oc, x, y, a.steps))
        m = _model(sizes)
        fresh = torch.compile(m)
        o = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
        capture.append(_steps(fresh, m, o, x, y, 1))
        t0 = time.process_time()
        for _ in range(a.steps):
            eval_frame.guards((x,), {}, mc)
        guard.append((time.process_time() - t0) / a.steps * 1e6)
    assert ce.forward.replayed == 1, ce.forward.eager_reasons

    def show(name, v, ref=None):
        med = statistics.median(v)
        extra = "" if ref is None else "  (%.2fx eager step)" % (med / statistics.median(ref))
        print("%-28s median %8.1f us  spread %8.1f .. %8.1f%s" % (name, med, min(v), max(v),
                                                                 extra))
    show("eager step", eager)
    show("compiled step (replay)", comp, eager)
    show("capturing step", capture, eager)
    show("guard check", guard)
    ratios = [c / e for c, e in zip(comp, eager)]
    print("replay / eager per block: median %.3f, spread %.3f .. %.3f"
          % (statistics.median(ratios), min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
