"""The Tensor class's public name: ``type(t)`` is ``leafgrad.Tensor`` (PyTorch: ``torch.Tensor``,
not the module it is defined in), and everything that finds a class by its module and name
(pickle, the bridge, the module summary's type names) finds it there."""
import pickle

import torch

import leafgrad
from leafgrad import bridge


def _as_torch(s):
    return s.replace("leafgrad", "torch")


def test_class_reprs_as_pytorch():
    t, tt = leafgrad.ones(2, 3), torch.ones(2, 3)
    assert repr(type(t)) == "<class 'leafgrad.Tensor'>"
    assert _as_torch(repr(type(t))) == repr(type(tt))
    assert _as_torch(repr(type(t.shape))) == repr(type(tt.shape))
    p, tp = leafgrad.nn.Parameter(t), torch.nn.Parameter(tt)
    assert _as_torch(repr(type(p))) == repr(type(tp))
    assert leafgrad.Tensor.__module__ == "leafgrad" and leafgrad.Tensor.__qualname__ == "Tensor"


def test_pickle_finds_the_classes_by_their_public_name():
    assert pickle.loads(pickle.dumps(leafgrad.Tensor)) is leafgrad.Tensor
    s = pickle.loads(pickle.dumps(leafgrad.zeros(4, 1).shape))
    assert type(s) is leafgrad.Size and s == (4, 1)


def test_bridge_maps_the_class():
    m = leafgrad.nn.Linear(3, 2)
    tm = bridge.to_torch(m)
    x = torch.ones(1, 3)
    got = tm(x).detach().numpy()
    want = m(leafgrad.ones(1, 3)).detach().numpy()
    assert got.shape == want.shape and abs(got - want).max() < 1e-6


def test_class_reprs_under_leafgrad_run_read_torch(tmp_path):
    """Under ``leafgrad run`` (torch aliased to leafgrad) ``print(type(t))`` shows
    PyTorch's words; ``__module__`` and pickling stay leafgrad's."""
    import subprocess
    import sys
    script = tmp_path / "s.py"
    script.write_text("import torch, pickle\n"
                      "x = torch.ones(2)\n"
                      "print(type(x), type(x.shape), type(torch.nn.Parameter(x)), torch.Tensor)\n"
                      "print(type(x).__module__, pickle.loads(pickle.dumps(torch.Tensor)) is torch.Tensor)\n")
    out = subprocess.run([sys.executable, "-m", "leafgrad", "run", str(script)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    tt = torch.ones(2)
    assert out[0] == " ".join(repr(c) for c in (type(tt), type(tt.shape),
                                                type(torch.nn.Parameter(tt)), torch.Tensor))
    assert out[1] == "leafgrad True"
