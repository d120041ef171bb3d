"""nn.RNNCell / LSTMCell / GRUCell and nn.utils.rnn.pad_sequence against real PyTorch:
same parameter names, shapes, init range, repr; with torch's weights copied, the same
outputs and gradients (input, states, parameters), batched and unbatched; same errors."""
import math

import numpy as np
import pytest
import torch

import leafgrad as lg
from leafgrad.nn.utils.rnn import pad_sequence

CELLS = [
    ("RNNCell", dict(input_size=3, hidden_size=4)),
    ("RNNCell", dict(input_size=3, hidden_size=4, nonlinearity="relu", bias=False)),
    ("LSTMCell", dict(input_size=3, hidden_size=5)),
    ("LSTMCell", dict(input_size=2, hidden_size=3, bias=False)),
    ("GRUCell", dict(input_size=3, hidden_size=4)),
    ("GRUCell", dict(input_size=4, hidden_size=2, bias=False)),
]


def _run(T, name, kw, sd, x, states, dt):
    m = getattr(T.nn, name)(**kw)
    if dt == np.float64:
        m = m.double()
    m.load_state_dict({k: T.tensor(v) for k, v in sd.items()})
    tx = T.tensor(x, requires_grad=True)
    ts = [T.tensor(s, requires_grad=True) for s in states]
    out = m(tx) if not ts else m(tx, tuple(ts) if name == "LSTMCell" else ts[0])
    outs = list(out) if name == "LSTMCell" else [out]
    # two steps: the state fed back in
    out2 = m(tx * 0.5, tuple(outs) if name == "LSTMCell" else outs[0])
    outs += list(out2) if name == "LSTMCell" else [out2]
    rng = np.random.default_rng(3)
    loss = sum((o * T.tensor(rng.normal(size=tuple(o.shape)).astype(dt))).sum() for o in outs)
    loss.backward()
    return ([o.detach().numpy() for o in outs], tx.grad.numpy(), [s.grad.numpy() for s in ts],
            [(n, p.grad.numpy()) for n, p in m.named_parameters()], repr(m))


@pytest.mark.parametrize("name,kw", CELLS, ids=[n + str(i) for i, (n, _) in enumerate(CELLS)])
@pytest.mark.parametrize("batch,with_state,dt", [((2,), True, np.float32),
                                                  ((), True, np.float32),
                                                  ((3,), False, np.float64),
                                                  ((), False, np.float32)])
def test_cell_matches_torch(name, kw, batch, with_state, dt):
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(**kw)
    sd = {k: v.detach().numpy().astype(dt) for k, v in tm.state_dict().items()}
    rng = np.random.default_rng(0)
    x = rng.normal(size=batch + (kw["input_size"],)).astype(dt)
    n = 2 if name == "LSTMCell" else 1
    states = ([rng.normal(size=batch + (kw["hidden_size"],)).astype(dt) for _ in range(n)]
              if with_state else [])
    t = _run(torch, name, kw, sd, x, states, dt)
    lres = _run(lg, name, kw, sd, x, states, dt)
    tol = dict(rtol=1e-5, atol=1e-6) if dt == np.float32 else dict(rtol=1e-12, atol=1e-13)
    for a, b in zip(lres[0], t[0]):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, **tol)
    np.testing.assert_allclose(lres[1], t[1], **tol)
    for a, b in zip(lres[2], t[2]):
        np.testing.assert_allclose(a, b, **tol)
    assert [n for n, _ in lres[3]] == [n for n, _ in t[3]]
    for (nm, a), (_, b) in zip(lres[3], t[3]):
        np.testing.assert_allclose(a, b, err_msg=nm, **tol)
    assert lres[4] == t[4]


