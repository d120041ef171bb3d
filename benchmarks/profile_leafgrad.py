#!/usr/bin/env python
"""Profile one workload on leafgrad with cProfile (in this process).

    python benchmarks/profile_leafgrad.py tiny_ops [--size full|quick] [--top 25] [--sort tottime]

cProfile adds overhead to every Python call, so absolute times are inflated
(roughly 2x for tiny_ops); use the proportions, and benchmarks/run.py for
real timings.
"""
import argparse
import cProfile
import os
import pstats
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workload", choices=W.WORKLOAD_NAMES)
    ap.add_argument("--size", default="full", choices=("full", "quick"))
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--sort", default="tottime")
    ap.add_argument("--out", help="also save the raw profile here (for snakeviz etc.)")
    args = ap.parse_args()
    import leafgrad
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


if __name__ == "__main__":
    main()
