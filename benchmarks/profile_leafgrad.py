#!/usr/bin/env python
"""Profile one workload on leafgrad with cProfile (in this process).

    python benchmarks/profile_leafgrad.py tiny_ops [--size full|quick] [--top 25] [--sort tottime]
    python benchmarks/profile_leafgrad.py deep_chain --gc     # cyclic-GC time, no cProfile

cProfile adds overhead to every Python call, so absolute times are inflated
(roughly 2x for tiny_ops); use the proportions, and benchmarks/run.py for
real timings.
"""
import argparse
import cProfile
import gc
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workload", choices=W.WORKLOAD_NAMES)
    ap.add_argument("--size", default="full", choices=("full", "quick"))
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--sort", default="tottime")
    ap.add_argument("--out", help="also save the raw profile here (for snakeviz etc.)")
    ap.add_argument("--gc", action="store_true",
                    help="instead of cProfile: time spent in cyclic garbage collection, per "
                         "generation (gc.callbacks), and the run again with gc disabled")
    args = ap.parse_args()
    import leafgrad
    if args.gc:
        return gc_profile(leafgrad, args)
    clock = W.Clock()
    prof = cProfile.Profile()
    prof.enable()
    metrics = W.WORKLOADS[args.workload](leafgrad, clock, **W.SIZES[args.workload][args.size])
    prof.disable()
    print({k: round(v, 4) for k, v in metrics.items()})
    st = pstats.Stats(prof)
    st.sort_stats(args.sort).print_stats(args.top)
    if args.out:
        prof.dump_stats(args.out)


def gc_profile(leafgrad, args):
    """Collections and seconds spent in the cyclic GC per generation, and the
    workload's metrics with the GC on and off (the difference is what the
    Python objects of the graph cost the collector)."""
    spent = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}
    start = [0.0]

    def cb(phase, info):
        if phase == "start":
            start[0] = time.perf_counter()
        else:
            s = spent[info["generation"]]
            s[0] += 1
            s[1] += time.perf_counter() - start[0]

    size = W.SIZES[args.workload][args.size]
    gc.callbacks.append(cb)
    on = W.WORKLOADS[args.workload](leafgrad, W.Clock(), **size)
    gc.callbacks.remove(cb)
    gc.collect()
    gc.disable()
    off = W.WORKLOADS[args.workload](leafgrad, W.Clock(), **size)
    gc.enable()
    print("gc on :", {k: round(v, 4) for k, v in on.items()})
    print("gc off:", {k: round(v, 4) for k, v in off.items()})
    for g, (n, t) in spent.items():
        print("generation %d: %d collections, %.3f s" % (g, n, t))


if __name__ == "__main__":
    main()
