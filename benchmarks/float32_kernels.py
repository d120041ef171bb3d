"""Float32 elementwise kernels against PyTorch's CPU kernels (issue 23 part 6).

For exp, log, sin, cos, tanh, sigmoid, log1p, expm1, atan and erf, on N random float32
values per input range (uniform small arguments, wide log-uniform ones, and each
function's hard region: large |x| for sin/cos, exp near overflow and underflow,
subnormal results, tanh near 0, ...), counts the elements bit-identical to PyTorch's
eager CPU result and the largest distance in ulps (float32 values counted along the
number line, so subnormals count as ulps too), for

* PyTorch's own other kernels (the yardstick): eager with ``ATEN_CPU_CAPABILITY=default``,
  and with ``--compiled`` the C++ that ``torch.compile`` writes (vectorised, and scalar
  with ``cpp.simdlen=1``), each in its own subprocess;
* leafgrad's candidate kernels: NumPy's float32 loop, float64 rounded once, and for
  sigmoid PyTorch's float32 formula ``1/(1+exp(-x))`` with exp from float64;
* ``leafgrad``: the op as leafgrad now runs it (``leafgrad.<fn>``), to check the choice.

Then times, on N values of the first range, today's kernel, the candidates and leafgrad's
op, interleaved (each repeat runs all of them once, in turn) and reports medians with the
20th/80th percentiles. ``--npy-env "X86_V3"`` recomputes the NumPy candidates in a child
with ``NPY_DISABLE_CPU_FEATURES`` set to that (NumPy's baseline SIMD paths) and reports how
many elements change.

    PYTHONPATH=src python benchmarks/float32_kernels.py [--n 1000000] [--repeats 15]
        [--compiled] [--npy-env "X86_V3"] [--only exp sin]

Needs PyTorch (the reference) in the same environment.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

F32, F64 = np.float32, np.float64
FUNCS = ("exp", "log", "sin", "cos", "tanh", "sigmoid", "log1p", "expm1", "atan", "erf")


def make_inputs(n, seed=12345):
    rng = np.random.default_rng(seed)

    def U(a, b):
        return rng.uniform(a, b, n).astype(F32)

    def LU(a, b, signed=True):      # log-uniform magnitudes, random signs
        v = np.exp(rng.uniform(np.log(a), np.log(b), n))
        if signed:
            v *= rng.choice([-1.0, 1.0], n)
        return v.astype(F32)
    return {
        "exp": {"U(-10,10)": U(-10, 10), "±LU(1e-30,88)": LU(1e-30, 88),
                "overflow U(80,88.8)": U(80, 88.8), "subnormal U(-104,-87)": U(-104, -87)},
        "log": {"U(0,10)": U(0, 10), "LU(1e-45,3e38)": LU(1e-45, 3e38, False),
                "near 1": U(1 - 1e-3, 1 + 1e-3)},
        "sin": {"U(-10,10)": U(-10, 10), "±LU(1e2,1e5)": LU(1e2, 1e5), "±LU(1e5,3e38)": LU(1e5, 3e38)},
        "cos": {"U(-10,10)": U(-10, 10), "±LU(1e2,1e5)": LU(1e2, 1e5), "±LU(1e5,3e38)": LU(1e5, 3e38)},
        "tanh": {"U(-5,5)": U(-5, 5), "near 0 ±LU(1e-45,1e-2)": LU(1e-45, 1e-2), "±LU(5,20)": LU(5, 20)},
        "sigmoid": {"U(-10,10)": U(-10, 10), "±LU(1e-8,100)": LU(1e-8, 100),
                    "subnormal U(-104,-80)": U(-104, -80)},
        "log1p": {"U(-0.99,10)": U(-0.99, 10), "near 0 ±LU(1e-45,1e-2)": LU(1e-45, 1e-2),
                  "LU(1e-3,3e38)": LU(1e-3, 3e38, False)},
        "expm1": {"U(-10,10)": U(-10, 10), "near 0 ±LU(1e-45,1e-2)": LU(1e-45, 1e-2),
                  "overflow U(80,88.8)": U(80, 88.8)},
        "atan": {"U(-10,10)": U(-10, 10), "±LU(1e-45,3e38)": LU(1e-45, 3e38),
                 "near 0 ±LU(1e-45,1e-2)": LU(1e-45, 1e-2)},
        "erf": {"U(-3,3)": U(-3, 3), "near 0 ±LU(1e-45,1e-2)": LU(1e-45, 1e-2), "tails ±LU(2,5)": LU(2, 5)},
    }


# ------------------------------------------------------------------ distances
def _ordinal(a):
    i = a.view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)     # -0.0 and +0.0 both 0


def ulp_distance(a, b):
    """Elementwise distance of two float32 arrays in ulps (0 for two nans, 2**40 for
    a nan against a number)."""
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    u = np.abs(_ordinal(a) - _ordinal(b))
    na, nb = np.isnan(a), np.isnan(b)
    return np.where(na & nb, 0, np.where(na ^ nb, 2 ** 40, u))


# ------------------------------------------------------------------ candidates
def _f64(f):
    def k(x):
        return f(x.astype(F64)).astype(F32)
    return k


_ERF = np.frompyfunc(math.erf, 1, 1)


def _erf_math(x):        # leafgrad's erf before and after: math.erf in float64, rounded once
    return np.asarray(_ERF(x.astype(F64)), dtype=F64).astype(F32)


def _sigmoid32(x):       # leafgrad's sigmoid before: PyTorch's formula, NumPy's float32 exp
    return 1 / (1 + np.exp(-x))


def _sigmoid_exp64(x):   # the same formula in float32, exp from float64 rounded once
    e = np.exp(np.negative(x, dtype=F64)).astype(F32)
    e += F32(1)
    return np.divide(F32(1), e, out=e)


_NP = {"exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
       "log1p": np.log1p, "expm1": np.expm1, "atan": np.arctan}


def candidates(fn):
    """{name: kernel}, today's first."""
    if fn == "erf":
        return {"math.erf f64 (today)": _erf_math}
    if fn == "sigmoid":
        return {"numpy32 (today)": _sigmoid32,
                "float64": _f64(lambda x: 1 / (1 + np.exp(-x))),
                "float32, exp64": _sigmoid_exp64}
    return {"numpy32 (today)": _NP[fn], "float64": _f64(_NP[fn])}


