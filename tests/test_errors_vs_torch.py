"""Misuse raises what PyTorch raises (the same exception class, or a subclass of it) with a
message that keeps PyTorch's words and adds a Fix; and the bad call changes nothing."""
import numpy as np
import pytest
import torch

import leafgrad as lg


def raises_like_torch(call, torch_words=None):
    """call(lib) raises under both; leafgrad's error is an instance of torch's class, and
    its message names torch's cause (torch_words, default torch's whole message) and a Fix."""
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(Exception) as le:
        call(lg)
    assert isinstance(le.value, type(te.value)), (type(le.value), type(te.value))
    words = str(te.value) if torch_words is None else torch_words
    assert words in str(te.value)
    assert words in str(le.value), str(le.value)
    assert "Fix" in str(le.value), str(le.value)
    return le.value


@pytest.mark.parametrize("fn", ["std", "var"])
@pytest.mark.parametrize("make", [lambda t: t.tensor([1, 2, 3]), lambda t: t.tensor([[True], [False]]),
                                  lambda t: t.tensor([1, 2], dtype=t.int32)])
@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": 0, "correction": 0}])
def test_std_var_of_integer_tensors(fn, make, kw):
    raises_like_torch(lambda t: getattr(make(t), fn)(**kw))
    raises_like_torch(lambda t: getattr(t, fn)(make(t), **kw))


@pytest.mark.parametrize("call", [
    lambda t: t.ones(2).cuda(), lambda t: t.ones(2).to("cuda"), lambda t: t.ones(2).to("cuda:0"),
    lambda t: t.ones(2).to(device="cuda"), lambda t: t.ones(2).to(t.device("cuda")),
    lambda t: t.ones(2, device="cuda"), lambda t: t.zeros(2, device=t.device("cuda", 0)),
    lambda t: t.tensor([1.0], device="cuda"), lambda t: t.randn(2, device="cuda"),
    lambda t: t.arange(3, device="cuda"), lambda t: t.nn.Linear(2, 2).cuda(),
    lambda t: t.nn.Linear(2, 2).to("cuda"),
], ids=["cuda", "to_str", "to_index", "to_kw", "to_device", "ones", "zeros_dev", "tensor",
        "randn", "arange", "module_cuda", "module_to"])
def test_moving_to_cuda_raises_assertion_error_as_torch(call):
    err = raises_like_torch(call, "Torch not compiled with CUDA enabled")
    assert "CPU only" in str(err)


def test_cuda_device_objects_construct_as_in_torch():
    for expr in ["T.device('cuda')", "T.device('cuda:1')", "T.device('cuda', 0)",
                 "T.device('cpu')", "T.device('mps')", "T.ones(1).device"]:
        lv, tv = eval(expr, {"T": lg}), eval(expr, {"T": torch})
        assert (repr(lv), str(lv), lv.type, lv.index) == (repr(tv), str(tv), tv.type, tv.index)
    assert lg.device("cuda:1") == lg.device("cuda", 1) != lg.device("cuda")
    for bad in ["tpu", "cuda:x"]:
        with pytest.raises(RuntimeError) as te:
            torch.device(bad)
        with pytest.raises(RuntimeError) as le:
            lg.device(bad)
        assert str(le.value) == str(te.value)
    x = lg.ones(2)
    with pytest.raises(AssertionError):
        x.cuda()
    assert x.device == lg.device("cpu")          # nothing changed
