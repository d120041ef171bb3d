"""torch.where's condition dtype as PyTorch 2.13 (issue 26, item 6): bool; uint8 with a
deprecation warning; float and integer conditions refused with PyTorch's RuntimeError."""
import subprocess
import sys
import warnings

import pytest
import torch

import leafgrad


@pytest.mark.parametrize("dtype", ["bool", "uint8", "float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("form", ["function", "method"])
def test_where_condition_dtype_like_torch(dtype, form):
    outcomes = []
    for lib in (torch, leafgrad):
        cond = lib.tensor([1, 0, 1]).to(getattr(lib, dtype))
        a, b = lib.ones(3), lib.zeros(3)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                out = lib.where(cond, a, b) if form == "function" else a.where(cond, b)
                got = out.tolist()
            except RuntimeError as e:
                got = str(e).split(". Fix")[0]
        outcomes.append(got)
    assert outcomes[1] == outcomes[0]


def test_uint8_condition_warns_once_per_process_like_torch():
    code = (
        "import warnings, sys\n"
        "lib = __import__(sys.argv[1])\n"
        "c = lib.tensor([1, 0], dtype=lib.uint8)\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    lib.where(c, lib.ones(2), lib.zeros(2)); lib.ones(2).where(c, lib.zeros(2))\n"
        "print([str(w.message).split(' (Triggered')[0] for w in seen])\n")
    runs = [subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True,
                           check=True).stdout for name in ("torch", "leafgrad")]
    assert runs[1] == runs[0] and "uint8" in runs[0]


def test_where_one_argument_takes_any_dtype_like_torch():
    for lib in (torch, leafgrad):
        assert lib.where(lib.tensor([1.5, 0.0, -2.0]))[0].tolist() == [0, 2]
