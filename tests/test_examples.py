"""Every script in examples/ prints exactly the same under real PyTorch
(``python SCRIPT.py``) and under leafgrad (``leafgrad run SCRIPT.py``).

Real PyTorch takes seconds to import, so its outputs are kept in pytest's
cache, keyed by the script's text and the torch version; later runs only run
the leafgrad side.
"""
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SCRIPTS = sorted(p for p in EXAMPLES.glob("*.py") if not p.name.startswith("_"))
TIMEOUT = 120


def child_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] +
                                        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("PYTHONHASHSEED", "0")
    env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def leafgrad_cmd():
    """The installed console script when it sits next to this interpreter, else -m."""
    exe = shutil.which("leafgrad", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "leafgrad"]


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=str(cwd), env=child_env(), capture_output=True, text=True,
                       timeout=TIMEOUT)
    return {"rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr[-3000:]}


def _torch_version():
    """The installed PyTorch's version, without importing it (that takes seconds)."""
    if importlib.util.find_spec("torch") is None:
        return None
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class TorchOutputs:
    """What `python SCRIPT.py` prints with real torch, cached in pytest's cache by
    the script's text and the torch version.

    In a plain run the missing ones are computed all at once, in parallel; under
    pytest-xdist each worker computes only the scripts it is given.
    """

    def __init__(self, version, cache):
        self.version, self.cache, self.results = version, cache, {}
        self.prefetch = "PYTEST_XDIST_WORKER" not in os.environ

    def _key(self, script):
        return hashlib.sha256(script.read_bytes() + self.version.encode()).hexdigest()

    def _cached(self, script):
        if self.cache is None:
            return None
        hit = self.cache.get("leafgrad/examples/" + script.name, None)
        return hit["result"] if hit and hit.get("key") == self._key(script) else None

    def _run(self, script):
        res = run([sys.executable, script.name], EXAMPLES)
        if self.cache is not None and res["rc"] == 0:
            self.cache.set("leafgrad/examples/" + script.name,
                           {"key": self._key(script), "result": res})
        return res

    def get(self, script):
        if script.name not in self.results:
            todo = [script]
            if self.prefetch:
                todo = [s for s in SCRIPTS if s.name not in self.results]
            missing = []
            for s in todo:
                hit = self._cached(s)
                if hit is not None:
                    self.results[s.name] = hit
                else:
                    missing.append(s)
            with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as ex:
                for s, res in zip(missing, ex.map(self._run, missing)):
                    self.results[s.name] = res
        return self.results[script.name]


@pytest.fixture(scope="session")
def torch_outputs(request):
    version = _torch_version()
    if version is None:
        pytest.skip("real PyTorch is not installed: nothing to compare against")
    return TorchOutputs(version, getattr(request.config, "cache", None))


def test_examples_exist():
    assert len(SCRIPTS) >= 10, [s.name for s in SCRIPTS]


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_example_same_output_as_torch(script, torch_outputs):
    expected = torch_outputs.get(script)
    assert expected["rc"] == 0, "the example fails under real PyTorch:\n" + expected["stderr"]
    got = run(leafgrad_cmd() + ["run", script.name], EXAMPLES)
    assert got["rc"] == 0, "leafgrad run failed:\n" + got["stderr"]
    exp_lines = expected["stdout"].splitlines()
    got_lines = got["stdout"].splitlines()
    for i, (e, g) in enumerate(zip(exp_lines, got_lines), 1):
        assert g == e, "line %d differs\n torch:    %r\n leafgrad: %r" % (i, e, g)
    assert len(got_lines) == len(exp_lines), (
        "torch printed %d lines, leafgrad %d:\n%s"
        % (len(exp_lines), len(got_lines), json.dumps(got_lines[len(exp_lines):], indent=1)))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_example_is_plain_pytorch(script):
    """The examples are ordinary PyTorch scripts: they never name leafgrad."""
    text = script.read_text(encoding="utf-8")
    assert "leafgrad" not in text
    assert "import torch" in text
