"""Built-in nodes answer ``hasattr`` as PyTorch's do, for one example of every op-table row.

Libraries probe nodes by attribute: torchviz takes ``saved_tensors`` as the mark of a
custom Function (PyTorch's built-in nodes have none) and reads ``_saved_*`` otherwise.
Checked here: ``saved_tensors`` (absent on built-in nodes, present on a custom
Function's), and every public name of PyTorch's node (``next_functions``, ``metadata``,
``name``, ``register_hook``, ``register_prehook``, ``requires_grad``) plus
``_sequence_nr``, and that every ``_saved_*`` name ``dir()`` lists reads (torchviz's
``show_attrs`` walk). The per-op ``_saved_<arg>`` names of the common ops are checked in
``test_saved_names_vs_torch.py`` (names from ``autograd/_saved_names.py``; PyTorch has
hundreds more for the other ops).
"""
import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

import leafgrad
from op_table import ROWS
from test_ops_vs_torch import _draw, _kw_as, _run

PRIVATE_CHECKED = ("_sequence_nr",)


def _example(row):
    got = {}

    @settings(max_examples=1, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def draw(data):
        got["x"] = _draw(data, row)[:2]
    draw()
    return got["x"]


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_node_attributes_as_pytorchs(row):
    arrays, kw = _example(row)
    kw = _kw_as(kw, np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _, outs_t = _run(torch, row, arrays, kw, np.float64)
        except Exception:
            pytest.skip("this example is not valid for torch")
        _, outs_l = _run(leafgrad, row, arrays, kw, np.float64)
    for out in outs_l:          # torchviz's show_attrs walk: every listed name reads
        fn = getattr(out, "grad_fn", None)
        for n in dir(fn) if fn is not None else ():
            if n.startswith("_saved_"):
                getattr(fn, n)
    compared = 0
    for a, b in zip(outs_t, outs_l):
        fa, fb = getattr(a, "grad_fn", None), getattr(b, "grad_fn", None)
        if fa is None or fb is None or fa.name() != fb.name():
            continue
        compared += 1
        names = {n for n in dir(fa) if not n.startswith("_")} | {"saved_tensors"}
        for n in sorted(names | set(PRIVATE_CHECKED)):
            assert hasattr(fb, n) == hasattr(fa, n), (fa.name(), n)
        assert fb.requires_grad == fa.requires_grad
    if not compared:
        pytest.skip("no output with the same grad_fn in both")


def test_custom_function_nodes_keep_saved_tensors():
    for T in (torch, leafgrad):
        class Sq(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = Sq.apply(x)
        assert y.grad_fn.saved_tensors[0] is x
        assert not hasattr((x * x).grad_fn, "saved_tensors")
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 4.0]
        assert (x * x).grad_fn._sequence_nr() < (x * x).grad_fn._sequence_nr()

