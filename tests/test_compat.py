"""The shared conformance cases (../shared/compat): PyTorch scripts with values
recorded from real PyTorch 2.13.0, run against leafgrad; every case must pass."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMPAT = Path(os.environ.get("LEAFGRAD_COMPAT", ROOT.parent / "shared" / "compat"))

pytestmark = pytest.mark.skipif(not (COMPAT / "run.py").exists(),
                                reason="shared conformance kit not found at %s" % COMPAT)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("compat") / "leafgrad.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    subprocess.run([sys.executable, str(COMPAT / "run.py"), "--impl", "leafgrad", "-j", "2",
                    "--out", str(out), str(COMPAT / "cases")], check=True, env=env,
                   cwd=str(COMPAT.parent), capture_output=True, timeout=600)
    return out


def _case_names():
    exp = COMPAT / "expected" / "public.json"
    if not exp.exists():
        return []
    return sorted(json.loads(exp.read_text())["cases"])


@pytest.mark.parametrize("case", _case_names())
def test_conformance_case(results, case):
    sys.path.insert(0, str(COMPAT))
    try:
        import compare
    finally:
        sys.path.pop(0)
    expected, _ = compare.load(str(COMPAT / "expected" / "public.json"))
    actual, _ = compare.load(str(results))
    diff, _, _ = compare.cmp_case(expected[case], actual.get(case))
    assert diff is None, diff
