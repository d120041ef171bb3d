"""leafgrad.save/load against torch.save/torch.load: what goes in comes back (types, shapes,
key types and order, dict vs OrderedDict), the file stays plain safetensors, and training
continues after a checkpoint exactly as without one (and as in PyTorch)."""
import copy
from collections import OrderedDict

import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn
import leafgrad.optim as loptim


def lg_rt(obj, tmp_path):
    lg.save(obj, str(tmp_path / "x.safetensors"))
    return lg.load(str(tmp_path / "x.safetensors"))


def torch_rt(obj, tmp_path):
    torch.save(obj, str(tmp_path / "x.pt"))
    return torch.load(str(tmp_path / "x.pt"))


def same(lv, tv):
    """lv (from leafgrad) is what tv (from torch) is: same types, keys, order, values."""
    if isinstance(tv, torch.Tensor):
        assert isinstance(lv, lg.Tensor)
        assert lv.shape == tuple(tv.shape)
        assert lv.dtype.name == str(tv.dtype).replace("torch.", "")
        assert lv.requires_grad == tv.requires_grad
        assert isinstance(lv, lnn.Parameter) == isinstance(tv, torch.nn.Parameter)
        np.testing.assert_array_equal(lv.detach().numpy(), tv.detach().numpy())
    else:
        assert type(lv) is type(tv), (lv, tv)
        if isinstance(tv, dict):
            assert list(lv) == list(tv)
            assert [type(k) for k in lv] == [type(k) for k in tv]
            for k in tv:
                same(lv[k], tv[k])
        elif isinstance(tv, (list, tuple)):
            assert len(lv) == len(tv)
            for a, b in zip(lv, tv):
                same(a, b)
        else:
            assert lv == tv


def both(make, tmp_path):
    """make(lib) builds the same object with leafgrad or torch; both round-trip alike."""
    lv, tv = lg_rt(make(lg), tmp_path), torch_rt(make(torch), tmp_path)
    same(lv, tv)
    same(lv, make(torch))          # and it is what was saved
    return lv


@pytest.mark.parametrize("make", [
    lambda t: t.tensor(2),
    lambda t: t.tensor(7.0),
    lambda t: t.tensor(1.5, dtype=t.float64),
    lambda t: t.tensor(True),
    lambda t: t.zeros(0),
    lambda t: t.zeros(2, 0, 3),
    lambda t: t.tensor([[1, 2], [3, 4]], dtype=t.int32),
    lambda t: t.tensor([True, False]),
    lambda t: t.ones(3, requires_grad=True),
    lambda t: t.nn.Parameter(t.ones(2)),
], ids=["int0d", "float0d", "f64_0d", "bool0d", "empty", "empty3d", "int32", "bool",
        "requires_grad", "parameter"])
def test_tensor_roundtrip(make, tmp_path):
    both(make, tmp_path)


def test_nested_structures_keys_and_order(tmp_path):
    def make(t):
        return {"b": 1, "1": t.tensor([1.0]), 1: "int key", "a": [t.tensor(3), 2.5, None,
                                                                  {"x": (1, t.zeros(2))}],
                "od": OrderedDict([("z", t.tensor(0.0)), ("y", True)]), "z": "s", "e": {},
                "n": [], 0: t.tensor([[1.0, 2.0]], dtype=t.float64)}
    out = both(make, tmp_path)
    assert list(out) == ["b", "1", 1, "a", "od", "z", "e", "n", 0]


def test_model_state_dict_roundtrip(tmp_path):
    def make(t):
        t.manual_seed(0)
        m = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.BatchNorm1d(4), t.nn.Linear(4, 2))
        m(t.randn(5, 3))
        return m.state_dict()
    tsd = make(torch)
    lm = lnn.Sequential(lnn.Linear(3, 4), lnn.BatchNorm1d(4), lnn.Linear(4, 2))
    lm.load_state_dict({k: lg.tensor(v.numpy()) for k, v in tsd.items()})
    out = lg_rt(lm.state_dict(), tmp_path)
    same(out, torch_rt(tsd, tmp_path))
    lm.load_state_dict(out)


def test_file_is_plain_safetensors(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    path = str(tmp_path / "m.safetensors")
    lm = lnn.Linear(2, 3)
    lg.save({"model": lm.state_dict(), "step": lg.tensor(4), "epoch": 2}, path)
    got = safetensors_numpy.load_file(path)
    assert sorted(got) == ["model.bias", "model.weight", "step"]
    np.testing.assert_array_equal(got["model.weight"], lm.weight.detach().numpy())
    assert got["step"].shape == () and got["step"] == 4


def test_unsupported_value_writes_nothing(tmp_path):
    path = tmp_path / "bad.safetensors"
    with pytest.raises(TypeError, match="cannot store a object.*at key 'a.b'.*Fix"):
        lg.save({"a": {"b": object()}}, str(path))
    assert not path.exists()
    with pytest.raises(TypeError, match="cannot store a tensor of dtype torch.complex128.*at key 'c'"):
        lg.save({"ok": lg.ones(2), "c": lg.tensor([1 + 2j], dtype=lg.complex128)}, str(path))
    assert not path.exists()


OPTIMS = [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01)),
          ("AdamW", dict(lr=0.01, amsgrad=True)), ("RMSprop", dict(lr=0.01, momentum=0.5,
                                                                   centered=True)),
          ("Adagrad", dict(lr=0.1))]


@pytest.mark.parametrize("name,kwargs", OPTIMS, ids=[n for n, _ in OPTIMS])
def test_training_continues_after_checkpoint(name, kwargs, tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    y = rng.standard_normal((6, 2)).astype(np.float32)
    torch.manual_seed(0)
    tm = torch.nn.Linear(3, 2)
    w = {k: v.detach().numpy().copy() for k, v in tm.state_dict().items()}

    def run(lib, nn, optim, rt, checkpoint_at):
        m = nn.Linear(3, 2)
        m.load_state_dict({k: lib.tensor(v) for k, v in w.items()})
        opt = getattr(optim, name)(m.parameters(), **kwargs)
        for i in range(5):
            if i == checkpoint_at:
                sd = rt({"model": m.state_dict(), "optim": opt.state_dict()}, tmp_path)
                m = nn.Linear(3, 2)
                m.load_state_dict(sd["model"])
                opt = getattr(optim, name)(m.parameters(), lr=123.0)
                opt.load_state_dict(sd["optim"])
            opt.zero_grad()
            ((m(lib.tensor(x)) - lib.tensor(y)) ** 2).mean().backward()
            opt.step()
        return m, opt

    lm, lopt = run(lg, lnn, loptim, lg_rt, 2)
    lm_ref, _ = run(lg, lnn, loptim, lg_rt, None)
    tm, topt = run(torch, torch.nn, torch.optim, torch_rt, 2)
    for a, b, c in zip(lm.parameters(), lm_ref.parameters(), tm.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        np.testing.assert_allclose(a.detach().numpy(), c.detach().numpy(), rtol=1e-5, atol=1e-6)
    # the optimizer's state_dict round-trips as torch's does (dict, int keys, 0-d step)
    ls, ts = lg_rt(lopt.state_dict(), tmp_path), torch_rt(topt.state_dict(), tmp_path)
    assert type(ls) is type(ts) is dict
    assert list(ls["state"]) == list(ts["state"]) == [0, 1]
    for k in ts["state"]:
        assert list(ls["state"][k]) == list(ts["state"][k])
        for key, tv in ts["state"][k].items():
            assert ls["state"][k][key].shape == tuple(tv.shape), key
    assert ls["param_groups"] == ts["param_groups"]
