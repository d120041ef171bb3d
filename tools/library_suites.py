"""Run a library's own test suite under real PyTorch and under ``leafgrad run -m pytest``,
and compare the two, test by test (subtests included).

    python3 tools/library_suites.py GIT_DIR [--tests PATH ...] [-k EXPR] [--timeout S]

GIT_DIR is the library's git directory (a bare mirror is fine). Its HEAD tree is
exported with ``git archive`` into a fresh folder under the system temp dir (files whose
blobs the mirror lacks, such as large assets, are left out); nothing of the library is
written into this repository. The suite then runs twice from that folder with the folder
first on PYTHONPATH (the library is imported from its source, no install needed):

- ``PYTHON -m pytest ...`` (PYTHON: ``--python``, default the interpreter running this
  script; it must have real torch and the library's other dependencies);
- ``PYTHON -m leafgrad run -m pytest ...`` with this repository's ``src`` on PYTHONPATH.

Each run loads this file as a pytest plugin (``-p library_suites``): it records every
test's and subtest's outcome into a JSON file and stops a test after ``--timeout``
seconds (SIGALRM; the test is then failed with TimeoutError). The script prints a table
(tests and subtests passed / failed / errored / skipped under each) and every test that
passes under torch and does not under leafgrad, with its error, grouped by the error's
first line, the most common first.
"""
import argparse
import collections
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
_NUMBER = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?")
_LOG_ENV = "LIBRARY_SUITES_LOG"
_TIMEOUT_ENV = "LIBRARY_SUITES_TIMEOUT"


