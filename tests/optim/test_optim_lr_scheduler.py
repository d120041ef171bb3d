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


def _adam_opts(lr=0.1):
    lp, tp = lnn.Parameter(lg.ones(1)), torch.nn.Parameter(torch.ones(1))
    return (loptim.Adam([{"params": [lp]}], lr=lr), torch.optim.Adam([{"params": [tp]}], lr=lr))


def _assert_same_groups(lo, to, keys):
    for lg_, tg in zip(lo.param_groups, to.param_groups):
        for k in keys:
            assert lg_[k] == pytest.approx(tg[k], rel=1e-12, abs=1e-15), k


class _Halving:
    """A callable object as scale_fn (its __dict__ goes into state_dict)."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base ** x


CYCLIC = [
    ("sgd", dict(base_lr=0.01, max_lr=0.1, step_size_up=7)),
    ("sgd", dict(base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=5, step_size_down=11,
                 mode="triangular2", base_momentum=[0.7, 0.6], max_momentum=0.95)),
    ("sgd", dict(base_lr=0.001, max_lr=0.01, step_size_up=6, mode="exp_range", gamma=0.99)),
    ("sgd", dict(base_lr=0.001, max_lr=0.01, step_size_up=4, scale_fn=lambda x: 0.9 ** x,
                 scale_mode="iterations", cycle_momentum=False)),
    ("sgd", dict(base_lr=0.001, max_lr=0.01, step_size_up=4, scale_fn=_Halving())),
    ("adam", dict(base_lr=0.001, max_lr=0.01, step_size_up=9, mode="triangular2")),
    ("adam", dict(base_lr=0.001, max_lr=0.01, step_size_up=3, step_size_down=8,
                  mode="exp_range", gamma=0.995, base_momentum=0.85, max_momentum=0.95)),
]


@pytest.mark.parametrize("opt,kw", CYCLIC, ids=[o + str(i) for i, (o, _) in enumerate(CYCLIC)])
def test_cyclic_lr_matches_torch(opt, kw):
    if opt == "sgd":
        lo, to = opts(groups=len(kw["base_lr"]) if isinstance(kw["base_lr"], list) else 1)
        for o in (lo, to):
            for g in o.param_groups:
                g["momentum"] = 0.9
            o.defaults["momentum"] = 0.9
        keys = ["lr", "momentum"]
    else:
        lo, to = _adam_opts()
        keys = ["lr", "betas"]
    ls = loptim.lr_scheduler.CyclicLR(lo, **kw)
    ts = torch.optim.lr_scheduler.CyclicLR(to, **kw)
    _assert_same_groups(lo, to, keys)
    for _ in range(300):
        lo.step()
        to.step()
        ls.step()
        ts.step()
        assert ls.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15)
        _assert_same_groups(lo, to, keys)
    lsd, tsd = ls.state_dict(), ts.state_dict()
    assert sorted(lsd) == sorted(tsd)
    assert lsd["_scale_fn_custom"] == tsd["_scale_fn_custom"]
    # a fresh scheduler loaded from the state dict continues identically
    ls2 = loptim.lr_scheduler.CyclicLR(lo, **kw)
    ls2.load_state_dict(ls.state_dict())
    ls.step()
    a = ls.get_last_lr()
    ls2.step()
    assert ls2.get_last_lr() == a


def test_cyclic_lr_errors_as_torch():
    for lib, (lo, to) in ((loptim, opts()), (torch.optim, opts())):
        o = lo if lib is loptim else to
        with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
            lib.lr_scheduler.CyclicLR(o, 0.01, 0.1, mode="bad")
        with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
            lib.lr_scheduler.CyclicLR(lib.Adagrad(o.param_groups[0]["params"]), 0.01, 0.1)
        with pytest.raises(ValueError, match="max_lr must have the same length"):
            lib.lr_scheduler.CyclicLR(o, 0.01, [0.1, 0.2], cycle_momentum=False)


@pytest.mark.parametrize("kw", [dict(T_0=5), dict(T_0=3, T_mult=2, eta_min=0.001),
                                dict(T_0=1, T_mult=3)])
def test_cosine_warm_restarts_matches_torch(kw):
    lo, to = opts(groups=2)
    ls = loptim.lr_scheduler.CosineAnnealingWarmRestarts(lo, **kw)
    ts = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(to, **kw)
    assert ls.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12)
    for _ in range(200):
        lo.step()
        to.step()
        ls.step()
        ts.step()
        assert ls.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15)
        assert (ls.T_cur, ls.T_i, ls.last_epoch) == (ts.T_cur, ts.T_i, ts.last_epoch)
    # fractional epochs (per batch), going backwards and forwards
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no deprecation warning for step(epoch)
        for epoch in [0.0, 0.25, 2.5, 3.0, 7.75, 4.1, 20.3, 44.999, 1.0, 100.5, 0]:
            ls.step(epoch)
            ts.step(epoch)
            assert ls.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15)
            assert (ls.T_cur, ls.T_i, ls.last_epoch) == pytest.approx(
                (ts.T_cur, ts.T_i, ts.last_epoch), rel=1e-12)
    lsd, tsd = ls.state_dict(), ts.state_dict()
    assert sorted(lsd) == sorted(tsd)
    assert lsd["_step_count"] == tsd["_step_count"]


def test_cosine_warm_restarts_errors_as_torch():
    for lib, o in ((loptim, opts()[0]), (torch.optim, opts()[1])):
        S = lib.lr_scheduler.CosineAnnealingWarmRestarts
        with pytest.raises(ValueError, match="^Expected positive integer T_0, but got 0$"):
            S(o, 0)
        with pytest.raises(ValueError, match="^Expected positive integer T_0, but got 2.0$"):
            S(o, 2.0)
        with pytest.raises(ValueError, match="^Expected integer T_mult >= 1, but got 0$"):
            S(o, 2, T_mult=0)
        with pytest.raises(ValueError, match="^Expected float or int eta_min"):
            S(o, 2, eta_min="x")
        with pytest.raises(ValueError, match="^Expected non-negative epoch, but got -1$"):
            S(o, 2).step(-1)
