"""torch.func.linearize / functionalize / debug_unwrap / replace_all_batch_norm_modules_ vs
PyTorch 2.13: values, jvp_fn against torch's, errors' classes, module state."""
import numpy as np
import pytest
import torch as T
from hypothesis import given, settings, strategies as st

import leafgrad as L


def _f(t):
    return lambda a, b: (t.sin(a) * b, (a * b).sum())


@settings(max_examples=15, deadline=None)
@given(x=st.lists(st.floats(-3, 3), min_size=4, max_size=4),
       v=st.lists(st.floats(-3, 3), min_size=4, max_size=4))
def test_linearize_matches_torch(x, v):
    res = []
    for t in (T, L):
        a = t.tensor(x, dtype=t.float64)
        out, jfn = t.func.linearize(_f(t), a, a * 2)
        tv = t.tensor(v, dtype=t.float64)
        res.append((out, jfn(tv, tv * 0.5), jfn(tv * 3, tv)))
    for want, got in zip(res[0], res[1]):
        for w, g in zip(want, got):
            assert not g.requires_grad
            np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12,
                                       atol=1e-12)


@pytest.mark.parametrize("call", [lambda t, j: j(t.ones(2, dtype=t.float64), t.ones(4)),
                                  lambda t, j: j(t.ones(4, dtype=t.float64))])
def test_linearize_bad_tangents(call):
    for t in (T, L):
        _, jfn = t.func.linearize(_f(t), t.ones(4, dtype=t.float64), t.ones(4, dtype=t.float64))
        with pytest.raises(RuntimeError):
            call(t, jfn)


def test_functionalize_and_debug_unwrap():
    for t in (T, L):
        def f(a):
            a.add_(1)
            return a * 2
        y = t.zeros(2)
        g = t.func.functionalize(f)
        assert g.__name__ == "f"
        assert g(y).tolist() == [2.0, 2.0] and y.tolist() == [1.0, 1.0]
        with pytest.raises(RuntimeError):
            t.func.functionalize(f, remove="x")
        assert t.func.debug_unwrap(y) is y


def test_replace_all_batch_norm_modules_():
    for t in (T, L):
        m = t.nn.Sequential(t.nn.BatchNorm1d(3), t.nn.Linear(3, 3), t.nn.InstanceNorm1d(3, track_running_stats=True))
        assert t.func.replace_all_batch_norm_modules_(m) is m
        bn, inorm = m[0], m[2]
        assert bn.running_mean is None and bn.running_var is None
        assert bn.num_batches_tracked is None and bn.track_running_stats is False
        assert inorm.track_running_stats is True   # not a _BatchNorm in PyTorch: untouched
        m[0](t.randn(4, 3))
