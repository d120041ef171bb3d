"""What tests/fuzz/test_fuzz_optim.py found different from PyTorch, one plain test each
(compared with real torch)."""
import copy
import warnings

import numpy as np
import pytest
import torch

import leafgrad


def _opt(T, groups=1):
    ps = [T.nn.Parameter(T.zeros(2)) for _ in range(groups)]
    return T.optim.SGD([{"params": [p]} for p in ps], lr=0.1, momentum=0.9)


def _strip(sd):
    return {k: v for k, v in sd.items() if k not in ("lr_lambdas",)}


@pytest.mark.parametrize("make", [
    lambda T, o: T.optim.lr_scheduler.StepLR(o, 2),
    lambda T, o: T.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 2),
    lambda T, o: T.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=5),
    lambda T, o: T.optim.lr_scheduler.LambdaLR(o, lambda e: 0.5 ** e),
])
def test_scheduler_state_dict_keys_as_torch(make):
    """state_dict() holds '_get_lr_called_within_step' (False), in PyTorch's key order."""
    sds = []
    for T in (torch, leafgrad):
        o = _opt(T)
        s = make(T, o)
        o.step()
        s.step()
        sds.append(_strip(s.state_dict()))
    assert list(sds[1]) == list(sds[0])
    assert sds[1]["_get_lr_called_within_step"] is False


def test_get_lr_outside_step_warns_as_torch():
    msgs = []
    for T in (torch, leafgrad):
        s = T.optim.lr_scheduler.ExponentialLR(_opt(T), 0.5)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lrs = s.get_lr()
        msgs.append(([(x.category, str(x.message)) for x in w], lrs))
    assert msgs[1][0] == [(UserWarning, msgs[0][0][0][1])]
    assert msgs[1][1] == msgs[0][1]
    with warnings.catch_warnings(record=True) as w:     # within step(): silent
        warnings.simplefilter("always")
        s.optimizer.step()
        s.step()
    assert not w


def _seq(T):
    o = _opt(T)
    a = T.optim.lr_scheduler.ExponentialLR(o, 0.5)
    b = T.optim.lr_scheduler.LinearLR(o, 0.25, total_iters=2)
    return o, T.optim.lr_scheduler.SequentialLR(o, [a, b], milestones=[2])


def _chain(T):
    o = _opt(T)
    a = T.optim.lr_scheduler.ExponentialLR(o, 0.5)
    b = T.optim.lr_scheduler.ConstantLR(o, 0.5, total_iters=2)
    return o, T.optim.lr_scheduler.ChainedScheduler([a, b], optimizer=o)


@pytest.mark.parametrize("make", [_seq, _chain])
def test_wrapping_schedulers_state_dict_and_reload_as_torch(make):
    """SequentialLR / ChainedScheduler save the wrapped schedulers' states under
    '_schedulers' and load them back; a milestone switch counts no step and does not
    warn about the epoch argument."""
    out = []
    for T in (torch, leafgrad):
        rec = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            o, s = make(T)
            for _ in range(3):
                o.step()
                s.step()
                rec.append(s.get_last_lr())
            sd = copy.deepcopy(s.state_dict())
            o2, s2 = make(T)
            s2.load_state_dict(sd)
            for _ in range(3):
                o.step()
                s2.step()
                rec.append(s2.get_last_lr())
        rec.append(sd)
        rec.append([str(x.message) for x in w])
        out.append(rec)
    assert out[1] == out[0]


@pytest.mark.parametrize("cls", ["SequentialLR", "ChainedScheduler"])
def test_wrapping_reduce_on_plateau_raises_as_torch(cls):
    for T in (torch, leafgrad):
        o = _opt(T)
        r = T.optim.lr_scheduler.ReduceLROnPlateau(o)
        with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
            if cls == "SequentialLR":
                T.optim.lr_scheduler.SequentialLR(o, [r], milestones=[])
            else:
                T.optim.lr_scheduler.ChainedScheduler([r])


def test_nadam_loaded_into_float64_params_as_torch():
    """mu_product is cast to float64 by load_state_dict: later steps multiply in float64
    (they rounded mu to float32 first: 5e-12 off torch)."""
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((4, 1))
    grads = [rng.standard_normal((4, 1)) for _ in range(3)]
    out = []
    for T in (torch, leafgrad):
        p = T.nn.Parameter(T.tensor(x0.copy()))
        o = T.optim.NAdam([p], lr=0.05, momentum_decay=0.1)
        p.grad = T.tensor(grads[0].copy())
        o.step()
        sd = copy.deepcopy(o.state_dict())
        o = T.optim.NAdam([p], lr=0.05, momentum_decay=0.1)
        o.load_state_dict(sd)
        for g in grads[1:]:
            p.grad = T.tensor(g.copy())
            o.step()
        out.append((p.detach().numpy().copy(), str(o.state[p]["mu_product"].dtype)))
    np.testing.assert_array_equal(out[1][0], out[0][0])
    assert out[1][1].split(".")[-1] == out[0][1].split(".")[-1] == "float64"
