"""LRScheduler.step = counting/warnings + _update_lr, as PyTorch 2.13: SequentialLR's
milestone step neither warns nor counts, state_dict() holds _get_lr_called_within_step, and
get_lr() called from outside a step warns. Against PyTorch."""
import warnings

import pytest
import torch

import leafgrad


def _cases(T):
    L = T.optim.lr_scheduler
    return {
        "step": lambda o: L.StepLR(o, 2, 0.5), "multistep": lambda o: L.MultiStepLR(o, [1, 3]),
        "exp": lambda o: L.ExponentialLR(o, 0.9), "cos": lambda o: L.CosineAnnealingLR(o, 3),
        "lambda": lambda o: L.LambdaLR(o, lambda e: 1 / (e + 1)),
        "const": lambda o: L.ConstantLR(o, 0.5, 2), "linear": lambda o: L.LinearLR(o, 0.2, 1.0, 3),
        "poly": lambda o: L.PolynomialLR(o, 4, 2.0),
        "onecycle": lambda o: L.OneCycleLR(o, 1.0, total_steps=10),
        "cyclic": lambda o: L.CyclicLR(o, 0.01, 0.1, step_size_up=2),
        "warm": lambda o: L.CosineAnnealingWarmRestarts(o, 2, 2),
        "seq": lambda o: L.SequentialLR(o, [L.ConstantLR(o, 0.5, 2), L.ExponentialLR(o, 0.5)], [2]),
    }


def _run(T, name):
    o = T.optim.SGD([T.nn.Parameter(T.ones(1))], lr=0.1, momentum=0.9)
    s = _cases(T)[name](o)
    lrs = []
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        for _ in range(6):
            o.step()
            s.step()
            lrs.append(s.get_last_lr())
    sd = {k: v for k, v in s.state_dict().items() if k != "_schedulers"}
    return lrs, sd, [str(w.message)[:40] for w in got], s


@pytest.mark.parametrize("name", sorted(_cases(torch)))
def test_steps_state_and_warnings(name):
    tl, tsd, tw, _ = _run(torch, name)
    ll, lsd, lw, _ = _run(leafgrad, name)
    assert [v for s in ll for v in s] == pytest.approx([v for s in tl for v in s], rel=1e-12, abs=1e-15)
    assert list(lsd) == list(tsd)
    for k in ("last_epoch", "_step_count", "_get_lr_called_within_step", "_is_initial"):
        assert lsd.get(k) == tsd.get(k), k
    assert lw == tw


@pytest.mark.parametrize("name", ["step", "cos", "onecycle", "warm"])
def test_get_lr_outside_step_warns(name):
    *_, ts = _run(torch, name)
    *_, ls = _run(leafgrad, name)
    with pytest.warns(UserWarning, match="get_last_lr"):
        theirs = ts.get_lr()
    with pytest.warns(UserWarning, match="get_last_lr") as got:
        ours = ls.get_lr()
    assert got[0].filename == __file__
    assert ours == pytest.approx(theirs, rel=1e-12)
