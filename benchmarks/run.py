#!/usr/bin/env python
"""Run the benchmarks: leafgrad side by side with PyTorch (and HIPS autograd
and mygrad when they are installed).

    python benchmarks/run.py [--quick] [--only NAME ...] [--repeats N]

Every measurement runs in a fresh subprocess that imports only the framework
it measures, limited to ``--threads`` BLAS/OpenMP threads (default 2).
Frameworks are interleaved (the order rotates every repeat), each workload is
repeated, and the table shows medians. Each child also reports how much CPU
other processes used while it was timing (from /proc/stat); a measurement
during which others kept more than ``--noise-limit`` cores busy is run again
(up to ``--max-reruns`` times) and the quietest attempt is kept.

Results: a Markdown table on stdout and in ``bench-results/latest.md``, the
raw data in ``bench-results/latest.json``. See docs/benchmarks.md.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import workloads as W  # noqa: E402

FRAMEWORKS = ["leafgrad", "leafgrad-compiled", "torch", "autograd", "mygrad"]
# "leafgrad-compiled": the same workloads with every nn.Sequential they build wrapped in
# torch.compile (the table's "leafgrad (compiled)" column)
REFERENCE = ("autograd", "mygrad")
MARK = "BENCHJSON "
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "BLIS_NUM_THREADS")


# ---------------------------------------------------------------------------
# child: one measurement
# ---------------------------------------------------------------------------
def _blas_info(fw, mod):
    info = {}
    try:
        from threadpoolctl import threadpool_info
        info["threadpools"] = [
            "%s %s (%s threads)" % (p.get("internal_api"), p.get("version") or "", p.get("num_threads"))
            for p in threadpool_info()]
    except ImportError:
        info["threadpools"] = ["threadpoolctl not installed"]
    if fw == "torch":
        info["torch_threads"] = mod.get_num_threads()
        cfg = mod.__config__.show()
        blas = [s.split("=", 1)[1] for s in cfg.replace(",", " ").split() if s.startswith("BLAS_INFO=")]
        info["torch_blas"] = blas[0] if blas else "?"
    return info


def child_main(name, fw, size, threads):
    """Run one workload for one framework; print its result as one JSON line."""
    out = {"workload": name, "framework": fw, "size": size}
    try:
        limiter = None
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            threadpool_limits = None
        if fw in ("leafgrad", "leafgrad-compiled", "torch"):
            if fw == "leafgrad":
                import leafgrad as mod
            elif fw == "leafgrad-compiled":
                import leafgrad
                mod = W.compiling(leafgrad)
            else:
                import torch as mod
                mod.set_num_threads(threads)
            fn = W.WORKLOADS[name]
            call = lambda clock: fn(mod, clock, **W.SIZES[name][size])  # noqa: E731
            out["version"] = mod.__version__
            out["module_file"] = mod.__file__
        else:
            import adapters
            mod = __import__(fw)
            fns = adapters.ADAPTERS[fw]
            if name not in fns:
                out["na"] = True
                print(MARK + json.dumps(out))
                return
            call = lambda clock: fns[name](clock, **W.SIZES[name][size])  # noqa: E731
            try:
                from importlib.metadata import version
                out["version"] = version(fw)
            except Exception:
                out["version"] = getattr(mod, "__version__", "?")
        if threadpool_limits is not None:
            limiter = threadpool_limits(threads)
        clock = W.Clock()
        t0 = time.perf_counter()
        out["metrics"] = call(clock)
        out["child_wall_s"] = time.perf_counter() - t0
        out["noise_cores"] = clock.noise()
        out["own_cores"] = clock.own_cores()
        out["timed_s"] = clock.wall
        out["blas"] = _blas_info(fw, mod)
        if limiter is not None:
            limiter.restore_original_limits()
    except Exception as e:  # reported in the table, never fatal
        out["error"] = "%s: %s" % (type(e).__name__, e)
        out["traceback"] = traceback.format_exc()
    print(MARK + json.dumps(out))


# ---------------------------------------------------------------------------
# parent
# ---------------------------------------------------------------------------
def available(fw):
    if fw in ("leafgrad", "leafgrad-compiled"):
        return True
    import importlib.util
    try:
        return importlib.util.find_spec(fw) is not None
    except (ImportError, ValueError):
        return False


def snapshot(rev):
    """Export ``src/`` at git revision ``rev`` into a temporary folder (the
    working tree may be mid-edit by others); returns the path of its src/."""
    import tempfile
    d = tempfile.mkdtemp(prefix="leafgrad-bench-")
    archive = subprocess.run(["git", "-C", ROOT, "archive", "--format=tar", rev, "src"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", d], input=archive, check=True)
    return os.path.join(d, "src")


def source_label(rev):
    def git(*a):
        r = subprocess.run(["git", "-C", ROOT] + list(a), capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else "?"
    if rev:
        return "leafgrad from git %s (%s)" % (rev, git("rev-parse", "--short", rev))
    dirty = git("status", "--porcelain", "--", "src")
    return "leafgrad from the working tree at %s%s" % (
        git("rev-parse", "--short", "HEAD"), " + uncommitted changes in src/" if dirty else "")


SRC_OVERRIDE = [None]


def run_child(name, fw, size, threads, timeout):
    env = dict(os.environ)
    if fw in ("leafgrad", "leafgrad-compiled") and SRC_OVERRIDE[0]:
        env["PYTHONPATH"] = SRC_OVERRIDE[0] + os.pathsep + env.get("PYTHONPATH", "")
    for v in THREAD_VARS:
        env[v] = str(threads)
    env["PYTHONHASHSEED"] = "0"
    env.pop("PYTHONWARNINGS", None)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, fw, size, str(threads)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"workload": name, "framework": fw, "error": "timeout after %ds" % timeout}
    for line in reversed(p.stdout.splitlines()):
        if line.startswith(MARK):
            res = json.loads(line[len(MARK):])
            res["process_s"] = time.perf_counter() - t0
            return res
    return {"workload": name, "framework": fw,
            "error": "child failed (rc %s): %s" % (p.returncode, (p.stderr or p.stdout)[-2000:])}


def measure(name, fw, args):
    """One accepted measurement: rerun while others were busy, keep the quietest."""
    attempts = []
    for attempt in range(1 + args.max_reruns):
        res = run_child(name, fw, args.size, args.threads, args.timeout)
        attempts.append(res)
        if "error" in res or res.get("na"):
            break
        nz = res.get("noise_cores")
        if nz is None or nz <= args.noise_limit or attempt == args.max_reruns:
            break
        print("    %s/%s noisy (others used %.2f cores), rerunning" % (name, fw, nz), flush=True)
    ok = [a for a in attempts if "metrics" in a]
    best = min(ok, key=lambda a: a.get("noise_cores") or 0.0) if ok else attempts[-1]
    best["reruns"] = len(attempts) - 1
    best["noisy"] = bool(ok) and (best.get("noise_cores") or 0.0) > args.noise_limit
    return best


def _fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, str):
        return v
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1000:
        return "%.0f" % v
    if a >= 100:
        return "%.1f" % v
    if a >= 10:
        return "%.2f" % v
    if a >= 1:
        return "%.3f" % v
    return "%.3g" % v


def summarize(records, names, frameworks):
    """Medians per (workload, framework, metric) plus noise per workload."""
    summary = {}
    for name in names:
        s = summary[name] = {"frameworks": {}, "noise": None, "spread": {}}
        noise = []
        for fw in frameworks:
            recs = [r for r in records if r["workload"] == name and r["framework"] == fw]
            good = [r for r in recs if "metrics" in r]
            quiet = [r for r in good if not r.get("noisy")]
            entry = {"n": len(good), "reruns": sum(r.get("reruns", 0) for r in recs),
                     "noisy": sum(1 for r in good if r.get("noisy"))}
            if quiet and len(quiet) < len(good):
                # medians over the quiet measurements only; the noisy ones stay in the JSON
                entry["noisy_excluded"] = len(good) - len(quiet)
                good = quiet
            if any(r.get("na") for r in recs):
                entry["na"] = True
            errs = [r["error"] for r in recs if "error" in r]
            if errs:
                entry["error"] = errs[0]
            if good:
                entry["median"] = {k: statistics.median(r["metrics"][k] for r in good)
                                   for k in good[0]["metrics"]}
                entry["values"] = {k: [r["metrics"][k] for r in good] for k in good[0]["metrics"]}
                entry["blas"] = good[0].get("blas")
                entry["version"] = good[0].get("version")
                noise += [r["noise_cores"] for r in good if r.get("noise_cores") is not None]
            s["frameworks"][fw] = entry
        s["noise"] = statistics.median(noise) if noise else None
        for key, _, kind in W.METRICS[name]:
            spreads = []
            for fw in ("leafgrad", "torch"):
                vals = s["frameworks"].get(fw, {}).get("values", {}).get(key)
                if vals and len(vals) > 1 and statistics.median(vals):
                    spreads.append((max(vals) - min(vals)) / abs(statistics.median(vals)))
            s["spread"][key] = max(spreads) if spreads else None
    return summary


def _cell(entry, key):
    if entry is None:
        return "—"
    if entry.get("na"):
        return "n/a"
    if "median" in entry and key in entry["median"]:
        return _fmt(entry["median"][key])
    if "error" in entry:
        return "error"
    return "—"


def render(summary, names, frameworks, args, machine):
    lines = []
    lines.append("# leafgrad benchmarks (%s size)" % args.size)
    lines.append("")
    lines.append("- date: %s; machine: %s, %s CPUs; load average before/after: %s / %s"
                 % (machine["date"], machine["cpu"], machine["ncpu"], machine["load_before"],
                    machine.get("load_after", "?")))
    lines.append("- threads per framework: %d; repeats: %d (reference libraries: %d); "
                 "noise limit %.2f cores, up to %d reruns"
                 % (args.threads, args.repeats, args.ref_repeats, args.noise_limit, args.max_reruns))
    lines.append("- python %s, numpy %s; %s" % (machine["python"], machine["numpy"],
                                                machine.get("leafgrad_source", "")))
    lines.append("")
    lines.append("| workload | metric | leafgrad | leafgrad (compiled) | torch | ratio | "
                 "compiled ratio | autograd | mygrad | noise |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        s = summary[name]
        fws = s["frameworks"]
        for key, label, kind in W.METRICS[name]:
            lg, th = fws.get("leafgrad"), fws.get("torch")
            lc = fws.get("leafgrad-compiled")
            ratio = cratio = "—"
            if kind in ("time", "mem") and lg and th and "median" in lg and "median" in th:
                ratio = "%.2fx" % (lg["median"][key] / th["median"][key])
            if kind in ("time", "mem") and lc and th and "median" in lc and "median" in th \
                    and key in lc["median"]:
                cratio = "%.2fx" % (lc["median"][key] / th["median"][key])
            noise = []
            if s["noise"] is not None:
                noise.append("load %.2f" % s["noise"])
            if s["spread"].get(key) is not None:
                noise.append("±%.0f%%" % (100 * s["spread"][key] / 2))
            reruns = sum(e.get("reruns", 0) for e in fws.values())
            if reruns and key == W.METRICS[name][0][0]:
                noise.append("%d reruns" % reruns)
            excl = sum(e.get("noisy_excluded", 0) for e in fws.values())
            noisy = sum(e.get("noisy", 0) for e in fws.values()) - excl
            if excl and key == W.METRICS[name][0][0]:
                noise.append("%d noisy excluded" % excl)
            if noisy and key == W.METRICS[name][0][0]:
                noise.append("%d noisy used" % noisy)
            cells = [name, label, _cell(lg, key),
                     _cell(lc, key) if "leafgrad-compiled" in frameworks else "—",
                     _cell(th, key), ratio, cratio,
                     _cell(fws.get("autograd"), key) if "autograd" in frameworks else "—",
                     _cell(fws.get("mygrad"), key) if "mygrad" in frameworks else "—",
                     ", ".join(noise) or "—"]
            lines.append("| " + " | ".join(cells) + " |")
    for name, why in W.SKIPPED.items():
        lines.append("| %s | — | — | — | — | — | — | — | — | %s |" % (name, why))
    lines.append("")
    lines.append("ratio = leafgrad / torch, compiled ratio = leafgrad (compiled) / torch "
                 "(medians; < 1 means leafgrad is faster / smaller). "
                 "noise: median CPU cores other processes kept busy while timing, and half the "
                 "max-min spread of the leafgrad and torch repeats relative to the median.")
    lines.append("")
    lines.append("## Targets (issue 4)")
    lines.append("")
    for desc, verdict in check_targets(summary):
        lines.append("- %s: %s" % (verdict, desc))
    lines.append("")
    lines.append("## Libraries")
    lines.append("")
    seen = set()
    for name in names:
        for fw, e in summary[name]["frameworks"].items():
            if fw in seen or not e.get("blas"):
                continue
            seen.add(fw)
            b = e["blas"]
            extra = ""
            if "torch_threads" in b:
                extra = "; torch.get_num_threads() = %s, BLAS %s" % (b["torch_threads"], b["torch_blas"])
            lines.append("- %s %s: %s%s" % (fw, e.get("version"), "; ".join(b["threadpools"]) or "none",
                                           extra))
    missing = [fw for fw in FRAMEWORKS if fw not in frameworks]
    if missing:
        lines.append("- not measured: %s (not installed or not selected; `python benchmarks/run.py "
                     "--install` installs them)" % ", ".join(missing))
    errors = [(name, fw, e["error"]) for name in names
              for fw, e in summary[name]["frameworks"].items() if "error" in e]
    if errors:
        lines.append("")
        lines.append("## Errors")
        lines.append("")
        for name, fw, err in errors:
            lines.append("- %s / %s: `%s`" % (name, fw, err.strip().splitlines()[-1][:300]))
    return "\n".join(lines) + "\n"


def _med(summary, name, fw, key):
    try:
        return summary[name]["frameworks"][fw]["median"][key]
    except KeyError:
        return None


def check_targets(summary):
    """The issue's targets, each as (description, PASS / FAIL / n/a)."""
    out = []

    def ratio_target(name, key, limit, desc, other="torch"):
        a, b = _med(summary, name, "leafgrad", key), _med(summary, name, other, key)
        if a is None or b is None:
            out.append((desc, "n/a"))
        else:
            out.append(("%s (%.2fx)" % (desc, a / b), "PASS" if a / b <= limit else "FAIL"))

    if "tiny_ops" in summary:
        ratio_target("tiny_ops", "total_us_per_op", 0.8, "tiny_ops fwd+bwd <= 0.8x PyTorch")
    if "digits_mlp" in summary:
        ratio_target("digits_mlp", "s_per_epoch", 0.6, "digits_mlp <= 0.6x PyTorch")
        ratio_target("digits_mlp", "s_per_epoch", 1.0, "digits_mlp ahead of MyGrad", "mygrad")
    if "breast_cancer_bce" in summary:
        ratio_target("breast_cancer_bce", "ms_per_step", 1.0, "breast_cancer_bce <= 1.0x PyTorch")
    if "blas_mlp" in summary:
        ratio_target("blas_mlp", "ms_per_step", 1.0, "blas_mlp <= 1.0x PyTorch")
        x = _med(summary, "blas_mlp", "leafgrad", "x_floor")
        out.append(("blas_mlp <= 1.25x the bare matmuls" + ("" if x is None else " (%.2fx)" % x),
                    "n/a" if x is None else ("PASS" if x <= 1.25 else "FAIL")))
        ratio_target("blas_mlp", "peak_rss_mib", 1.0, "blas_mlp peak memory <= MyGrad's", "mygrad")
    if "deep_chain" in summary:
        ratio_target("deep_chain", "small_s", 1.0, "deep_chain 100k <= 1.0x PyTorch")
        g = _med(summary, "deep_chain", "leafgrad", "growth")
        out.append(("deep_chain 1M within 12x the 100k time" + ("" if g is None else " (%.1fx)" % g),
                    "n/a" if g is None else ("PASS" if g <= 12 else "FAIL")))
    if "hvp" in summary:
        ratio_target("hvp", "ms_per_hvp", 1.0, "hvp <= 1.0x PyTorch")
    if "conv_digits" in summary:
        ratio_target("conv_digits", "ms_per_step", 1.0, "conv_digits <= 1.0x PyTorch")
    firsts = {"tiny_ops": "total_us_per_op", "digits_mlp": "s_per_epoch",
              "breast_cancer_bce": "ms_per_step", "deep_chain": "small_s", "hvp": "ms_per_hvp"}
    for ref in REFERENCE:
        for name, key in firsts.items():
            if name in summary:
                ratio_target(name, key, 0.5, "%s >= 2x faster than %s" % (name, ref), ref)
    return out


