"""tools/library_suites.py on a tiny made-up library: the table counts tests and subtests
under each run, and the one test that passes under torch only is listed with its error."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import library_suites  # noqa: E402

_SUITE = '''
import unittest
import torch

# real torch's file, not the folder around it: a checkout named leafgrad holds torch too
REAL = torch.__file__.replace("\\\\", "/").endswith("/torch/__init__.py")


def test_both():
    assert torch.ones(2).sum().item() == 2.0


def test_torch_only():
    assert REAL, "imported leafgrad"


def test_skipped():
    import pytest
    pytest.skip("no")


class T(unittest.TestCase):
    def test_sub(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertTrue(i < 2 or REAL)
'''


def _repo(tmp_path):
    lib = tmp_path / "lib"
    (lib / "tests").mkdir(parents=True)
    (lib / "tests" / "test_small.py").write_text(_SUITE)
    git = ["git", "-C", str(lib), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "suite"], check=True)
    return lib / ".git"


def test_table_and_leafgrad_only_failures(tmp_path, capsys):
    save = tmp_path / "runs.json"
    library_suites.main([str(_repo(tmp_path)), "--timeout", "60", "--save", str(save)])
    out = capsys.readouterr().out
    rows = {tuple(line.split()[:2]): line.split()[2:6] for line in out.splitlines()
            if line.startswith(("torch ", "leafgrad "))}
    assert rows[("torch", "tests")] == ["3", "0", "0", "1"]
    assert rows[("torch", "subtests")] == ["3", "0", "0", "0"]
    assert rows[("leafgrad", "tests")] == ["1", "2", "0", "1"]
    assert rows[("leafgrad", "subtests")] == ["2", "1", "0", "0"]
    assert "pass under torch, not under leafgrad: 2" in out
    assert "tests/test_small.py::test_torch_only" in out
    assert "tests/test_small.py::T::test_sub [i=2]" in out
    assert "AssertionError: imported leafgrad" in out
    # the torch half reused from the save gives the same comparison
    library_suites.main([str(_repo(tmp_path / "again")), "--torch-from", str(save),
                         "--timeout", "60"])
    assert "pass under torch, not under leafgrad: 2" in capsys.readouterr().out
    # --rerun: only the two leafgrad-only failures run again (and fail again)
    library_suites.main([str(_repo(tmp_path / "third")), "--rerun", str(save),
                         "--timeout", "60"])
    out = capsys.readouterr().out
    assert "reran 2 tests under leafgrad" in out
    assert "pass under torch, not under leafgrad: 2" in out


def test_per_test_timeout(tmp_path):
    log = tmp_path / "log.jsonl"
    (tmp_path / "test_slow.py").write_text("import time\n\ndef test_slow():\n"
                                           "    time.sleep(30)\n")
    env = {"PYTHONPATH": str(ROOT / "tools"), library_suites._LOG_ENV: str(log),
           library_suites._TIMEOUT_ENV: "1", "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "library_suites", "-p",
                    "no:cacheprovider", "test_slow.py"], cwd=tmp_path, env=env,
                   capture_output=True, timeout=25)
    import json
    recs = [json.loads(ln) for ln in log.read_text().splitlines()]
    res = library_suites.outcomes(recs)
    assert res[("test_slow.py::test_slow", None)][0] == "failed"
    assert "timed out after 1 s" in res[("test_slow.py::test_slow", None)][1]
