"""explain() on a hypothesis-drawn catalogue of small graphs (matrix products and
nn.Linear, broadcasting, reductions, indexing, views, several paths): the sum of its
paths equals autograd.grad, every path's contribution is shaped like the tensor,
and where it cannot spell the paths it says so and prints autograd's value only."""
import io

import numpy as np
from hypothesis import given, settings, strategies as st

import leafgrad as lg
from leafgrad.utils.viz import explain

F = lg.nn.functional
# each step maps h (3, 3) and the leaves to a new (3, 3) tensor
STEPS = {
    "matmul": lambda h, L: h @ L["A"],
    "rmatmul": lambda h, L: L["B"] @ h,
    "linear": lambda h, L: F.linear(h, L["A"], L["v"]),
    "mm_t": lambda h, L: h.mm(L["B"].t()),
    "bcast_mul": lambda h, L: h * L["v"],
    "bcast_col": lambda h, L: h + L["v"].unsqueeze(1),
    "scalar": lambda h, L: h * L["s"] - L["s"],
    "sum_keepdim": lambda h, L: h.sum(0, keepdim=True) * h,
    "mean_scalar": lambda h, L: h - h.mean(),
    "amax": lambda h, L: h.amax(dim=1, keepdim=True) + h,
    "norm": lambda h, L: h / (1 + h.norm()),
    "gather_rows": lambda h, L: h[[0, 0, 2]],
    "slice_cat": lambda h, L: lg.cat([h[1:], h[:1]]),
    "masked": lambda h, L: lg.where(h > 0, h, 0.5 * h),
    "view": lambda h, L: h.reshape(9).flip(0).view(3, 3),
    "square": lambda h, L: h * h,
    "tanh": lambda h, L: lg.tanh(h),
    "softmax": lambda h, L: h.softmax(-1),
    "transpose": lambda h, L: h.t() + h,
}
LOSSES = {"sum": lambda h: h.sum(), "mse": lambda h: (h ** 2).mean(),
          "pick": lambda h: h[1, 2] * h[0].sum()}


def leaves(seed):
    g = np.random.default_rng(seed)
    make = lambda *shape: lg.tensor(g.uniform(-1, 1, shape), requires_grad=True)
    return {"X": make(3, 3), "A": make(3, 3), "B": make(3, 3), "v": make(3), "s": make()}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=4),
       st.sampled_from(sorted(LOSSES)), st.sampled_from(["X", "A", "B", "v", "s"]),
       st.integers(0, 2 ** 16))
def test_paths_sum_to_autograd(steps, loss_name, target, seed):
    L = leaves(seed)
    h = L["X"]
    for name in steps:
        h = STEPS[name](h, L)
    loss = LOSSES[loss_name](h)
    w = L[target]
    f = io.StringIO()
    ex = explain(loss, w, file=f, max_paths=1000)
    used = ex.problem is None
    if not used:    # the graph never touches w: autograd agrees there is no path
        assert "does not depend" in ex.problem
        return
    want = lg.autograd.grad(loss, w, retain_graph=True)[0].numpy()
    assert not ex.inexact, (steps, loss_name, target, f.getvalue())
    assert ex.total is not None and ex.total.shape == want.shape
    np.testing.assert_allclose(ex.total, want, rtol=1e-10, atol=1e-12)
    for c in ex.contributions:
        assert np.shape(c) == want.shape
    assert f.getvalue().splitlines()[-1].startswith("sum over %d path" % ex.n_paths)


def test_linear_weight_is_autograds_value():
    # the case: nn.Linear(2, 1) gave [[2.0]] against autograd's [[1, 1]]
    m = lg.nn.Linear(2, 1)
    ex = explain(m(lg.ones(1, 2)).sum(), m.weight, file=io.StringIO())
    np.testing.assert_array_equal(ex.total, [[1.0, 1.0]])


def test_a_rule_that_does_not_split_shows_autograds_value_only(monkeypatch):
    # a path whose product is wrong (a planted rule) must not be printed as the gradient
    import sys
    mod = sys.modules["leafgrad.utils.viz.explain"]     # the package's name is the function
    real = mod._vjp

    def off_by_two(fn, nr, g, i):
        r = real(fn, nr, g, i)
        return None if r is None else r * 2
    monkeypatch.setattr(mod, "_vjp", off_by_two)
    w = lg.tensor([1.0, 2.0], requires_grad=True)
    f = io.StringIO()
    ex = explain((w * 3).sum(), w, file=f)
    text = f.getvalue()
    assert ex.inexact and ex.total is None and not ex.paths
    assert "cannot spell these paths exactly" in text and "autograd.grad: [3, 3]" in text
    assert "sum over" not in text and "12" not in text
