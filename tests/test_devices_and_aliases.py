"""The CPU-only answers of torch.accelerator / torch.cuda / torch.backends / torch.amp,
the legacy typed constructors and the NumPy-style keyword aliases, against real PyTorch."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from _outcome import builtin_name


def outcome(fn):
    """('ok', value) or ('raise', builtin exception name); warnings' categories."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            v = fn()
        except Exception as e:      # noqa: BLE001 - compared with torch
            res = ("raise", builtin_name(type(e)))
        else:
            if hasattr(v, "tolist") and hasattr(v, "dtype"):
                v = (str(v.dtype).replace("leafgrad.", "torch."), v.tolist())
            elif type(v).__name__ == "device":
                v = str(v)
            res = ("ok", v)
    return res, sorted({c.category.__name__ for c in w})


CALLS = {
    "accelerator.is_available": lambda T: T.accelerator.is_available(),
    "accelerator.current_accelerator": lambda T: T.accelerator.current_accelerator(),
    "accelerator.current_accelerator(check)": lambda T: T.accelerator.current_accelerator(True),
    "accelerator.device_count": lambda T: T.accelerator.device_count(),
    "accelerator.current_device_index": lambda T: T.accelerator.current_device_index(),
    "accelerator.synchronize": lambda T: T.accelerator.synchronize(),
    "cuda.is_available": lambda T: T.cuda.is_available(),
    "cuda.device_count": lambda T: T.cuda.device_count(),
    "cuda.is_initialized": lambda T: T.cuda.is_initialized(),
    "cuda.manual_seed": lambda T: T.cuda.manual_seed(0),
    "cuda.manual_seed_all": lambda T: T.cuda.manual_seed_all(0),
    "cuda.synchronize": lambda T: T.cuda.synchronize(),
    "cuda.current_device": lambda T: T.cuda.current_device(),
    "cuda.get_device_name": lambda T: T.cuda.get_device_name(0),
    "cuda.get_device_properties": lambda T: T.cuda.get_device_properties(0),
    "cuda.memory_allocated": lambda T: T.cuda.memory_allocated(),
    "cuda.max_memory_allocated": lambda T: T.cuda.max_memory_allocated(),
    "cuda.memory_reserved": lambda T: T.cuda.memory_reserved(),
    "cuda.reset_peak_memory_stats": lambda T: T.cuda.reset_peak_memory_stats(),
    "cuda.set_device": lambda T: T.cuda.set_device(0),
    "cuda.empty_cache": lambda T: T.cuda.empty_cache(),
    "cuda.is_bf16_supported": lambda T: T.cuda.is_bf16_supported(),
    "cudnn.is_available": lambda T: T.backends.cudnn.is_available(),
    "cudnn.version": lambda T: T.backends.cudnn.version(),
    "cudnn.flags": lambda T: (T.backends.cudnn.enabled, T.backends.cudnn.benchmark,
                              T.backends.cudnn.deterministic),
    "mps.is_available": lambda T: T.backends.mps.is_available(),
    "mps.is_built": lambda T: T.backends.mps.is_built(),
    "backends.cuda.is_built": lambda T: T.backends.cuda.is_built(),
    "default_device": lambda T: T.get_default_device(),
    "set_default_device_cpu": lambda T: (T.set_default_device("cpu"), T.get_default_device())[1],
    "amp.GradScaler_cuda": lambda T: (lambda s: (s.is_enabled(), s.get_scale(),
                                                 s.state_dict()))(T.amp.GradScaler()),
    "cuda.amp.GradScaler": lambda T: T.cuda.amp.GradScaler().is_enabled(),
    "autocast_cuda": lambda T: T.autocast("cuda").__enter__() is not None,
    "autocast_disabled": lambda T: T.autocast("cpu", enabled=False).__enter__() is not None,
    "LongTensor(list)": lambda T: T.LongTensor([1, 2]),
    "LongTensor(floats)": lambda T: T.LongTensor([2.5, -1.5]),
    "FloatTensor(ints)": lambda T: T.FloatTensor([1, 2]),
    "DoubleTensor": lambda T: T.DoubleTensor([1]),
    "IntTensor": lambda T: T.IntTensor([1]),
    "ByteTensor": lambda T: T.ByteTensor([1, 0]),
    "BoolTensor": lambda T: T.BoolTensor([1, 0]),
    "ShortTensor": lambda T: T.ShortTensor([1]),
    "CharTensor": lambda T: T.CharTensor([1]),
    "FloatTensor(2,3).shape": lambda T: (T.FloatTensor(2, 3).dtype is T.float32, tuple(T.FloatTensor(2, 3).shape)),
    "LongTensor(Size)": lambda T: (T.LongTensor(T.Size([2])).dtype is T.int64, tuple(T.LongTensor(T.Size([2])).shape)),
    "FloatTensor()": lambda T: T.FloatTensor(),
    "FloatTensor(tuple)": lambda T: T.FloatTensor((2, 3)),
    "FloatTensor(np)": lambda T: T.FloatTensor(np.array([1.5, 2.0])),
    "FloatTensor(float tensor)": lambda T: T.FloatTensor(T.tensor([1.5])),
    "LongTensor(float tensor)": lambda T: T.LongTensor(T.tensor([1.5])),
    "FloatTensor(-1)": lambda T: T.FloatTensor(-1),
    "FloatTensor(2.0)": lambda T: T.FloatTensor(2.0),
    "isinstance long": lambda T: isinstance(T.tensor([1]), T.LongTensor),
    "isinstance float as long": lambda T: isinstance(T.tensor([1.0]), T.LongTensor),
    "isinstance float": lambda T: isinstance(T.tensor([1.0]), T.FloatTensor),
    "isinstance int": lambda T: isinstance(3, T.FloatTensor),
    "type is Tensor": lambda T: type(T.LongTensor([1])) is T.Tensor,
    "repr class": lambda T: repr(T.FloatTensor),
    "x.type(LongTensor)": lambda T: T.zeros(2).type(T.LongTensor),
    "sum(axis, keepdims)": lambda T: T.ones(2, 3).sum(axis=1, keepdims=True),
    "torch.sum(axis)": lambda T: T.sum(T.ones(2, 3), axis=1),
    "mean(axis tuple)": lambda T: T.arange(6.0).reshape(2, 3).mean(axis=(0, 1)),
    "std(axis)": lambda T: T.arange(6.0).reshape(2, 3).std(axis=0),
    "max(axis)": lambda T: [t.tolist() for t in T.arange(6.0).reshape(2, 3).max(axis=1)],
    "amax(axis)": lambda T: T.arange(6.0).reshape(2, 3).amax(axis=0),
    "argmax(axis)": lambda T: T.arange(6.0).reshape(2, 3).argmax(axis=1),
    "cat(axis)": lambda T: T.cat([T.ones(2), T.zeros(2)], axis=0),
    "sum(list dim)": lambda T: T.ones(2, 3).sum([0, 1]),
    "randn(size=)": lambda T: tuple(T.randn(size=(2, 3)).shape),
    "zeros(size=)": lambda T: T.zeros(size=(2, 3)),
    "ones(size=list)": lambda T: T.ones(size=[2]),
    "sum(dim and axis)": lambda T: T.ones(2).sum(dim=0, axis=0),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_same_answer_as_torch(name):
    fn = CALLS[name]
    try:
        expected = outcome(lambda: fn(torch))
    finally:
        torch.set_default_device(None)
    assert outcome(lambda: fn(leafgrad)) == expected


def test_errors_say_why_and_fix():
    with pytest.raises(AssertionError, match="CPU only.*Fix"):
        leafgrad.cuda.synchronize()
    with pytest.raises(RuntimeError, match="Fix"):
        leafgrad.accelerator.current_device_index()
    with pytest.raises(AssertionError, match="Fix"):
        leafgrad.set_default_device("cuda")
    assert leafgrad.get_default_device() == leafgrad.device("cpu")   # unchanged
    with pytest.raises(NotImplementedError, match="enabled=False"):
        leafgrad.autocast("cpu")


def test_tutorial_device_line():
    device = (leafgrad.accelerator.current_accelerator().type
              if leafgrad.accelerator.is_available() else "cpu")
    assert device == "cpu"
    assert leafgrad.ones(2, device=device).device == leafgrad.device("cpu")


def _scaler_run(T, steps, poison_at=()):
    """A few SGD steps through GradScaler('cpu') with small growth_interval."""
    w = T.tensor([1.0, -2.0, 0.5], requires_grad=True)
    opt = T.optim.SGD([w], lr=0.1)
    scaler = T.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    x = T.tensor([0.5, 1.5, -1.0])
    trace = []
    for i in range(steps):
        opt.zero_grad()
        loss = (w * x).sum() ** 2
        if i in poison_at:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        grad = w.grad.tolist()
        scaler.step(opt)
        scaler.update()
        trace.append((grad if i not in poison_at else None, w.tolist(), scaler.get_scale()))
    return trace, scaler.state_dict()


def test_grad_scaler_cpu_matches_torch():
    a = _scaler_run(torch, 6, poison_at=(3,))
    b = _scaler_run(leafgrad, 6, poison_at=(3,))
    assert a[1] == b[1]
    for (ga, wa, sa), (gb, wb, sb) in zip(a[0], b[0]):
        assert sa == sb
        np.testing.assert_allclose(wb, wa, rtol=1e-5)
        if ga is not None:
            np.testing.assert_allclose(gb, ga, rtol=1e-5)


def test_grad_scaler_misuse_raises_like_torch():
    for T in (torch, leafgrad):
        w = T.tensor([1.0], requires_grad=True)
        opt = T.optim.SGD([w], lr=0.1)
        s = T.amp.GradScaler("cpu")
        s.scale((w * 2).sum()).backward()
        s.unscale_(opt)
        with pytest.raises(RuntimeError):
            s.unscale_(opt)
        s.step(opt)
        with pytest.raises(RuntimeError):
            s.unscale_(opt)


def test_float_of_requires_grad_tensor_warns_only_with_grad_mode_on():
    for T in (torch, leafgrad):
        x = T.tensor(2.0, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with T.no_grad():
                float(x)
        assert not w
        with pytest.warns(UserWarning, match="requires_grad=True to a scalar"):
            float(x)


def test_device_is_a_context_manager_as_torch():
    import torch as real
    for T in (real, leafgrad):
        with T.device("cpu") as d:
            assert str(d) == "cpu" and str(T.zeros(1).device) == "cpu"
            assert str(T.get_default_device()) == "cpu"
        assert str(T.get_default_device()) == "cpu"


def test_device_context_for_a_device_leafgrad_lacks_raises_and_restores():
    with pytest.raises(RuntimeError, match="Fix:"):
        with leafgrad.device("mps"):
            pass
    assert str(leafgrad.get_default_device()) == "cpu"
