"""nn.Module machinery against real PyTorch: registration, naming, state_dict, hooks, repr."""
import copy
from collections import OrderedDict

import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn


def build_pair():
    """The same small MLP in both libraries, leafgrad weights copied from torch."""
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    lm = lnn.Sequential(lnn.Linear(4, 3), lnn.ReLU(), lnn.Linear(3, 2))
    lm.load_state_dict({k: lg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, lm


class Net(lnn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = lnn.Linear(4, 5)
        self.act = lnn.Tanh()
        self.fc2 = lnn.Linear(5, 1, bias=False)
        self.register_buffer("steps", lg.zeros(1))
        self.register_buffer("scratch", lg.zeros(2), persistent=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class TNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 5)
        self.act = torch.nn.Tanh()
        self.fc2 = torch.nn.Linear(5, 1, bias=False)
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def test_forward_and_grads_match_torch():
    tm, lm = build_pair()
    x = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    tout = tm(torch.tensor(x))
    lout = lm(lg.tensor(x))
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-6)
    tout.pow(2).sum().backward()
    (lout ** 2).sum().backward()
    for (tn, tp), (ln, lp) in zip(tm.named_parameters(), lm.named_parameters()):
        assert tn == ln
        np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_names_match_torch():
    lnet, tnet = Net(), TNet()
    assert [n for n, _ in lnet.named_parameters()] == [n for n, _ in tnet.named_parameters()]
    assert [n for n, _ in lnet.named_buffers()] == [n for n, _ in tnet.named_buffers()]
    assert [n for n, _ in lnet.named_modules()] == [n for n, _ in tnet.named_modules()]
    assert [n for n, _ in lnet.named_children()] == [n for n, _ in tnet.named_children()]
    assert list(lnet.state_dict().keys()) == list(tnet.state_dict().keys())
    assert len(list(lnet.parameters(recurse=False))) == 0
    assert len(list(lnet.modules())) == 4


def test_shared_parameter_counted_once():
    lin = lnn.Linear(3, 3)
    seq = lnn.Sequential(lin, lin)
    assert len(list(seq.parameters())) == 2
    assert list(seq.state_dict().keys()) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_state_dict_values_are_detached_and_shared():
    lm = lnn.Linear(2, 2)
    sd = lm.state_dict()
    assert isinstance(sd, OrderedDict)
    assert not sd["weight"].requires_grad and sd["weight"].grad_fn is None
    assert not isinstance(sd["weight"], lnn.Parameter)
    with lg.no_grad():
        lm.weight.fill_(3.0)
    assert float(sd["weight"][0, 0]) == 3.0
    assert lm.state_dict(keep_vars=True)["weight"] is lm.weight


def test_load_state_dict_copies_values():
    _, lm = build_pair()
    src = {k: v.clone() for k, v in lm.state_dict().items()}
    other = lnn.Sequential(lnn.Linear(4, 3), lnn.ReLU(), lnn.Linear(3, 2))
    res = other.load_state_dict(src)
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert repr(res) == "<All keys matched successfully>"
    np.testing.assert_array_equal(other[0].weight.detach().numpy(), src["0.weight"].numpy())
    src["0.weight"].fill_(7.0)
    assert float(other[0].weight.detach()[0, 0]) != 7.0         # copied, not aliased
    assert isinstance(other[0].weight, lnn.Parameter) and other[0].weight.requires_grad


def test_load_state_dict_errors_match_torch_and_load_what_fits():
    tm, _ = build_pair()
    lm = lnn.Sequential(lnn.Linear(4, 3), lnn.ReLU(), lnn.Linear(3, 2))
    before = {k: v.clone() for k, v in lm.state_dict().items()}
    bad = {k: lg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()}
    tbad = dict(tm.state_dict())
    del bad["2.bias"], tbad["2.bias"]
    bad["extra"] = lg.zeros(1)
    tbad["extra"] = torch.zeros(1)
    with pytest.raises(RuntimeError) as lerr:
        lm.load_state_dict(bad)
    tcopy = copy.deepcopy(tm)
    tbefore = {k: v.clone() for k, v in tcopy.state_dict().items()}
    tcopy[0].weight.data.zero_()
    with pytest.raises(RuntimeError) as terr:
        tcopy.load_state_dict(tbad)
    assert str(lerr.value) == str(terr.value)
    assert str(lerr.value).startswith("Error(s) in loading state_dict for Sequential:")
    # as PyTorch: what fits is loaded before it raises; the missing key keeps its value
    for k, v in lm.state_dict().items():
        want = before[k].numpy() if k == "2.bias" else bad[k].numpy()
        np.testing.assert_array_equal(v.numpy(), want)
    for k, v in tcopy.state_dict().items():
        want = tbefore[k] if k == "2.bias" else tbad[k]
        np.testing.assert_array_equal(v.numpy(), want.numpy())
    # non-strict: reports the keys, loads the rest
    res = lm.load_state_dict(bad, strict=False)
    tres = copy.deepcopy(tm).load_state_dict(tbad, strict=False)
    assert res.missing_keys == tres.missing_keys == ["2.bias"]
    assert res.unexpected_keys == tres.unexpected_keys == ["extra"]


def test_load_state_dict_shape_mismatch_message():
    lm, tm = lnn.Linear(3, 2), torch.nn.Linear(3, 2)
    with pytest.raises(RuntimeError) as lerr:
        lm.load_state_dict({"weight": lg.zeros(2, 4), "bias": lg.zeros(2)})
    with pytest.raises(RuntimeError) as terr:
        tm.load_state_dict({"weight": torch.zeros(2, 4), "bias": torch.zeros(2)})
    assert str(lerr.value) == str(terr.value)
    with pytest.raises(RuntimeError, match="size mismatch"):
        lm.load_state_dict({"weight": lg.zeros(2, 4), "bias": lg.zeros(2)}, strict=False)


def test_non_persistent_buffer_not_in_state_dict():
    net = Net()
    assert "scratch" not in net.state_dict()
    assert "scratch" in dict(net.named_buffers())


def test_setattr_registration_and_delattr():
    m = lnn.Module()
    m.w = lnn.Parameter(lg.ones(2))
    m.sub = lnn.ReLU()
    m.plain = 3
    assert list(m._parameters) == ["w"] and list(m._modules) == ["sub"]
    assert m.plain == 3 and "plain" not in m._parameters
    with pytest.raises(TypeError):
        m.w = lg.ones(2)                    # plain tensor onto a parameter name
    m.w = None
    assert m.w is None and list(m.parameters()) == []
    del m.sub
    assert "sub" not in m._modules
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope
    assert "sub" not in dir(m) and "w" in dir(m)


def test_register_errors_match_torch():
    for lib in (lnn, torch.nn):
        m = lib.Module()
        with pytest.raises(KeyError):
            m.register_parameter("a.b", None)
        with pytest.raises(TypeError):
            m.register_buffer("b", 3)
        with pytest.raises(TypeError):
            m.add_module("c", 3)

    class Early(lnn.Module):
        def __init__(self):
            self.w = lnn.Parameter(lg.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_train_eval_and_apply():
    net = lnn.Sequential(lnn.Linear(2, 2), lnn.Dropout(0.5), lnn.Sequential(lnn.ReLU()))
    assert net.training and all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Dropout", "ReLU", "Sequential", "Sequential"]
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_zero_grad():
    _, lm = build_pair()
    lm(lg.ones(1, 4)).sum().backward()
    lm.zero_grad(set_to_none=False)
    assert all(p.grad is not None and float(p.grad.abs().sum()) == 0 for p in lm.parameters())
    lm.zero_grad()
    assert all(p.grad is None for p in lm.parameters())


def test_forward_hooks():
    lin = lnn.Linear(2, 2)
    calls = []

    def pre(mod, args):
        calls.append("pre")
        return (args[0] * 0,)

    def post(mod, args, out):
        calls.append("post")
        return out + 1

    h1 = lin.register_forward_pre_hook(pre)
    h2 = lin.register_forward_hook(post)
    out = lin(lg.ones(1, 2))
    np.testing.assert_allclose(out.detach().numpy(), lin.bias.detach().numpy()[None] + 1, rtol=1e-6)
    assert calls == ["pre", "post"]
    h1.remove()
    h2.remove()
    lin(lg.ones(1, 2))
    assert calls == ["pre", "post"]


def test_to_double_float_casts_params_in_place():
    lm = lnn.Linear(3, 2)
    w = lm.weight
    assert lm.double() is lm
    assert lm.weight is w and lm.weight.dtype == lg.float64 and lm.bias.dtype == lg.float64
    out = lm(lg.ones(1, 3, dtype=lg.float64))
    assert out.dtype == lg.float64
    lm.to(lg.float32)
    assert lm.weight.dtype == lg.float32
    bn = lnn.BatchNorm1d(3).double()
    assert bn.running_mean.dtype == lg.float64 and bn.num_batches_tracked.dtype == lg.int64
    with pytest.raises(TypeError):
        lm.to(lg.int64)
    assert lm.cpu() is lm and lm.to("cpu") is lm


def test_deepcopy_module():
    _, lm = build_pair()
    cp = copy.deepcopy(lm)
    assert cp[0].weight is not lm[0].weight
    assert isinstance(cp[0].weight, lnn.Parameter)
    np.testing.assert_array_equal(cp[0].weight.detach().numpy(), lm[0].weight.detach().numpy())


def test_parameter_basics():
    p = lnn.Parameter(lg.ones(2))
    tp = torch.nn.Parameter(torch.ones(2))
    assert repr(p) == repr(tp)
    assert p.is_leaf and p.requires_grad and isinstance(p, lg.Tensor)
    assert repr(lnn.Parameter(lg.ones(2), requires_grad=False)) == repr(
        torch.nn.Parameter(torch.ones(2), requires_grad=False))
    data = lg.zeros(3)
    q = lnn.Parameter(data)
    with lg.no_grad():
        q.add_(1)
    assert float(data[0]) == 1.0                     # shares memory, like torch
    with pytest.raises(RuntimeError):
        lnn.Parameter(lg.ones(2, dtype=lg.int64))


def test_custom_module_repr_and_extra_repr():
    assert repr(Net()) == repr(TNet())[1:]          # "TNet(" vs "Net("

    class WithExtra(lnn.Module):
        def extra_repr(self):
            return "k=1"

    assert repr(WithExtra()) == "WithExtra(k=1)"


def test_get_submodule_and_missing_forward():
    net = Net()
    assert net.get_submodule("fc1") is net.fc1
    assert net.get_parameter("fc1.weight") is net.fc1.weight
    with pytest.raises(AttributeError):
        net.get_submodule("nope")
    with pytest.raises(NotImplementedError):
        lnn.Module()(1)
