"""What libraries built on torch reach for around hooks and global flags, as PyTorch:
``torch.utils.hooks`` (torchinfo imports RemovableHandle), the deterministic-algorithm
flags (torchmetrics asks before bincount), ``torch._C._log_api_usage_once`` (every
torchmetrics Metric), ``sys.getsizeof`` of a storage (torchinfo's input size)."""
import pickle
import sys
import warnings
from collections import OrderedDict

import pytest
import torch

import leafgrad


@pytest.mark.parametrize("T", [torch, leafgrad], ids=["torch", "leafgrad"])
def test_removable_handle_removes_from_every_dict(T):
    from importlib import import_module
    hooks = import_module(T.__name__ + ".utils.hooks")
    assert hooks.__all__ == ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks",
                             "BackwardHook"]
    main, a, b = OrderedDict(), OrderedDict(), OrderedDict()
    h = hooks.RemovableHandle(main, extra_dict=[a, b])
    h2 = hooks.RemovableHandle(main, extra_dict=a)
    assert h2.id == h.id + 1
    for d in (main, a, b):
        d[h.id] = d[h2.id] = "hook"
    with h:
        pass
    assert list(main) == list(a) == [h2.id] and list(b) == [h2.id]
    h2.remove()
    h2.remove()                     # twice: nothing left, no error
    assert not main and not a
    # pickled with its dicts; a handle whose dict died removes nothing
    main[7] = "x"
    h3 = pickle.loads(pickle.dumps(hooks.RemovableHandle(main)))
    assert hooks.RemovableHandle.next_id > h3.id


def test_module_hooks_use_torch_utils_hooks_handle():
    from leafgrad.utils.hooks import RemovableHandle
    m = leafgrad.nn.Linear(2, 2)
    calls = []
    h = m.register_forward_hook(lambda mod, args, kwargs, out: calls.append(1),
                                with_kwargs=True, always_call=True)
    assert isinstance(h, RemovableHandle)
    m(leafgrad.ones(1, 2))
    h.remove()
    m(leafgrad.ones(1, 2))
    assert calls == [1]
    assert not m._forward_hooks and not m._forward_hooks_with_kwargs
    assert not m._forward_hooks_always_called


@pytest.mark.parametrize("T", [torch, leafgrad], ids=["torch", "leafgrad"])
def test_warn_if_has_hooks(T):
    from importlib import import_module
    hooks = import_module(T.__name__ + ".utils.hooks")

    class Holder:
        _backward_hooks = OrderedDict([(0, lambda g: g)])
    with pytest.warns(UserWarning, match="will not be serialized"):
        hooks.warn_if_has_hooks(Holder())
    Holder._backward_hooks[0] = hooks.unserializable_hook(lambda g: g)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hooks.warn_if_has_hooks(Holder())


def _flags(T):
    return (T.are_deterministic_algorithms_enabled(),
            T.is_deterministic_algorithms_warn_only_enabled(), T.get_deterministic_debug_mode())


def _outcome(f):
    try:
        f()
        return None
    except Exception as e:  # noqa: BLE001 - compared with torch
        return type(e)


def test_deterministic_flags_as_torch():
    steps = [lambda T: T.use_deterministic_algorithms(True),
             lambda T: T.use_deterministic_algorithms(True, warn_only=True),
             lambda T: T.set_deterministic_debug_mode("error"),
             lambda T: T.set_deterministic_debug_mode(1),
             lambda T: T.set_deterministic_debug_mode("nope"),
             lambda T: T.set_deterministic_debug_mode(3),
             lambda T: T.use_deterministic_algorithms(1),
             lambda T: T.set_deterministic_debug_mode("default")]
    try:
        for step in steps:
            got = [(_outcome(lambda: step(T)), _flags(T)) for T in (torch, leafgrad)]
            assert got[0] == got[1]
    finally:
        torch.use_deterministic_algorithms(False)
        leafgrad.use_deterministic_algorithms(False)


def test_log_api_usage_once_is_silent():
    assert leafgrad._C._log_api_usage_once("torchmetrics.metric.Accuracy") is None


@pytest.mark.parametrize("n", [1, 100, 12345])
def test_getsizeof_storage_counts_its_bytes(n):
    sizes = [sys.getsizeof(T.zeros(n).untyped_storage()) for T in (torch, leafgrad)]
    overhead = [s - 4 * n for s in sizes]
    assert 0 < overhead[1] < 200 and abs(overhead[0] - overhead[1]) < 100