# ------------------------------------------------------------- the pytest plugin
def _message(report):
    """The first line of a failed report's exception (``Type: message``)."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None and crash.message:
        return crash.message.splitlines()[0][:300]
    lines = str(report.longrepr or "").splitlines()
    errs = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
    return (errs[0] if errs else (lines[-1] if lines else ""))[:300]


def pytest_runtest_logreport(report):
    path = os.environ.get(_LOG_ENV)
    if not path:
        return
    ctx = getattr(report, "context", None)
    sub = None
    if ctx is not None:
        parts = ([repr(ctx.msg)] if ctx.msg is not None else []) + [
            "%s=%s" % kv for kv in sorted(ctx.kwargs.items())]
        sub = ", ".join(parts)
    rec = {"id": report.nodeid, "sub": sub, "when": report.when, "outcome": report.outcome,
           "msg": _message(report) if report.outcome == "failed" else ""}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")


def _on_alarm(signum, frame):
    raise TimeoutError("test timed out after %s s (library_suites --timeout)"
                       % os.environ.get(_TIMEOUT_ENV))


try:
    import pytest as _pytest

    @_pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(item):
        seconds = float(os.environ.get(_TIMEOUT_ENV) or 0)
        if seconds <= 0:
            return (yield)
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return (yield)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
except ImportError:      # the script itself does not need pytest
    pass


# ------------------------------------------------------------------- the runs
def export_tree(git_dir, dest):
    """``git archive HEAD`` of ``git_dir`` into ``dest``, without the blobs it lacks."""
    ls = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "HEAD"],
                        check=True, capture_output=True, text=True).stdout.splitlines()
    entries = [ln.split(None, 3) for ln in ls]
    blobs = [e for e in entries if e[1] == "blob"]
    check = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch-check"],
                           input="".join(e[2] + "\n" for e in blobs),
                           capture_output=True, text=True).stdout.splitlines()
    missing = [e[3] for e, c in zip(blobs, check) if c.endswith("missing")]
    excludes = [":(exclude)" + p for p in missing]
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", "HEAD", "--", "."]
                             + excludes, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return missing


def run_suite(tree, python, use_leafgrad, pytest_args, timeout, src=ROOT / "src"):
    """Run pytest in ``tree``; return (list of report records, seconds, exit code)."""
    log = pathlib.Path(tempfile.mkstemp(suffix=".jsonl", prefix="suite-")[1])
    paths = [str(tree), str(pathlib.Path(__file__).resolve().parent)]
    if use_leafgrad:
        paths.append(str(src))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        paths + [p for p in [os.environ.get("PYTHONPATH")] if p]),
        **{_LOG_ENV: str(log), _TIMEOUT_ENV: str(timeout)})
    head = [python, "-m", "leafgrad", "run", "-m", "pytest"] if use_leafgrad else \
        [python, "-m", "pytest"]
    cmd = head + ["-p", "library_suites", "-p", "no:cacheprovider", "-q", "-rN",
                  "--no-header", "-W", "ignore"] + pytest_args
    start = time.time()
    proc = subprocess.run(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    records = [json.loads(ln) for ln in log.read_text(encoding="utf-8").splitlines()]
    log.unlink()
    if proc.returncode not in (0, 1) and not records:
        sys.stderr.write(proc.stderr[-3000:])
    return records, time.time() - start, proc.returncode


def outcomes(records):
    """{(test id, subtest or None): (outcome, message)}: outcome is passed / failed /
    error (setup or teardown failed) / skipped."""
    out = {}
    for r in records:
        key = (r["id"], r["sub"])
        if r["sub"] is not None:
            out[key] = ("failed" if r["outcome"] == "failed" else r["outcome"], r["msg"])
            continue
        prev = out.get(key, ("passed", ""))
        if r["outcome"] == "failed":
            kind = "failed" if r["when"] == "call" else "error"
            if prev[0] not in ("failed", "error"):
                out[key] = (kind, r["msg"])
        elif r["outcome"] == "skipped" and prev[0] == "passed":
            out[key] = ("skipped", r["msg"])
        else:
            out.setdefault(key, prev)
    for (tid, sub), (kind, msg) in list(out.items()):   # a failed subtest fails its test
        if sub is not None and kind == "failed" and out.get((tid, None), ("",))[0] == "passed":
            out[(tid, None)] = ("failed", "a subtest failed")
    return out


def table(results):
    """The counts table (rows: tests, subtests; columns per run)."""
    kinds = ("passed", "failed", "error", "skipped")
    lines = ["%-10s %-9s " % ("", "") + " ".join("%8s" % k for k in kinds) + "   seconds"]
    for name, (res, secs, _rc) in results.items():
        for level, pick in (("tests", lambda k: k[1] is None),
                            ("subtests", lambda k: k[1] is not None)):
            count = collections.Counter(v[0] for k, v in res.items() if pick(k))
            lines.append("%-10s %-9s " % (name, level) + " ".join(
                "%8d" % count[k] for k in kinds) + ("   %7.0f" % secs if level == "tests" else ""))
    return "\n".join(lines)


def only_leafgrad(torch_res, leaf_res):
    """Tests (and subtests) passing under torch that fail, error or are missing under
    leafgrad: {first line of the error: [test ids]}, most common error first."""
    groups = collections.defaultdict(list)
    for key, (kind, _msg) in torch_res.items():
        got = leaf_res.get(key, ("missing", "not run under leafgrad (crash or timeout?)"))
        if kind == "passed" and got[0] not in ("passed", "skipped"):
            if key[1] is None and got[1] == "a subtest failed":
                continue                     # counted through its subtests
            name = key[0] + ("" if key[1] is None else " [%s]" % key[1])
            groups["%s: %s" % (got[0], _NUMBER.sub("N", got[1])[:160])].append(name)
    return dict(sorted(groups.items(), key=lambda kv: -len(kv[1])))


def _encode(result):
    res, secs, rc = result
    return {"seconds": secs, "rc": rc,
            "outcomes": [[tid, sub, kind, msg] for (tid, sub), (kind, msg) in res.items()]}


def _decode(saved):
    res = {(tid, sub): (kind, msg) for tid, sub, kind, msg in saved["outcomes"]}
    return res, saved["seconds"], saved["rc"]


def _rerun(args, tree, pytest_args):
    """Both runs of a --save file, the leafgrad run updated by running again (under
    leafgrad only) the tests that pass under torch and did not under leafgrad."""
    saved = json.loads(pathlib.Path(args.rerun).read_text(encoding="utf-8"))
    torch_res, leaf = _decode(saved["torch"]), _decode(saved["leafgrad"])
    ids = sorted({tid for (tid, _sub) in only_leafgrad_keys(torch_res[0], leaf[0])})
    res = dict(leaf[0])
    secs = 0.0
    if ids:
        keep = [a for a in pytest_args if a not in args.tests]
        records, secs, _rc = run_suite(tree, args.python, True, keep + ids, args.timeout,
                                       args.leafgrad_src)
        new = outcomes(records)
        res = {k: v for k, v in res.items() if k[0] not in set(ids)}
        res.update(new)
    print("reran %d tests under leafgrad (%.0f s)" % (len(ids), secs))
    return {"torch": torch_res, "leafgrad": (res, leaf[1], leaf[2])}


def only_leafgrad_keys(torch_res, leaf_res):
    return [key for key, (kind, _m) in torch_res.items() if kind == "passed"
            and leaf_res.get(key, ("missing",))[0] not in ("passed", "skipped")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("git_dir", help="the library's git directory (bare mirror or .git)")
    ap.add_argument("--tests", nargs="+", default=["tests"],
                    help="test paths inside the tree (default: tests)")
    ap.add_argument("-k", dest="keyword", help="pytest -k expression (e.g. 'not cuda')")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per test (0: none)")
    ap.add_argument("--python", default=sys.executable, help="interpreter with real torch")
    ap.add_argument("--leafgrad-src", default=str(ROOT / "src"),
                    help="the leafgrad sources to test (default: this checkout's src)")
    ap.add_argument("--only", choices=("torch", "leafgrad"), help="run one side only")
    ap.add_argument("--save", help="write both runs' outcomes to this JSON file")
    ap.add_argument("--torch-from", help="take the torch run from a --save file instead")
    ap.add_argument("--rerun", help="a --save file: rerun under leafgrad only its tests that "
                    "pass under torch and not under leafgrad, and show the merged table")
    ap.add_argument("--show", type=int, default=5, help="test ids shown per error")
    ap.add_argument("--pytest-arg", action="append", default=[], dest="extra",
                    help="passed on to pytest (repeatable), e.g. --pytest-arg=-o "
                         "--pytest-arg=python_files=*_tests.py")
    args = ap.parse_args(argv)
    tree = pathlib.Path(tempfile.mkdtemp(prefix="library-suite-"))
    missing = export_tree(args.git_dir, tree)
    print("tree: %s (%d files without blobs left out)" % (tree, len(missing)))
    pytest_args = list(args.extra) + (["-k", args.keyword] if args.keyword else []) + args.tests
    results = {}
    if args.rerun:
        results = _rerun(args, tree, pytest_args)
    elif args.torch_from:
        saved = json.loads(pathlib.Path(args.torch_from).read_text(encoding="utf-8"))
        results["torch"] = _decode(saved["torch"])
    for name in ("torch", "leafgrad"):
        if args.only in (None, name) and name not in results:
            records, secs, rc = run_suite(tree, args.python, name == "leafgrad",
                                          pytest_args, args.timeout, args.leafgrad_src)
            results[name] = (outcomes(records), secs, rc)
    print(table(results))
    if args.save:
        pathlib.Path(args.save).write_text(json.dumps(
            {k: _encode(v) for k, v in results.items()}), encoding="utf-8")
    if len(results) == 2:
        groups = only_leafgrad(results["torch"][0], results["leafgrad"][0])
        print("\npass under torch, not under leafgrad: %d"
              % sum(len(v) for v in groups.values()))
        for msg, ids in groups.items():
            print("\n%5d  %s" % (len(ids), msg))
            for i in ids[:args.show]:
                print("         " + i)
            if len(ids) > args.show:
                print("         ... and %d more" % (len(ids) - args.show))
    return 0


if __name__ == "__main__":
    sys.exit(main())