def leafgrad_kernel(fn):
    import leafgrad
    f = getattr(leafgrad, fn)
    return lambda x: f(leafgrad.from_numpy(x)).numpy()


# ------------------------------------------------------------------ children
def _child(kind, src, dst):
    d = np.load(src)
    out = {}
    if kind == "numpy":
        for k in d.files:
            fn, name = k.split("|")[0], k.split("|")[2]
            with np.errstate(all="ignore"):
                out[k] = candidates(fn)[name](d[k])
    else:
        import torch
        if kind == "compiled-scalar":
            torch._inductor.config.cpp.simdlen = 1
        done = {}
        for k in d.files:
            fn = k.split("|")[0]
            g = getattr(torch, fn)
            if kind.startswith("compiled"):
                if fn not in done:
                    torch._dynamo.reset()
                    done[fn] = torch.compile(lambda x, g=g: g(x), dynamic=False)
                g = done[fn]
            out[k] = g(torch.from_numpy(d[k])).numpy()
    np.savez(dst, **out)


def _run_child(kind, arrays, env, tmp):
    src = os.path.join(tmp, "in_%s.npz" % kind)
    dst = os.path.join(tmp, "out_%s.npz" % kind)
    np.savez(src, **arrays)
    subprocess.run([sys.executable, os.path.abspath(__file__), "--child", kind, src, dst],
                   env=dict(os.environ, **env), check=True)
    d = np.load(dst)
    return {k: d[k] for k in d.files}


# ------------------------------------------------------------------ report
def _cell(r, ref):
    u = ulp_distance(r, ref)
    return "%.2f%% / %d" % (100.0 * np.mean(u == 0), int(u.max()))


