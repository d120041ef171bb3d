"""The masked-gradient helper ``ops._select.select`` on arrays (its bit trick gives
np.where's result bit for bit: inf, nan and -0.0 kept where the mask holds, +0.0
elsewhere), relu's backward through it against PyTorch, and leafgrad._core.malloc's switch."""
import sys

import numpy as np
import pytest
import torch

import leafgrad as lg
from leafgrad._core import malloc as _malloc
from leafgrad.ops._select import select


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("mshape", [(3, 4, 5), (4, 1), (), (2, 3, 4, 5)])
def test_select_is_np_where_bit_for_bit(dt, mshape):
    rng = np.random.default_rng(0)
    g = rng.normal(size=(3, 4, 5)).astype(dt)
    g[0, 0] = [np.inf, -np.inf, np.nan, -0.0, 0.0]
    m = np.asarray(rng.random(mshape) < 0.5)
    gv = g[:, ::2].transpose(2, 0, 1)                       # a strided view
    for gg, mm in ((g, m), (gv, rng.random(gv.shape) < 0.5), (gv, np.asarray(True))):
        a, b = select(mm, gg), np.where(mm, gg, 0)
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


def test_relu_backward_selects_as_torch():
    """inf and nan upstream gradients give exactly 0 where relu is off."""
    x = np.array([-1.0, 2.0, -3.0, 4.0, 0.0, 5.0], np.float32)
    up = np.array([np.inf, np.inf, np.nan, np.nan, 1.0, -0.0], np.float32)
    got = []
    for T in (torch, lg):
        t = T.tensor(x, requires_grad=True)
        T.relu(t).backward(T.tensor(up))
        got.append(t.grad.numpy())
    assert got[0].tobytes() == got[1].tobytes()


def test_malloc_tuning_switch(monkeypatch):
    monkeypatch.setenv("LEAFGRAD_KEEP_MALLOC", "1")
    assert _malloc.tune() is False
    monkeypatch.delenv("LEAFGRAD_KEEP_MALLOC")
    monkeypatch.setenv("MALLOC_ARENA_MAX", "2")          # a user's malloc setting wins
    assert _malloc.tune() is False
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    import os
    import platform
    if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc" and not any(
            k.startswith("MALLOC_") for k in os.environ):
        assert _malloc.tune() is True
