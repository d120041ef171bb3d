"""PyTorch's torch.save format without PyTorch: real torch.save files read by leafgrad (in a
process that never imports torch), leafgrad's files read by torch.load(weights_only=True),
whole objects refused under weights_only=True as PyTorch refuses them, add_safe_globals."""
import json
import os
import pickle
import subprocess
import sys
from collections import OrderedDict

import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn

SRC = os.path.join(os.path.dirname(__file__), os.pardir, "src")


def torch_models():
    torch.manual_seed(0)
    seq = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    cnn = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4),
                              torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                              torch.nn.Linear(4 * 4 * 4, 10))
    cnn(torch.randn(2, 1, 8, 8))                 # running stats and num_batches_tracked
    lstm = torch.nn.LSTM(5, 7, num_layers=2, batch_first=True)
    return {"sequential": seq, "cnn": cnn, "lstm": lstm}


READER = r"""
import sys, json
sys.path.insert(0, %(src)r)
import numpy as np
import leafgrad
out = {}
for name, path in json.loads(sys.argv[1]).items():
    sd = leafgrad.load(path)
    out[name] = {k: [type(sd).__name__, str(v.dtype), list(v.shape), v.numpy().ravel().tolist()]
                 for k, v in sd.items()}
assert "torch" not in sys.modules, "torch was imported"
print(json.dumps(out))
"""


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_real_torch_checkpoints_load_without_torch(legacy, tmp_path):
    paths, sds = {}, {}
    for name, m in torch_models().items():
        paths[name] = str(tmp_path / (name + ".pt"))
        sds[name] = m.state_dict()
        torch.save(sds[name], paths[name], _use_new_zipfile_serialization=not legacy)
    res = subprocess.run([sys.executable, "-c", READER % dict(src=SRC), json.dumps(paths)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    for name, sd in sds.items():
        assert list(got[name]) == list(sd)
        for k, v in sd.items():
            kind, dtype, shape, values = got[name][k]
            assert kind == "OrderedDict"
            assert dtype == str(v.dtype) and shape == list(v.shape)
            np.testing.assert_array_equal(np.array(values, dtype=v.numpy().dtype),
                                          v.numpy().ravel())


def test_loaded_state_dict_drives_the_same_model(tmp_path):
    tm = torch_models()["cnn"].eval()
    torch.save(tm.state_dict(), str(tmp_path / "cnn.pt"))
    lm = lnn.Sequential(lnn.Conv2d(1, 4, 3, padding=1), lnn.BatchNorm2d(4), lnn.ReLU(),
                        lnn.MaxPool2d(2), lnn.Flatten(), lnn.Linear(64, 10)).eval()
    lm.load_state_dict(lg.load(str(tmp_path / "cnn.pt")))
    x = np.random.default_rng(0).standard_normal((3, 1, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(lm(lg.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_leafgrad_torch_format_read_by_torch_weights_only(tmp_path):
    m = lnn.Sequential(lnn.Linear(3, 4), lnn.BatchNorm1d(4))
    obj = {"model": m.state_dict(), "step": 3, 1: "int key", "lr": 0.5, "t": (lg.tensor(2),),
           "p": lnn.Parameter(lg.ones(2)), "g": lg.ones(2, requires_grad=True),
           "i": lg.arange(6).reshape(2, 3).t(), "e": lg.zeros(0, 2), "dt": lg.float64,
           "od": OrderedDict([("b", None), ("a", [True, b"raw"])])}
    path = str(tmp_path / "ck.bin")
    lg.save(obj, path, format="torch")
    got = torch.load(path, weights_only=True)
    assert list(got) == list(obj) and isinstance(got["od"], OrderedDict)
    assert type(got["model"]) is OrderedDict and list(got["model"]) == list(m.state_dict())
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(got["model"][k].numpy(), v.numpy())
        assert got["model"][k].dtype == getattr(torch, v.dtype.name)
    assert isinstance(got["p"], torch.nn.Parameter) and got["g"].requires_grad
    assert got["t"][0].shape == () and got["dt"] is torch.float64
    np.testing.assert_array_equal(got["i"].numpy(), [[0, 3], [1, 4], [2, 5]])
    assert got["od"]["a"] == [True, b"raw"] and got["e"].shape == (0, 2)
    back = lg.load(path)               # and leafgrad reads its own file back
    assert isinstance(back["p"], lnn.Parameter) and back["g"].requires_grad
    np.testing.assert_array_equal(back["i"].numpy(), [[0, 3], [1, 4], [2, 5]])


def test_pt_names_default_to_the_torch_format(tmp_path):
    lg.save({"w": lg.ones(2)}, str(tmp_path / "a.pt"))
    lg.save({"w": lg.ones(2)}, str(tmp_path / "a.ckpt"))
    assert (tmp_path / "a.pt").read_bytes()[:2] == b"PK"
    assert (tmp_path / "a.ckpt").read_bytes()[:2] != b"PK"          # safetensors
    assert torch.load(str(tmp_path / "a.pt"))["w"].tolist() == [1.0, 1.0]


def _torch_error(fn):
    with pytest.raises(pickle.UnpicklingError) as info:
        fn()
    return str(info.value)


class Net(lnn.Module):
    def __init__(self):
        super().__init__()
        self.fc = lnn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x).relu()


class TNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)


def test_whole_model_pickle_refused_then_loaded_when_asked(tmp_path):
    path = str(tmp_path / "net.pkl")
    net = Net()
    lg.save(net, path)                          # an arbitrary object: PyTorch's zip format
    assert open(path, "rb").read(2) == b"PK"
    msg = _torch_error(lambda: lg.load(path))
    assert msg.startswith("Weights only load failed.")
    assert "GLOBAL test_torch_checkpoints.Net was not an allowed global by default" in msg
    assert "`torch.serialization.add_safe_globals([test_torch_checkpoints.Net])`" in msg
    back = lg.load(path, weights_only=False)
    x = lg.randn(4, 3)
    assert type(back) is Net
    np.testing.assert_array_equal(back(x).detach().numpy(), net(x).detach().numpy())


def test_refusal_message_is_torchs(tmp_path):
    """torch's own weights-only text for a torch-saved whole module, word for word."""
    path = str(tmp_path / "tnet.pt")
    torch.save(TNet(), path)
    ours = _torch_error(lambda: lg.load(path))
    theirs = _torch_error(lambda: torch.load(path))
    assert ours == theirs


def test_safe_globals(tmp_path):
    from leafgrad import serialization
    path = str(tmp_path / "cfg.pt")
    lg.save({"cfg": Config(3), "w": lg.ones(1)}, path)
    with pytest.raises(pickle.UnpicklingError, match="Config was not an allowed global"):
        lg.load(path)
    with serialization.safe_globals([Config]):
        assert lg.load(path)["cfg"].n == 3
    with pytest.raises(pickle.UnpicklingError):
        lg.load(path)
    try:
        serialization.add_safe_globals([Config])
        assert Config in serialization.get_safe_globals()
        assert lg.load(path)["cfg"].n == 3
        tload = torch.serialization                     # the same allowlist as PyTorch's
        with tload.safe_globals([Config]):
            assert torch.load(path)["cfg"].n == 3
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []


class Config:
    def __init__(self, n):
        self.n = n


def test_names_resolve_under_the_torch_alias():
    from leafgrad._compat import torch_alias as _torch_alias
    code = ("import leafgrad._compat.torch_alias as a; a.install(); import torch.serialization as s; "
            "print(s.add_safe_globals.__module__, s.safe_globals.__name__)")
    res = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); %s"
                          % (SRC, code)], capture_output=True, text=True, timeout=120)
    assert res.stdout.split() == ["leafgrad.serialization", "safe_globals"], res.stderr
    assert _torch_alias is not None


def test_torch_whole_module_with_weights_only_false(tmp_path):
    """torch.save(model) by PyTorch, read back as the same leafgrad layers when asked."""
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh())
    path = str(tmp_path / "full.pt")
    torch.save(tm, path)
    m = lg.load(path, weights_only=False)
    assert type(m) is lnn.Sequential and type(m[0]) is lnn.Linear
    x = np.ones((1, 2), dtype=np.float32)
    np.testing.assert_allclose(m(lg.tensor(x)).detach().numpy(),
                               tm(torch.tensor(x)).detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("payload", [
    b"\x80\x02c__builtin__\nbytearray\nJ\x00\x00\x00\x40\x85R.",      # bytearray(1 GiB)
    b"\x80\x02ctorch\nTensor\n)\x81.",                                  # a bare Tensor
    b"\x80\x02c__builtin__\neval\nX\x04\x00\x00\x001+1\x85R.",          # eval
])
def test_weights_only_refuses_what_torch_refuses(payload, tmp_path):
    import io
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", payload)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        lg.load(io.BytesIO(buf.getvalue()))
