"""The path to many machines: examples/scale_out/train.py trains under `leafgrad run` on one
CPU and saves a checkpoint, then continues from it under real PyTorch with DDP
(torchrun --nproc_per_node=2, gloo). The loss keeps falling across the move, both ranks end
with identical weights, and they match leafgrad training the same steps on its own."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
SCRIPT = os.path.join(ROOT, "examples", "scale_out", "train.py")
SRC = os.path.join(ROOT, "src")


def _run(cmd, cwd, report, env=None):
    res = subprocess.run(cmd + ["--report", report], cwd=cwd, capture_output=True, text=True,
                         timeout=600, env=dict(os.environ, **(env or {})))
    assert res.returncode == 0, res.stdout + res.stderr
    out = []
    for rank in range(2):
        path = os.path.join(cwd, "%s.rank%d.json" % (report, rank))
        if os.path.exists(path):
            with open(path) as fh:
                out.append(json.load(fh))
    return out


def leafgrad_run(args, cwd, report):
    env = {"PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return _run([sys.executable, "-m", "leafgrad", "run", SCRIPT] + args, cwd, report, env)


@pytest.mark.slow
def test_leafgrad_then_torchrun_ddp(tmp_path):
    pytest.importorskip("torch.distributed")
    (a,) = leafgrad_run(["--steps", "40", "--save", "ckpt.pt"], tmp_path, "a")
    assert a["world"] == 1 and a["full_loss"] < a["full_loss_start"]
    # (b): real PyTorch, 2 processes; never the leafgrad source tree on its path
    env = {"PYTHONPATH": "", "OMP_NUM_THREADS": "1"}
    ranks = _run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                  "--nproc_per_node=2", SCRIPT, "--resume", "ckpt.pt", "--steps", "40",
                  "--save", "final.pt"], tmp_path, "b", env)
    assert sorted(r["rank"] for r in ranks) == [0, 1] and all(r["world"] == 2 for r in ranks)
    for r in ranks:
        assert r["start"] == 40
        # it starts where leafgrad stopped, and the loss keeps falling
        np.testing.assert_allclose(r["full_loss_start"], a["full_loss"], rtol=1e-5)
        assert r["full_loss"] < a["full_loss"]
    assert ranks[0]["weights"] == ranks[1]["weights"]          # identical on both ranks
    # and what DDP computed is what one process computes for the same 80 steps
    (ref,) = leafgrad_run(["--steps", "40", "--resume", "ckpt.pt"], tmp_path, "ref")
    np.testing.assert_allclose(ranks[0]["weights"], ref["weights"], rtol=1e-3, atol=1e-4)
    assert os.path.exists(tmp_path / "final.pt")