def machine_info():
    import numpy
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"date": time.strftime("%Y-%m-%d %H:%M"), "cpu": cpu, "ncpu": os.cpu_count(),
            "python": platform.python_version(), "numpy": numpy.__version__,
            "load_before": _loadavg()}


def _loadavg():
    try:
        return " ".join("%.2f" % x for x in os.getloadavg())
    except OSError:
        return "?"


def install():
    pkgs = ["autograd", "mygrad", "threadpoolctl"]
    print("installing %s into %s" % (" ".join(pkgs), sys.prefix), flush=True)
    return subprocess.call([sys.executable, "-m", "pip", "install", "-q"] + pkgs)


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--child"]:
        name, fw, size, threads = argv[1:5]
        child_main(name, fw, size, int(threads))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="tiny sizes (CI): checks that it runs")
    ap.add_argument("--only", nargs="+", metavar="NAME", choices=W.WORKLOAD_NAMES,
                    help="workloads to run (default: all): %s" % ", ".join(W.WORKLOAD_NAMES))
    ap.add_argument("--frameworks", nargs="+", choices=FRAMEWORKS,
                    help="frameworks to run (default: all that are installed)")
    ap.add_argument("--repeats", type=int, default=None,
                    help="measurements per workload and framework (default 5; 1 with --quick)")
    ap.add_argument("--ref-repeats", type=int, default=None,
                    help="repeats for autograd and mygrad (default: min(repeats, 2))")
    ap.add_argument("--threads", type=int, default=2, help="BLAS/OpenMP threads (default 2)")
    ap.add_argument("--noise-limit", type=float, default=0.25,
                    help="rerun a measurement when others kept more cores busy than this")
    ap.add_argument("--max-reruns", type=int, default=None,
                    help="reruns of a noisy measurement (default 2; 0 with --quick)")
    ap.add_argument("--timeout", type=int, default=None, help="seconds per child (default 1200)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench-results"),
                    help="directory for latest.md and latest.json")
    ap.add_argument("--rev", metavar="REV",
                    help="measure leafgrad's src/ as committed at this git revision (e.g. HEAD) "
                         "instead of the working tree")
    ap.add_argument("--install", action="store_true",
                    help="pip-install autograd, mygrad and threadpoolctl into this Python first")
    args = ap.parse_args(argv)
    if args.install and install() != 0:
        return 1
    args.size = "quick" if args.quick else "full"
    if args.repeats is None:
        args.repeats = 1 if args.quick else 5
    if args.max_reruns is None:
        args.max_reruns = 0 if args.quick else 2
    if args.ref_repeats is None:
        args.ref_repeats = min(args.repeats, 2)
    if args.timeout is None:
        args.timeout = 300 if args.quick else 1200
    names = args.only or W.WORKLOAD_NAMES
    frameworks = [fw for fw in (args.frameworks or FRAMEWORKS) if available(fw)]
    for fw in args.frameworks or []:
        if fw not in frameworks:
            print("note: %s is not installed; skipped" % fw)

    if args.rev:
        SRC_OVERRIDE[0] = snapshot(args.rev)
    machine = machine_info()
    machine["leafgrad_source"] = source_label(args.rev)
    print("leafgrad benchmarks, %s size: %s x %s, %d repeats, %d threads; load average %s"
          % (args.size, ", ".join(names), ", ".join(frameworks), args.repeats, args.threads,
             machine["load_before"]), flush=True)
    records = []
    for rep in range(args.repeats):
        for name in names:
            k = (rep + WORKLOAD_OFFSET.get(name, 0)) % len(frameworks)
            order = frameworks[k:] + frameworks[:k]
            for fw in order:
                if fw in REFERENCE and rep >= args.ref_repeats:
                    continue
                res = measure(name, fw, args)
                records.append(res)
                status = ("n/a" if res.get("na") else "ERROR " + res["error"].splitlines()[-1][:200]
                          if "error" in res else ", ".join(
                              "%s=%s" % (k2, _fmt(v)) for k2, v in res["metrics"].items())
                          + (" [others %.2f cores]" % res["noise_cores"]
                             if res.get("noise_cores") is not None else ""))
                print("  [%d/%d] %-17s %-8s %s" % (rep + 1, args.repeats, name, fw, status),
                      flush=True)
    machine["load_after"] = _loadavg()
    if SRC_OVERRIDE[0]:
        import shutil
        shutil.rmtree(os.path.dirname(SRC_OVERRIDE[0]), ignore_errors=True)
    summary = summarize(records, names, frameworks)
    md = render(summary, names, frameworks, args, machine)
    print()
    print(md)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "latest.md"), "w") as f:
        f.write(md)
    with open(os.path.join(args.out, "latest.json"), "w") as f:
        json.dump({"args": {k: v for k, v in vars(args).items()}, "machine": machine,
                   "sizes": {n: W.SIZES[n][args.size] for n in names}, "summary": summary,
                   "records": records}, f, indent=1, default=str)
    print("wrote %s and latest.json" % os.path.join(args.out, "latest.md"))
    return 0


# rotate the framework order differently per workload too
WORKLOAD_OFFSET = {n: i for i, n in enumerate(W.WORKLOAD_NAMES)}

if __name__ == "__main__":
    sys.exit(main())
