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


ONE_CYCLE = [
    ("SGD", dict(max_lr=0.5, total_steps=300)),
    ("SGD", dict(max_lr=[0.5, 0.2], total_steps=250, anneal_strategy="linear",
                 pct_start=0.25)),
    ("SGD", dict(max_lr=1.0, epochs=10, steps_per_epoch=30, three_phase=True,
                 base_momentum=0.8, max_momentum=[0.9, 0.95])),
    ("SGD", dict(max_lr=0.3, total_steps=200, cycle_momentum=False, div_factor=10.0,
                 final_div_factor=100.0)),
    ("Adam", dict(max_lr=0.01, total_steps=300)),
    ("Adam", dict(max_lr=0.01, total_steps=301, three_phase=True, anneal_strategy="linear")),
    ("AdamW", dict(max_lr=[0.02, 0.01], total_steps=120, pct_start=0.5)),
]


def _one_cycle_pair(opt_name, kw):
    import numpy as np
    rng = np.random.default_rng(0)
    w0 = [rng.normal(size=(3,)).astype(np.float32) for _ in range(2)]
    lps = [lnn.Parameter(lg.tensor(w)) for w in w0]
    tps = [torch.nn.Parameter(torch.tensor(w)) for w in w0]
    extra = {"momentum": 0.9} if opt_name == "SGD" else {}
    lo = getattr(loptim, opt_name)([{"params": [p]} for p in lps], lr=0.1, **extra)
    to = getattr(torch.optim, opt_name)([{"params": [p]} for p in tps], lr=0.1, **extra)
    return (lo, lps, loptim.lr_scheduler.OneCycleLR(lo, **kw),
            to, tps, torch.optim.lr_scheduler.OneCycleLR(to, **kw))


@pytest.mark.parametrize("opt_name,kw", ONE_CYCLE, ids=[str(i) for i in range(len(ONE_CYCLE))])
def test_one_cycle_matches_torch(opt_name, kw):
    """The lr and momentum (beta1) trajectories over the whole cycle, and the weights
    they train (a quadratic loss), step for step; then stepping past the end raises."""
    lo, lps, ls, to, tps, ts = _one_cycle_pair(opt_name, kw)
    key = "momentum" if opt_name == "SGD" else "betas"
    total = ts.total_steps
    for step in range(total):
        assert ls.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-18), step
        for gl, gt in zip(lo.param_groups, to.param_groups):
            assert gl[key] == pytest.approx(gt[key], rel=1e-12), step
        for lp, tp in zip(lps, tps):
            ((lp - 1.0) ** 2).sum().backward()
            ((tp - 1.0) ** 2).sum().backward()
        lo.step()
        to.step()
        lo.zero_grad()
        to.zero_grad()
        if step < total - 1:
            ls.step()
            ts.step()
    for lp, tp in zip(lps, tps):
        assert lp.detach().numpy() == pytest.approx(tp.detach().numpy(), rel=1e-4, abs=1e-6)
    ls.step()
    ts.step()
    assert ls.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-18)
    with pytest.raises(ValueError, match="Tried to step"):
        ls.step()
    with pytest.raises(ValueError, match="Tried to step"):
        ts.step()
    sd = ls.state_dict()
    assert sd["total_steps"] == total and sd["_schedule_phases"] == ts.state_dict()[
        "_schedule_phases"]


def test_one_cycle_errors_as_torch():
    for bad in (dict(max_lr=0.1), dict(max_lr=0.1, total_steps=0),
                dict(max_lr=0.1, epochs=2, steps_per_epoch=0),
                dict(max_lr=0.1, total_steps=10, pct_start=1),
                dict(max_lr=0.1, total_steps=10, anneal_strategy="step"),
                dict(max_lr=[0.1, 0.2], total_steps=10)):
        lo, to = opts()
        with pytest.raises(ValueError):
            torch.optim.lr_scheduler.OneCycleLR(to, **bad)
        with pytest.raises(ValueError):
            loptim.lr_scheduler.OneCycleLR(lo, **bad)
    lp = lnn.Parameter(lg.ones(1))
    with pytest.raises(ValueError, match="cycle_momentum=False"):
        loptim.lr_scheduler.OneCycleLR(loptim.Adagrad([lp]), max_lr=0.1, total_steps=5)
    loptim.lr_scheduler.OneCycleLR(loptim.Adagrad([lp]), max_lr=0.1, total_steps=5,
                                   cycle_momentum=False)
