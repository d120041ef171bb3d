"""The libraries learners put on top of torch (issue 23 part 4), run under ``leafgrad run``
and with real torch: each script of tests/libraries/ prints what its calls return, and the
two outputs must agree (numbers to float32's last bits: PyTorch's float32 sums take
another order than NumPy's; everything else, tables included, word for word)."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.join(os.path.dirname(__file__), "libraries")
SRC = os.path.join(os.path.dirname(os.path.dirname(__file__)), "src")
_NUM = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _run(args, cwd):
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable] + args, cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def _same(a, b):
    la, lb = a.splitlines(), b.splitlines()
    assert len(la) == len(lb), (a, b)
    for x, y in zip(la, lb):
        assert _NUM.sub("#", x) == _NUM.sub("#", y), (x, y)
        for u, v in zip(_NUM.findall(x), _NUM.findall(y)):
            # (a value printed rounded to 6 places may differ by one in the last place)
            assert abs(float(u) - float(v)) <= 2e-6 * max(1.0, abs(float(v))), (x, y)


@pytest.mark.parametrize("lib", ["einops", "torchinfo", "torchmetrics"])
def test_library_calls_print_what_torch_prints(lib, tmp_path):
    pytest.importorskip(lib)
    script = os.path.join(HERE, "%s_calls.py" % lib)
    want = _run([script], str(tmp_path))
    got = _run(["-m", "leafgrad", "run", script], str(tmp_path))
    _same(got, want)
