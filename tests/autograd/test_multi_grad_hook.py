"""torch.autograd.graph.register_multi_grad_hook ("all" and "any") against real torch 2.13:
which gradients each backward pass hands over, their values, once per pass, removal,
errors."""
import numpy as np
import torch

import leafgrad
from _outcome import builtin_name

A = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
B = np.array([[2.0, 0.5, -1.0], [0.125, 3.0, 1.0]])


def _log_grads(log, tag):
    def fn(grads):
        log.append((tag, [None if g is None else np.array(g.numpy(), copy=True)
                          for g in grads]))
    return fn


def _all_mode(T):
    log = []
    a = T.tensor(A, requires_grad=True)
    b = T.tensor(B, requires_grad=True)
    c = a * b
    d = a * b
    h = T.autograd.graph.register_multi_grad_hook((a, b, c, d), _log_grads(log, "abcd"))
    hcd = T.autograd.graph.register_multi_grad_hook((c, d), _log_grads(log, "cd"))
    c.sum().backward(retain_graph=True)
    (c * 2).sum().backward(inputs=(a,), retain_graph=True)
    (c.sum() + (d * 3).sum()).backward(retain_graph=True)
    try:
        T.autograd.grad(c.sum(), (a,), retain_graph=True)
    except RuntimeError as e:
        log.append(("grad-leaf", str(e).split(" Fix:")[0]))
    T.autograd.grad((c * c).sum(), (c,), retain_graph=True)
    h.remove()
    hcd.remove()
    c.sum().backward(retain_graph=True)
    log.append(("removed", None))
    e = (c * d).sum()       # a hook on tensors of a graph made after the hook is set
    h2 = T.autograd.graph.register_multi_grad_hook((c, d), _log_grads(log, "cd2"))
    e.backward(retain_graph=True)
    with h2:
        pass
    e.backward()
    return log, np.array(a.grad.numpy(), copy=True)


def _same(got, want):
    assert len(got) == len(want)
    for (gt, gv), (wt, wv) in zip(got, want):
        assert gt == wt
        if isinstance(wv, list):
            assert len(gv) == len(wv)
            for x, y in zip(gv, wv):
                if y is None:
                    assert x is None, gt
                else:
                    np.testing.assert_allclose(x, y, err_msg=gt)
        else:
            assert gv == wv


def test_all_mode_matches_torch():
    (got, ga), (want, wa) = _all_mode(leafgrad), _all_mode(torch)
    _same(got, want)
    np.testing.assert_allclose(ga, wa)


def _any_mode(T):
    log = []
    a = T.tensor(A, requires_grad=True)
    c = a * 2
    k = T.tensor(B)         # does not require grad: "any" skips it

    def fany(g):
        log.append(np.array(g.numpy(), copy=True))
    h = T.autograd.graph.register_multi_grad_hook((a, c, k), fany, mode="any")
    (c * 3).sum().backward(retain_graph=True)
    (a * 5).sum().backward(retain_graph=True)
    h.remove()
    (c * 3).sum().backward()
    return log


def test_any_mode_matches_torch():
    got, want = _any_mode(leafgrad), _any_mode(torch)
    assert len(got) == len(want) == 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)


def _errors(T):
    out = []
    a = T.tensor(A, requires_grad=True)
    for call in (lambda: T.autograd.graph.register_multi_grad_hook((a,), print, mode="x"),
                 lambda: T.autograd.graph.register_multi_grad_hook((a, T.ones(2)), print)):
        try:
            call()
            out.append("ok")
        except Exception as e:      # noqa: BLE001 - compared with torch
            out.append((builtin_name(type(e)), str(e).split(" (a tensor")[0]))
    return out


def test_errors_match_torch():
    assert _errors(leafgrad) == _errors(torch)
