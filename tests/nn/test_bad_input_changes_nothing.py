"""Bad input raises and changes nothing (issue 10 item 12): modules with buffers and
LR schedulers are checked for state changed before the error (optimizers get no bad
input at step(): a .grad of the wrong shape or dtype is refused when assigned).

The exception class is PyTorch's. Where PyTorch itself changes state before raising
(BatchNorm counts the batch, a scheduler advances its epoch), leafgrad keeps its
promise instead: nothing changes.
"""
import copy

import numpy as np
import pytest
import torch as real_torch

import leafgrad as torch
from _outcome import builtin_name


def _state(obj):
    if isinstance(obj, torch.nn.Module):
        return {k: v.detach().numpy().copy() for k, v in obj.state_dict().items()}
    return copy.deepcopy(obj.state_dict())


def _assert_same_state(before, after):
    assert before.keys() == after.keys()
    for k in before:
        np.testing.assert_array_equal(before[k], after[k], err_msg=k)


def _raises_like_torch(make, bad, lib_call):
    """``bad`` raises the same builtin class in both libraries; leafgrad's state is kept."""
    with pytest.raises(Exception) as te:
        lib_call(real_torch, make(real_torch), bad(real_torch))
    obj = make(torch)
    before = _state(obj)
    with pytest.raises(Exception) as le:
        lib_call(torch, obj, bad(torch))
    assert builtin_name(type(le.value)) == builtin_name(type(te.value))
    _assert_same_state(before, _state(obj))
    return obj


MODULE_CASES = {
    "BatchNorm1d_batch_of_1": (lambda T: T.nn.BatchNorm1d(3), lambda T: T.ones(1, 3)),
    "BatchNorm1d_cumulative_batch_of_1": (lambda T: T.nn.BatchNorm1d(3, momentum=None),
                                          lambda T: T.ones(1, 3)),
    "BatchNorm1d_3d_one_value": (lambda T: T.nn.BatchNorm1d(3), lambda T: T.ones(1, 3, 1)),
    "BatchNorm2d_one_value": (lambda T: T.nn.BatchNorm2d(2), lambda T: T.ones(1, 2, 1, 1)),
    "BatchNorm2d_wrong_channels": (lambda T: T.nn.BatchNorm2d(2), lambda T: T.ones(2, 3, 2, 2)),
    "BatchNorm1d_wrong_dims": (lambda T: T.nn.BatchNorm1d(3), lambda T: T.ones(2, 3, 2, 2)),
    "Linear_wrong_features": (lambda T: T.nn.Linear(3, 2), lambda T: T.ones(2, 4)),
    "Embedding_index_out_of_range": (lambda T: T.nn.Embedding(3, 2),
                                     lambda T: T.tensor([0, 5])),
}


@pytest.mark.parametrize("name", sorted(MODULE_CASES))
def test_module_bad_input_changes_nothing(name):
    make, bad = MODULE_CASES[name]
    m = _raises_like_torch(make, bad, lambda T, m, x: m.train()(x))
    if isinstance(m, torch.nn.modules.batchnorm.BatchNorm1d) or "BatchNorm" in name:
        # a good batch after the bad one is counted once, as the first one
        shape = (4, m.num_features) + ((2, 2) if "2d" in name else ())
        m(torch.ones(*shape))
        assert int(m.num_batches_tracked) == 1


def test_one_cycle_lr_past_total_steps_changes_nothing():
    def make(T):
        opt = T.optim.SGD([T.nn.Parameter(T.ones(1))], lr=0.1)
        sched = T.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
        opt.step()
        sched.step()
        opt.step()
        sched.step()
        return sched

    with pytest.raises(ValueError):
        make(real_torch).step()
    sched = make(torch)
    before = (sched.last_epoch, sched._step_count, sched.optimizer.param_groups[0]["lr"])
    with pytest.raises(ValueError):
        sched.step()
    assert (sched.last_epoch, sched._step_count,
            sched.optimizer.param_groups[0]["lr"]) == before