def counts(inputs, args, tmp):
    flat = {"%s|%s" % (fn, rg): x for fn, d in inputs.items() for rg, x in d.items()}
    eager = _run_child("torch", flat, {}, tmp)
    refs = {"torch `default`": _run_child("torch", flat, {"ATEN_CPU_CAPABILITY": "default"}, tmp)}
    if args.compiled:
        refs["compiled vec"] = _run_child("compiled-vec", flat, {}, tmp)
        refs["compiled scalar"] = _run_child("compiled-scalar", flat, {}, tmp)
    base = None
    if args.npy_env:
        todo = {"%s|%s" % (k, name): x for k, x in flat.items()
                for name in candidates(k.split("|")[0]) if not name.startswith("math")}
        base = _run_child("numpy", todo, {"NPY_DISABLE_CPU_FEATURES": args.npy_env}, tmp)
    cols = list(refs) + ["leafgrad"]
    names = sorted({n for fn in inputs for n in candidates(fn)}, key=lambda n: "(today)" not in n)
    print("Same bits as PyTorch's eager CPU kernel / max ulp distance, %d values a row\n" % args.n)
    print("| function | range | " + " | ".join(cols[:-1]) + " | candidates | leafgrad |")
    print("|---" * (len(cols) + 3) + "|")
    changed = {}
    for fn, d in inputs.items():
        for rg, x in d.items():
            k = "%s|%s" % (fn, rg)
            cells = [_cell(refs[c][k], eager[k]) for c in refs]
            cand = []
            with np.errstate(all="ignore"):
                for name, f in candidates(fn).items():
                    r = f(x)
                    cand.append("%s %s" % (name, _cell(r, eager[k])))
                    if base is not None and ("%s|%s" % (k, name)) in base:
                        changed["%s %s" % (k, name)] = int(np.sum(ulp_distance(r, base[k + "|" + name]) != 0))
                lg = leafgrad_kernel(fn)(x)
            print("| %s | %s | %s | %s | %s |" % (fn, rg, " | ".join(cells), "; ".join(cand),
                                                _cell(lg, eager[k])))
    if base is not None:
        print("\nElements that change with NPY_DISABLE_CPU_FEATURES=%r:" % args.npy_env)
        for k, v in changed.items():
            print("  %-50s %d" % (k, v))


def timings(inputs, args):
    print("\nTimes on %d float32 values (first range), ms: median [p20, p80], %d interleaved "
          "repeats\n" % (args.n, args.repeats))
    print("| function | kernel | median | p20 | p80 | / today |")
    print("|---|---|---|---|---|---|")
    for fn, d in inputs.items():
        x = next(iter(d.values()))
        ks = dict(candidates(fn))
        ks["leafgrad op"] = leafgrad_kernel(fn)
        reps = max(3, args.repeats // 5) if fn == "erf" else args.repeats
        t = {k: [] for k in ks}
        with np.errstate(all="ignore"):
            for _ in range(reps):
                for k, f in ks.items():
                    t0 = time.perf_counter()
                    f(x)
                    t[k].append(time.perf_counter() - t0)
        today = np.median(next(iter(t.values())))
        for k, v in t.items():
            print("| %s | %s | %.2f | %.2f | %.2f | %.2fx |" % (
                fn, k, 1e3 * np.median(v), 1e3 * np.percentile(v, 20), 1e3 * np.percentile(v, 80),
                np.median(v) / today))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=10 ** 6)
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--compiled", action="store_true", help="add torch.compile's C++ kernels")
    p.add_argument("--npy-env", default="", help="NPY_DISABLE_CPU_FEATURES for a NumPy child")
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--no-timings", action="store_true")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return _child(*args.child)
    inputs = make_inputs(args.n)
    if args.only:
        inputs = {k: v for k, v in inputs.items() if k in args.only}
    import torch
    print("PyTorch %s, CPU capability %s; NumPy %s, dispatch %s" % (
        torch.__version__, torch.backends.cpu.get_cpu_capability(), np.__version__,
        [k for k, v in np._core._multiarray_umath.__cpu_features__.items()
         if v and k.startswith(("AVX512", "X86_V"))]))
    with tempfile.TemporaryDirectory() as tmp:
        counts(inputs, args, tmp)
    if not args.no_timings:
        timings(inputs, args)


if __name__ == "__main__":
    main()
