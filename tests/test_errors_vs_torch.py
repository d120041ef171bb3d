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


def _leaf_or_not(t, requires_grad):
    x = t.zeros(2, 3, requires_grad=requires_grad)
    return x.clone() if requires_grad else x


@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "in_graph"])
@pytest.mark.parametrize("call,words", [
    (lambda x, t: x.copy_(t.ones(4)),
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    (lambda x, t: x.copy_(t.ones(3, 1)),
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda x, t: x.copy_(t.ones(2, 2, 3)),
     "output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3]"),
    (lambda x, t: x.__setitem__(0, t.tensor([1.0, 2.0])),
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton "
     "dimension 0.  Target sizes: [3].  Tensor sizes: [2]"),
    (lambda x, t: x.__setitem__((slice(None), 0), t.ones(3)),
     "The expanded size of the tensor (2) must match the existing size (3)"),
    (lambda x, t: x.__setitem__(x > 0, t.ones(2)),
     "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of "
     "shape [0]"),
    (lambda x, t: x.__setitem__([0, 1], t.ones(4)),
     "shape mismatch: value tensor of shape [4] cannot be broadcast to indexing result of "
     "shape [2, 3]"),
], ids=["copy_1d", "copy_col", "copy_more_dims", "setitem_row", "setitem_col", "setitem_mask",
        "setitem_list"])
def test_shape_errors_of_copy_and_setitem(call, words, requires_grad):
    err = raises_like_torch(lambda t: call(_leaf_or_not(t, requires_grad), t), words)
    assert "((" not in str(err)
    x = _leaf_or_not(lg, requires_grad)
    with pytest.raises(RuntimeError):
        call(x, lg)
    assert x._version == 0 and not x.detach().numpy().any()       # nothing changed


@pytest.mark.parametrize("call,words", [
    (lambda t: ~t.ones(2), "~ (operator.invert) is only implemented on integer and Boolean-type "
                           "tensors"),
    (lambda t: ~t.ones(2, dtype=t.float64), "~ (operator.invert) is only implemented"),
    (lambda t: t.bitwise_not(t.ones(2)), "\"bitwise_not_cpu\" not implemented for 'Float'"),
    (lambda t: t.ones(2).bitwise_not(), "\"bitwise_not_cpu\" not implemented for 'Float'"),
    (lambda t: t.softmax(t.tensor([1, 2]), 0),
     "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    (lambda t: t.log_softmax(t.tensor([1, 2]), 0),
     "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    (lambda t: t.nn.functional.softmax(t.tensor([1, 2], dtype=t.int32), 0),
     "\"softmax_lastdim_kernel_impl\" not implemented for 'Int'"),
    (lambda t: t.softmax(t.tensor([True]), 0),
     "\"softmax_lastdim_kernel_impl\" not implemented for 'Bool'"),
], ids=["invert_float", "invert_double", "bitwise_not_fn", "bitwise_not_method", "softmax_long",
        "log_softmax_long", "softmax_int", "softmax_bool"])
def test_dtype_errors_name_torch_types(call, words):
    raises_like_torch(call, words)


def test_invert_of_integers_and_bools_still_works():
    assert (~lg.tensor([1, 2])).tolist() == (~torch.tensor([1, 2])).tolist()
    assert (~lg.tensor([True, False])).tolist() == [False, True]
