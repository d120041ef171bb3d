"""Module backward hooks against real PyTorch: full hooks and pre-hooks (what they see,
replacing grad_input / grad_output, no input requiring grad, removal), the older
register_backward_hook (grad_input of the output's node, its FutureWarning), mixing them."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from _outcome import builtin_name


def shapes(gs):
    return [None if g is None else (tuple(g.shape), [round(v, 4) for v in g.reshape(-1).tolist()])
            for g in gs]


def values(t):
    # float32 GEMM sums: the last bits depend on the CPU's BLAS kernel (PyTorch's MKL and
    # NumPy's OpenBLAS block differently; a sum that cancels gives 0 or 6e-8), so compare
    # to 4 decimals, as shapes() does
    return [round(v, 4) for v in t.reshape(-1).tolist()]


def linear(T):
    m = T.nn.Linear(3, 2)
    with T.no_grad():
        m.weight.copy_(T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]]))
        m.bias.copy_(T.tensor([0.1, -0.2]))
    return m


def x_in(T, rg=True):
    return T.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3), requires_grad=rg)


def run(fn):
    res = []
    for T in (leafgrad, torch):
        log = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                out = fn(T, log)
            except Exception as e:      # noqa: BLE001 - compared with torch
                out = ("raise", builtin_name(type(e)))
        res.append((out, log, sorted({c.category.__name__ for c in w})))
    return res


def full_hook(T, log):
    m = linear(T)
    m.register_full_backward_hook(lambda mod, gi, go: log.append(("hook", shapes(gi), shapes(go))))
    x = x_in(T)
    y = m(x)
    log.append(y.grad_fn.name())
    (y * T.tensor([1.0, 2.0])).sum().backward()
    return x.grad.tolist()


def replace_grad_input(T, log):
    m = linear(T)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 10,))
    x = x_in(T)
    m(x).sum().backward()
    return x.grad.tolist(), m.weight.grad.tolist()


def pre_hook(T, log):
    m = linear(T)
    m.register_full_backward_pre_hook(lambda mod, go: (log.append(shapes(go)), (go[0] * 3,))[1])
    m.register_full_backward_hook(lambda mod, gi, go: log.append(("after", shapes(go))))
    x = x_in(T)
    m(x).sum().backward()
    return values(x.grad), values(m.weight.grad)


def no_input_grad(T, log):
    m = linear(T)
    m.register_full_backward_hook(lambda mod, gi, go: log.append((shapes(gi), shapes(go))))
    m(x_in(T, False)).sum().backward()
    return m.bias.grad.tolist()


def removed(T, log):
    m = linear(T)
    h = m.register_full_backward_hook(lambda mod, gi, go: log.append("called"))
    h.remove()
    m(x_in(T)).sum().backward()
    return log


def two_inputs(T, log):
    class Bi(T.nn.Module):
        def forward(self, a, k, b):
            return a * k + b.exp()
    m = Bi()
    m.register_full_backward_hook(lambda mod, gi, go: log.append(shapes(gi)))
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = T.tensor([0.5, -0.5])
    m(a, 3.0, b).sum().backward()
    return a.grad.tolist()


def old_hook_linear(T, log):
    m = linear(T)
    m.register_backward_hook(lambda mod, gi, go: log.append((shapes(gi), shapes(go))))
    m(x_in(T)).sum().backward()
    return m.weight.grad.tolist()


def old_hook_sequential(T, log):
    m = T.nn.Sequential(linear(T), T.nn.ReLU())
    m.register_backward_hook(lambda mod, gi, go: log.append((shapes(gi), shapes(go))))
    m(x_in(T)).sum().backward()
    return 0


def mixing(T, log):
    m = linear(T)
    m.register_backward_hook(lambda *a: None)
    m.register_full_backward_hook(lambda *a: None)


@pytest.mark.parametrize("case", [full_hook, replace_grad_input, pre_hook, no_input_grad, removed,
                                  two_inputs, old_hook_linear, old_hook_sequential, mixing])
def test_like_torch(case):
    a, b = run(case)
    assert a == b


def test_grad_input_entries_for_every_argument():
    def case(T, log):
        class Tri(T.nn.Module):
            def forward(self, c, a, k):
                return c.sin() + a * k
        m = Tri()
        m.register_full_backward_hook(lambda mod, gi, go: log.append(shapes(gi)))
        a = T.tensor([1.0, 2.0], requires_grad=True)
        m(T.tensor([0.5, -0.5]), a, 2.0).sum().backward()
        return a.grad.tolist()
    a, b = run(case)
    assert a == b
