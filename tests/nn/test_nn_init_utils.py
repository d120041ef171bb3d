"""nn.init (formulas, in-place, bounds) and nn.utils (clip_grad_norm_, clip_grad_value_,
parameters_to_vector) against real PyTorch."""
import math

import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn
from leafgrad.nn import init


# ------------------------------------------------------------------ init
@pytest.mark.parametrize("args", [("linear",), ("sigmoid",), ("tanh",), ("relu",),
                                  ("leaky_relu",), ("leaky_relu", 0.2), ("selu",),
                                  ("conv2d",)])
def test_calculate_gain_matches_torch(args):
    assert init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("nope")
    with pytest.raises(ValueError, match="negative_slope"):
        init.calculate_gain("leaky_relu", "x")


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2, 2), (7, 2, 3)])
def test_fan_in_fan_out_matches_torch(shape):
    assert init._calculate_fan_in_and_fan_out(lg.zeros(*shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(*shape))
    with pytest.raises(ValueError):
        init._calculate_fan_in_and_fan_out(lg.zeros(3))


def _check_uniform(t, bound):
    v = t.detach().numpy()
    assert np.abs(v).max() <= bound * (1 + 1e-6)
    assert np.abs(v).max() > 0.95 * bound
    assert abs(v.std() - bound / math.sqrt(3)) < 0.03 * bound


def _check_normal(t, std):
    v = t.detach().numpy()
    assert abs(v.mean()) < 0.05 * std
    assert abs(v.std() - std) < 0.05 * std


def test_xavier_and_kaiming_use_pytorch_formulas():
    lg.manual_seed(0)
    w = lnn.Parameter(lg.empty(200, 300))
    out = init.xavier_uniform_(w, gain=2.0)
    assert out is w and w.requires_grad and w.grad_fn is None and w.dtype == lg.float32
    _check_uniform(w, 2.0 * math.sqrt(6 / 500))
    init.xavier_normal_(w)
    _check_normal(w, math.sqrt(2 / 500))
    init.kaiming_uniform_(w, a=math.sqrt(5))
    _check_uniform(w, 1 / math.sqrt(300))
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    _check_normal(w, math.sqrt(2) / math.sqrt(200))
    with pytest.raises(ValueError, match="Mode"):
        init.kaiming_uniform_(w, mode="bad")


def test_simple_fills_and_version_bump():
    w = lg.empty(3, 4)
    v0 = w._version
    init.constant_(w, 0.5)
    assert np.all(w.numpy() == 0.5) and w._version > v0
    init.ones_(w)
    assert np.all(w.numpy() == 1)
    init.zeros_(w)
    assert not w.numpy().any()
    init.eye_(w)
    np.testing.assert_array_equal(w.numpy(), np.eye(3, 4))
    with pytest.raises(ValueError):
        init.eye_(lg.zeros(2, 2, 2))
    init.uniform_(w, -0.1, 0.3)
    assert w.numpy().min() >= -0.1 and w.numpy().max() <= 0.3
    init.normal_(w, 3.0, 0.01)
    assert abs(w.numpy().mean() - 3.0) < 0.05


def test_trunc_normal_and_orthogonal():
    lg.manual_seed(3)
    w = lg.empty(100, 100)
    init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert w.numpy().min() >= -0.5 and w.numpy().max() <= 0.5
    q = lg.empty(4, 6)
    init.orthogonal_(q)
    np.testing.assert_allclose(q.numpy() @ q.numpy().T, np.eye(4), atol=1e-5)


def test_init_is_reproducible_with_manual_seed():
    lg.manual_seed(42)
    a = lnn.Linear(3, 3).weight.detach().numpy().copy()
    lg.manual_seed(42)
    b = lnn.Linear(3, 3).weight.detach().numpy().copy()
    np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------- clip_grad
def _pair_with_grads(seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (4,), (2, 2)]
    tps, lps = [], []
    for s in shapes:
        v = rng.standard_normal(s).astype(np.float32)
        g = (rng.standard_normal(s) * scale).astype(np.float32)
        tp = torch.nn.Parameter(torch.tensor(v))
        tp.grad = torch.tensor(g)
        lp = lnn.Parameter(lg.tensor(v))
        lp.grad = lg.tensor(g)
        tps.append(tp)
        lps.append(lp)
    return tps, lps


@pytest.mark.parametrize("max_norm,norm_type", [(1.0, 2.0), (100.0, 2.0), (0.5, 1), (0.3, "inf"),
                                                 (2.0, 3.0)])
def test_clip_grad_norm_matches_torch(max_norm, norm_type):
    norm_type = float(norm_type)
    tps, lps = _pair_with_grads()
    tn = torch.nn.utils.clip_grad_norm_(tps, max_norm, norm_type)
    ln = lnn.utils.clip_grad_norm_(iter(lps), max_norm, norm_type)     # a generator works
    assert isinstance(ln, lg.Tensor) and ln.dim() == 0 and ln.dtype == lg.float32
    np.testing.assert_allclose(ln.item(), tn.item(), rtol=1e-6)
    for t, l in zip(tps, lps):
        np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_clip_grad_norm_skips_missing_grads_and_accepts_tensor():
    tps, lps = _pair_with_grads()
    tps[1].grad = None
    lps[1].grad = None
    tn = torch.nn.utils.clip_grad_norm_(tps, 0.1)
    ln = lnn.utils.clip_grad_norm_(lps, 0.1)
    np.testing.assert_allclose(ln.item(), tn.item(), rtol=1e-6)
    assert lps[1].grad is None
    single = lnn.utils.clip_grad_norm_(lps[0], 1e9)
    np.testing.assert_allclose(single.item(), np.linalg.norm(lps[0].grad.numpy()), rtol=1e-6)
    assert lnn.utils.clip_grad_norm_([lnn.Parameter(lg.ones(2))], 1.0).item() == 0.0


def test_clip_grad_norm_nonfinite():
    tps, lps = _pair_with_grads()
    lps[0].grad.numpy()[0, 0] = float("inf")
    before = [p.grad.numpy().copy() for p in lps]
    with pytest.raises(RuntimeError, match="non-finite"):
        lnn.utils.clip_grad_norm_(lps, 1.0, error_if_nonfinite=True)
    for b, p in zip(before, lps):
        np.testing.assert_array_equal(b, p.grad.numpy())          # nothing changed
    tps[0].grad[0, 0] = float("inf")
    tn = torch.nn.utils.clip_grad_norm_(tps, 1.0)
    ln = lnn.utils.clip_grad_norm_(lps, 1.0)
    assert math.isinf(tn.item()) and math.isinf(ln.item())


def test_clip_grad_value_matches_torch():
    tps, lps = _pair_with_grads(scale=3.0)
    assert torch.nn.utils.clip_grad_value_(tps, 0.7) is None
    assert lnn.utils.clip_grad_value_(lps, 0.7) is None
    for t, l in zip(tps, lps):
        np.testing.assert_array_equal(l.grad.numpy(), t.grad.numpy())


def test_parameters_to_vector_roundtrip():
    tps, lps = _pair_with_grads()
    tv = torch.nn.utils.parameters_to_vector(tps)
    lv = lnn.utils.parameters_to_vector(lps)
    np.testing.assert_array_equal(lv.detach().numpy(), tv.detach().numpy())
    lv.sum().backward()                                # differentiable, like torch
    new = lg.arange(lv.numel()).float()
    lnn.utils.vector_to_parameters(new, lps)
    np.testing.assert_array_equal(lps[0].detach().numpy().ravel(), np.arange(12))
    np.testing.assert_array_equal(lps[2].detach().numpy().ravel(), np.arange(16, 20))
    with pytest.raises(TypeError):
        lnn.utils.vector_to_parameters([1.0], lps)
