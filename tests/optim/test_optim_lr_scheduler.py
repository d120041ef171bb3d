"""lr_scheduler against real PyTorch: the same learning-rate sequence from get_last_lr()."""
import warnings

import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn
import leafgrad.optim as loptim


def opts(lr=0.1, groups=1):
    lps = [lnn.Parameter(lg.ones(1)) for _ in range(groups)]
    tps = [torch.nn.Parameter(torch.ones(1)) for _ in range(groups)]
    lo = loptim.SGD([{"params": [p], "lr": lr * (i + 1)} for i, p in enumerate(lps)], lr=lr)
    to = torch.optim.SGD([{"params": [p], "lr": lr * (i + 1)} for i, p in enumerate(tps)], lr=lr)
    return lo, to


SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 8], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=4, eta_min=0.01)),
    ("CosineAnnealingLR", dict(T_max=10)),
    ("LambdaLR", dict(lr_lambda=lambda e: 1.0 / (e + 1))),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.95)),
    ("ConstantLR", dict(factor=0.5, total_iters=3)),
    ("LinearLR", dict(start_factor=0.25, total_iters=4)),
    ("PolynomialLR", dict(total_iters=5, power=2.0)),
]


@pytest.mark.parametrize("name,kw", SCHEDULERS,
                         ids=[n + str(i) for i, (n, _) in enumerate(SCHEDULERS)])
def test_schedule_matches_torch(name, kw):
    lo, to = opts(groups=2)
    ls = getattr(loptim.lr_scheduler, name)(lo, **kw)
    ts = getattr(torch.optim.lr_scheduler, name)(to, **kw)
    assert ls.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
    for _ in range(12):
        lo.step()
        to.step()
        ls.step()
        ts.step()
        assert ls.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15)
        assert [g["lr"] for g in lo.param_groups] == pytest.approx(
            [g["lr"] for g in to.param_groups], rel=1e-12, abs=1e-15)
    assert lo.param_groups[0]["initial_lr"] == to.param_groups[0]["initial_lr"]


def test_reduce_lr_on_plateau_matches_torch():
    lo, to = opts()
    ls = loptim.lr_scheduler.ReduceLROnPlateau(lo, patience=1, factor=0.5, cooldown=1,
                                                min_lr=0.02)
    ts = torch.optim.lr_scheduler.ReduceLROnPlateau(to, patience=1, factor=0.5, cooldown=1,
                                                    min_lr=0.02)
    for metric in [1.0, 0.9, 0.95, 0.95, 0.96, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6]:
        ls.step(metric)
        ts.step(metric)
        assert ls.get_last_lr() == pytest.approx(ts.get_last_lr())
    assert ls.get_last_lr()[0] < 0.1
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        loptim.lr_scheduler.ReduceLROnPlateau(lo, factor=1.5)


def test_warns_when_scheduler_steps_before_optimizer():
    lo, _ = opts()
    ls = loptim.lr_scheduler.StepLR(lo, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        ls.step()
    lo2, _ = opts()
    ls2 = loptim.lr_scheduler.StepLR(lo2, 2)
    lo2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ls2.step()


def test_scheduler_state_dict_and_errors():
    lo, _ = opts()
    ls = loptim.lr_scheduler.StepLR(lo, 2)
    for _ in range(3):
        lo.step()
        ls.step()
    sd = ls.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 3
    with pytest.raises(TypeError, match="is not an Optimizer"):
        loptim.lr_scheduler.StepLR(object(), 2)
    with pytest.raises(KeyError, match="initial_lr"):
        loptim.lr_scheduler.StepLR(opts()[0], 2, last_epoch=3)
