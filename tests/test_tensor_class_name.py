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
