"""Grad mode is per thread (as PyTorch): training in one thread beside evaluation
under ``no_grad`` / ``inference_mode`` / ``set_grad_enabled(False)`` in another.

The two threads meet at a barrier inside every evaluation block, so each training
step runs while the other thread is inside its no-grad block (with process-wide
flags that step would record nothing and backward would raise). Results must be
bit-identical to running the same two loops one after the other.
"""
import sys
import threading

import numpy as np
import pytest
import torch as real_torch

import leafgrad as torch

STEPS = 25


def _model(seed):
    rng = np.random.default_rng(seed)
    m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(0.3 * rng.standard_normal(tuple(p.shape)), dtype=torch.float32))
    return m


def _data(seed):
    rng = np.random.default_rng(seed)
    return (torch.tensor(rng.standard_normal((STEPS, 16, 4)).astype(np.float32)),
            torch.tensor(rng.standard_normal((STEPS, 16, 1)).astype(np.float32)))


def _train(step_done=None):
    """SGD on its own model; returns the losses and the final parameters."""
    m, (xs, ys) = _model(0), _data(1)
    opt = torch.optim.SGD(m.parameters(), lr=0.02, momentum=0.5)
    losses = []
    for i in range(STEPS):
        if step_done is not None:
            step_done[0]()          # the evaluator is now inside its no-grad block
        assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(xs[i]), ys[i])
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step_done is not None:
            step_done[1]()          # let the evaluator leave its block
    return losses, [p.detach().numpy().copy() for p in m.parameters()]


_MODES = (torch.no_grad, torch.inference_mode, lambda: torch.set_grad_enabled(False))


def _evaluate(step_done=None):
    """Evaluation of another model, each step under one of the no-grad modes."""
    m, (xs, _) = _model(2), _data(3)
    m.eval()
    outs = []
    for i in range(STEPS):
        with _MODES[i % 3]():
            if step_done is not None:
                step_done[0]()
                step_done[1]()      # the trainer ran a whole step meanwhile
            out = m(xs[i])
            assert not out.requires_grad and not torch.is_grad_enabled()
            # an in-place parameter update, as an optimizer does under no_grad
            m[0].bias.mul_(0.99)
            outs.append(out.numpy().copy())
        assert torch.is_grad_enabled()
    return outs


def _run_in_threads():
    barrier = threading.Barrier(2, timeout=60)
    sync = (barrier.wait, barrier.wait)
    results, errors = {}, []

    def target(name, fn):
        try:
            results[name] = fn(sync)
        except BaseException as e:   # noqa: BLE001 - reported in the main thread
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=target, args=("train", _train)),
               threading.Thread(target=target, args=("eval", _evaluate))]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)      # switch threads as often as possible
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    if errors:
        raise errors[0]
    return results["train"], results["eval"]


def test_training_beside_no_grad_evaluation_matches_sequential_run():
    seq_train, seq_eval = _train(), _evaluate()
    assert np.isfinite(seq_train[0]).all() and seq_train[0][-1] < seq_train[0][0]
    thr_train, thr_eval = _run_in_threads()
    assert thr_train[0] == seq_train[0]
    for a, b in zip(thr_train[1], seq_train[1]):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(thr_eval, seq_eval):
        np.testing.assert_array_equal(a, b)


def _flags_seen_by_new_thread(T):
    seen = {}

    def look():
        x = T.ones(1, requires_grad=True)
        seen.update(grad=T.is_grad_enabled(), inference=T.is_inference_mode_enabled(),
                    records=(x * 2).requires_grad, anomaly=T.is_anomaly_enabled())

    t = threading.Thread(target=look)
    t.start()
    t.join()
    return seen


@pytest.mark.parametrize("mode", ["no_grad", "set_grad_enabled", "inference_mode", "anomaly"])
def test_mode_flags_seen_by_another_thread_match_torch(mode):
    """A new thread starts with the default grad and inference mode whatever the
    starting thread set; anomaly mode is process-wide in PyTorch 2.13 (a static flag),
    so it is here too."""
    results = []
    for T in (real_torch, torch):
        if mode == "no_grad":
            with T.no_grad():
                results.append(_flags_seen_by_new_thread(T))
        elif mode == "set_grad_enabled":
            T.set_grad_enabled(False)
            try:
                results.append(_flags_seen_by_new_thread(T))
            finally:
                T.set_grad_enabled(True)
        elif mode == "inference_mode":
            with T.inference_mode():
                results.append(_flags_seen_by_new_thread(T))
        else:
            T.autograd.set_detect_anomaly(True)
            try:
                results.append(_flags_seen_by_new_thread(T))
            finally:
                T.autograd.set_detect_anomaly(False)
    assert results[1] == results[0]
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
