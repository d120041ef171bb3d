"""grad_fn._saved_* / _raw_saved_*, saved_tensors_hooks, save_on_cpu and
disable_saved_tensors_hooks against real PyTorch (the saved-tensors-hooks tutorial's
examples, and errors)."""
import pytest
import torch

import leafgrad
from _outcome import builtin_name


def outcome(fn):
    try:
        v = fn()
    except Exception as e:       # noqa: BLE001 - compared with torch
        return ("raise", builtin_name(type(e)))
    if hasattr(v, "tolist") and hasattr(v, "grad_fn"):
        return ("tensor", [round(x, 5) for x in v.detach().reshape(-1).tolist()],
                None if v.grad_fn is None else v.grad_fn.name())
    return v


def leaves(T):
    a = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = T.tensor([0.5, 4.0, -1.0], requires_grad=True)
    return a, b


CASES = {
    "self is a": lambda T: (lambda a, b: ((a * b).grad_fn._saved_self is a,
                                          (a * b).grad_fn._saved_other is b))(*leaves(T)),
    "saved of nonleaf": lambda T: (lambda a, b: (a * 2 * b).grad_fn._saved_self)(*leaves(T)),
    "pow saved self": lambda T: (lambda a, b: a.pow(2).grad_fn._saved_self is a)(*leaves(T)),
    "exp saved result": lambda T: (lambda a, b: a.exp().grad_fn._saved_result)(*leaves(T)),
    "mm saved mat2": lambda T: (lambda a, b: a.reshape(1, 3).mm(b.reshape(3, 1))
                                .grad_fn._saved_mat2)(*leaves(T)),
    "after backward": lambda T: (lambda a, b: (lambda y: (y.sum().backward(),
                                                          y.grad_fn._saved_self))(a * b))(*leaves(T)),
    "hooks index storage": lambda T: _storage(T),
    "hooks pack to string": lambda T: _strings(T),
    "raw register_hooks": lambda T: _raw(T),
    "raw register twice": lambda T: (lambda a, b: (lambda r: (r.register_hooks(lambda t: t, lambda t: t),
                                                              r.register_hooks(lambda t: t, lambda t: t)))(
        (a * b).grad_fn._raw_saved_self))(*leaves(T)),
    "save_on_cpu": lambda T: _cpu(T),
    "disabled": lambda T: _disabled(T),
}


def _storage(T):
    storage = []

    def pack(x):
        storage.append(x)
        return len(storage) - 1
    a, b = leaves(T)
    with T.autograd.graph.saved_tensors_hooks(pack, lambda i: storage[i]):
        y = a * a * b
    n = len(storage)
    y.sum().backward()
    return n, a.grad.tolist(), b.grad.tolist()


def _strings(T):
    a, _ = leaves(T)
    calls = []
    with T.autograd.graph.saved_tensors_hooks(lambda x: (calls.append("p"), x.tolist())[1],
                                              lambda x: (calls.append("u"), T.tensor(x))[1]):
        y = (a * a).sin()
    y.sum().backward()
    return calls, [round(v, 5) for v in a.grad.tolist()]


def _raw(T):
    a, _ = leaves(T)
    y = a.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 0 + 1, lambda t: t)
    y.sum().backward()
    return a.grad.tolist()


def _cpu(T):
    a, b = leaves(T)
    with T.autograd.graph.save_on_cpu():
        y = (a * b).sum()
    y.backward()
    return a.grad.tolist(), b.grad.tolist()


def _disabled(T):
    with T.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass


@pytest.mark.parametrize("name", sorted(CASES))
def test_like_torch(name):
    assert outcome(lambda: CASES[name](leafgrad)) == outcome(lambda: CASES[name](torch))


def test_hooks_are_per_thread_and_nest():
    import threading
    seen = []
    a, b = leaves(leafgrad)

    def other():
        y = a * b     # no hooks in this thread
        seen.append(y.grad_fn._saved_self is a)
    with leafgrad.autograd.graph.saved_tensors_hooks(lambda t: ("outer", t), lambda p: p[1]):
        with leafgrad.autograd.graph.saved_tensors_hooks(lambda t: ("inner", t),
                                                         lambda p: p[1] * 0):
            y = a * b
        th = threading.Thread(target=other)
        th.start()
        th.join()
    y.sum().backward()
    assert seen == [True]
    assert a.grad.tolist() == [0.0, 0.0, 0.0]    # the inner pair's unpack was used


def test_pack_and_unpack_order_like_torch():
    def run(T):
        log = []
        a = T.ones(3, requires_grad=True)
        b = T.ones(3, requires_grad=True) * 2
        with T.autograd.graph.saved_tensors_hooks(lambda x: (log.append(("pack", x.tolist())), x)[1],
                                                  lambda x: (log.append(("unpack", x.tolist())), x)[1]):
            y = a * b
        y.sum().backward()
        return log
    assert run(leafgrad) == run(torch)