@pytest.mark.parametrize("name,kw", CELLS, ids=[n + str(i) for i, (n, _) in enumerate(CELLS)])
def test_cell_parameters_and_init_as_torch(name, kw):
    lm, tm = getattr(lg.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert [(n, tuple(p.shape)) for n, p in lm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert repr(lm) == repr(tm)
    bound = 1 / math.sqrt(kw["hidden_size"])
    for p in lm.parameters():
        assert p.dtype == lg.float32 and float(p.detach().abs().max()) <= bound
    assert (lm.bias_ih is None) == (tm.bias_ih is None)
    m64 = getattr(lg.nn, name)(**kw, dtype=lg.float64)
    assert m64.weight_ih.dtype == lg.float64


def test_cell_repr_variants():
    for kw in (dict(bias=False, nonlinearity="relu"), dict(nonlinearity="bad"), {}):
        assert repr(lg.nn.RNNCell(3, 4, **kw)) == repr(torch.nn.RNNCell(3, 4, **kw))


@pytest.mark.parametrize("name,args", [
    ("GRUCell", lambda T: (T.ones(2, 5),)),
    ("GRUCell", lambda T: (T.ones(2, 2, 3),)),
    ("GRUCell", lambda T: (T.ones(2, 3), T.ones(1, 2, 4))),
    ("GRUCell", lambda T: (T.ones(2, 3), T.ones(3, 4))),
    ("GRUCell", lambda T: (T.ones(2, 3), T.ones(2, 5))),
    ("GRUCell", lambda T: (T.ones(3), T.ones(1, 4))),
    ("RNNCell", lambda T: (T.ones(2, 5), T.ones(2, 4))),
    ("LSTMCell", lambda T: (T.ones(2, 3), (T.ones(2, 4), T.ones(2, 5)))),
    ("LSTMCell", lambda T: (T.ones(2, 3), (T.ones(2, 4), T.ones(3, 4)))),
    ("LSTMCell", lambda T: (T.ones(2, 3), (T.ones(2, 4), T.ones(1, 2, 4)))),
])
def test_cell_errors_as_torch(name, args):
    with pytest.raises(Exception) as te:
        getattr(torch.nn, name)(3, 4)(*args(torch))
    with pytest.raises(type(te.value)) as le:
        getattr(lg.nn, name)(3, 4)(*args(lg))
    assert str(le.value) == str(te.value)


def test_rnn_cell_unknown_nonlinearity_raises_at_forward():
    for T in (torch, lg):
        cell = T.nn.RNNCell(3, 4, nonlinearity="bad")
        with pytest.raises(RuntimeError, match="^Unknown nonlinearity: bad$"):
            cell(T.ones(2, 5))          # before the size checks, as PyTorch


@pytest.mark.parametrize("kw", [{}, dict(batch_first=True), dict(padding_value=-2.5),
                                dict(padding_side="left"),
                                dict(batch_first=True, padding_side="left", padding_value=7)])
def test_pad_sequence_matches_torch(kw):
    rng = np.random.default_rng(0)
    arrs = [rng.normal(size=(n, 3, 2)).astype(np.float32) for n in (2, 5, 1, 5)]
    tx = [torch.tensor(a, requires_grad=True) for a in arrs]
    lx = [lg.tensor(a, requires_grad=True) for a in arrs]
    tp = torch.nn.utils.rnn.pad_sequence(tx, **kw)
    lp = pad_sequence(lx, **kw)
    assert lp.shape == tp.shape and lp.dtype == lg.float32
    np.testing.assert_array_equal(lp.detach().numpy(), tp.detach().numpy())
    w = rng.normal(size=tuple(tp.shape)).astype(np.float32)
    (tp * torch.tensor(w)).sum().backward()
    (lp * lg.tensor(w)).sum().backward()
    for a, b in zip(lx, tx):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def test_pad_sequence_other_inputs_and_errors():
    ints = [[1, 2], [3], [4, 5, 6]]
    for T in (torch, lg):
        pad = T.nn.utils.rnn.pad_sequence
        with pytest.raises(RuntimeError,
                           match="^Expected padding_side to be one of left or right, but got "
                                 "middle.$"):
            pad([T.ones(2)], padding_side="middle")
        with pytest.raises(RuntimeError, match="^received an empty list of sequences$"):
            pad([])
        with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the "
                                               "size of tensor b \\(4\\) at non-singleton "
                                               "dimension 1"):
            pad([T.ones(2, 3), T.ones(2, 4)])
    for kw in ({}, dict(padding_value=-1.5)):
        t = torch.nn.utils.rnn.pad_sequence([torch.tensor(v) for v in ints], **kw)
        ll = pad_sequence([lg.tensor(v) for v in ints], **kw)
        assert str(ll.dtype) == str(t.dtype)
        np.testing.assert_array_equal(ll.numpy(), t.numpy())
    t = torch.nn.utils.rnn.pad_sequence(torch.arange(6.0).reshape(2, 3))   # a tensor: unbound
    ll = pad_sequence(lg.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(ll.numpy(), t.numpy())
