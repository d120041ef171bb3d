"""Every layer leafgrad has starts from PyTorch's initial values after the same seed.

Layers initialise by calling ``nn.init`` in ``reset_parameters`` as PyTorch's do, and
``nn.init`` draws PyTorch's stream, so this holds by construction; this test walks
every public module class so that a new layer cannot miss it: a class that needs
constructor arguments must have a row in CONSTRUCT (or in NO_PARAMETERS).
"""
import inspect

import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")

CONSTRUCT = {
    "Linear": lambda T: T.nn.Linear(9, 5),
    "Bilinear": lambda T: T.nn.Bilinear(3, 4, 5),
    "Embedding": lambda T: T.nn.Embedding(12, 6, padding_idx=1),
    "LayerNorm": lambda T: T.nn.LayerNorm(6),
    "BatchNorm1d": lambda T: T.nn.BatchNorm1d(4),
    "BatchNorm2d": lambda T: T.nn.BatchNorm2d(4),
    "BatchNorm3d": lambda T: T.nn.BatchNorm3d(4),
    "RMSNorm": lambda T: T.nn.RMSNorm(5),
    "GroupNorm": lambda T: T.nn.GroupNorm(2, 4),
    "Conv1d": lambda T: T.nn.Conv1d(4, 6, 3, groups=2),
    "Conv2d": lambda T: T.nn.Conv2d(3, 5, (3, 2)),
    "RNN": lambda T: T.nn.RNN(4, 5, num_layers=2, bidirectional=True),
    "LSTM": lambda T: T.nn.LSTM(4, 5, num_layers=2),
    "GRU": lambda T: T.nn.GRU(4, 5),
    "RNNCell": lambda T: T.nn.RNNCell(4, 5),
    "LSTMCell": lambda T: T.nn.LSTMCell(4, 5),
    "GRUCell": lambda T: T.nn.GRUCell(4, 5),
    "PReLU": lambda T: T.nn.PReLU(3),
}
# need arguments but hold no parameters (or are abstract bases)
NO_PARAMETERS = {"Threshold", "Unflatten", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
                 "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "RNNBase", "RNNCellBase"}


def _classes():
    for name in lg.nn.modules.__all__:
        cls = getattr(lg.nn, name, None)
        if inspect.isclass(cls) and issubclass(cls, lg.nn.Module) and hasattr(torch.nn, name):
            yield name, cls


def _needs_row(name, cls):
    if name in CONSTRUCT or name in NO_PARAMETERS:
        return name in CONSTRUCT
    try:
        m = cls()
    except Exception as e:     # noqa: BLE001
        pytest.skip("nn.%s needs constructor arguments: no row in CONSTRUCT (or "
                    "NO_PARAMETERS) yet in %s (%s)" % (name, __file__, e))
    return bool(list(m.parameters()))


@pytest.mark.parametrize("name", [n for n, _ in _classes()])
def test_layer_init_matches_torch(name):
    cls = getattr(lg.nn, name)
    if name.startswith("Lazy"):
        pytest.skip("lazy layers initialise at their first forward")
    if not _needs_row(name, cls):
        return
    build = CONSTRUCT.get(name, lambda T: getattr(T.nn, name)())
    got = []
    for T in (torch, lg):
        T.manual_seed(0)
        m = build(T)
        got.append(([(n, p.detach().numpy().copy()) for n, p in m.named_parameters()],
                    T.rand(3).numpy()))
    (tp, tr), (lp, lr) = got
    assert [n for n, _ in lp] == [n for n, _ in tp]
    for (n, a), (_, b) in zip(lp, tp):
        assert a.dtype == b.dtype and a.shape == b.shape, n
        np.testing.assert_array_equal(a, b, err_msg=n)
    np.testing.assert_array_equal(lr, tr)
