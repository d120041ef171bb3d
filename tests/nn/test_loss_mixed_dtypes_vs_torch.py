"""Losses given a target of another float dtype than the input (a target made with NumPy
is float64): result dtype, and whether forward or backward raise, as PyTorch 2.13 (issue 26,
item 5). Values are compared within float32's spread."""
import numpy as np
import pytest
import torch

import leafgrad

X = np.array([[0.3, -0.7, 1.2], [0.5, 0.1, -0.2]])
T = np.array([[0.2, 0.9, 0.4], [1.0, 0.0, 0.6]])
SIGNS = np.sign(T - 0.5)


def _call(lib, name, x, dt):
    F = lib.nn.functional
    t = lib.tensor(T, dtype=dt)
    s = lib.tensor(SIGNS, dtype=dt)
    calls = {
        "binary_cross_entropy": lambda: F.binary_cross_entropy(x.sigmoid(), t),
        "binary_cross_entropy_with_logits": lambda: F.binary_cross_entropy_with_logits(x, t),
        "soft_margin_loss": lambda: F.soft_margin_loss(x, s),
        "hinge_embedding_loss": lambda: F.hinge_embedding_loss(x, s),
        "multilabel_soft_margin_loss": lambda: F.multilabel_soft_margin_loss(x, s),
        "kl_div": lambda: F.kl_div(x.log_softmax(-1), t, reduction="batchmean"),
        "cross_entropy": lambda: F.cross_entropy(x, t.softmax(-1)),
    }
    return calls.get(name, lambda: getattr(F, name)(x, t))()


def _outcome(lib, name, dx, dt):
    x = lib.tensor(X, dtype=getattr(lib, dx), requires_grad=True)
    try:
        out = _call(lib, name, x, getattr(lib, dt))
    except RuntimeError:
        return ("forward raises",)
    try:
        out.backward()
        back = "ok"
    except RuntimeError:
        back = "backward raises"
    return (str(out.dtype).split(".")[-1], back, float(out.detach()))


NAMES = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "soft_margin_loss",
         "mse_loss", "l1_loss", "smooth_l1_loss", "poisson_nll_loss", "kl_div", "cross_entropy",
         "hinge_embedding_loss", "multilabel_soft_margin_loss", "huber_loss"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dx,dt", [("float32", "float64"), ("float64", "float32")])
def test_mixed_dtype_loss_like_torch(name, dx, dt):
    want, got = _outcome(torch, name, dx, dt), _outcome(leafgrad, name, dx, dt)
    assert got[:2] == want[:2]
    if len(want) > 1:
        assert got[2] == pytest.approx(want[2], rel=1e-6)


def test_soft_margin_target_requiring_grad_refused_like_torch():
    for lib in (torch, leafgrad):
        x = lib.randn(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="not differentiable with respect to argument"):
            lib.nn.functional.soft_margin_loss(x, x.exp())


@pytest.mark.parametrize("dt", ["float64", "float16", "int64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("which", ["input", "target"])
def test_huber_loss_of_two_dtypes_like_torch(dt, reduction, which):
    # huber_loss's loss has the input's dtype and its backward refuses the mix (either
    # side's gradient), where smooth_l1_loss promotes
    res = []
    for T in (torch, leafgrad):
        x = T.linspace(-2, 2, 5, dtype=T.float32, requires_grad=which == "input")
        t = T.linspace(-1, 3, 5).to(getattr(T, dt))
        if which == "target" and dt != "int64":
            t.requires_grad_()
        if which == "target" and dt == "int64":
            pytest.skip("an integer target cannot require grad")
        y = T.nn.functional.huber_loss(x, t, reduction=reduction, delta=0.7)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        res.append((str(y.dtype), y.detach().double().sum().item(), str(e.value).split(" (")[0]))
    assert res[0] == res[1]
