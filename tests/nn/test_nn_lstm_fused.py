"""nn.LSTM in float32 without projections: one ``MkldnnRnnLayerBackward0`` node per
layer and direction, as PyTorch's CPU path. Against real PyTorch: the graph (grad_fn
names and edges), values and gradients when only some outputs are used, second order,
in-place changes of saved tensors, hooks and retain_grad on the outputs, a second
backward, anomaly mode and forward AD."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad as lg
from _outcome import builtin_name


def _tree(fn, depth=7):
    """The graph below ``fn`` as nested (name, children), None edges included."""
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return (fn.name(), [(_tree(n, depth - 1), nr) for n, nr in fn.next_functions])


def _build(T, kw, state, x, states, train=True):
    m = T.nn.LSTM(**kw)
    m.load_state_dict({k: T.tensor(v) for k, v in state.items()})
    m.train(train)
    tx = T.tensor(x, requires_grad=True)
    ts = [T.tensor(s, requires_grad=True) for s in states]
    out = m(tx, tuple(ts)) if ts else m(tx)
    return m, tx, ts, out


def _setup(kw, shape, with_states, seed=0):
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    ref = torch.nn.LSTM(**kw)
    state = {k: v.detach().numpy() for k, v in ref.state_dict().items()}
    x = rng.normal(size=shape).astype(np.float32)
    d = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
    batch = () if len(shape) == 2 else ((shape[0] if kw.get("batch_first") else shape[1]),)
    states = [rng.normal(size=(d,) + batch + (kw["hidden_size"],)).astype(np.float32)
              for _ in range(2)] if with_states else []
    return state, x, states


GRAPH_CONFIGS = [
    (dict(input_size=3, hidden_size=4), (5, 2, 3), False),
    (dict(input_size=3, hidden_size=4), (5, 2, 3), True),
    (dict(input_size=3, hidden_size=4, batch_first=True), (2, 5, 3), True),
    (dict(input_size=3, hidden_size=4), (5, 3), True),                          # unbatched
    (dict(input_size=3, hidden_size=4, batch_first=True), (5, 3), False),
    (dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True, bias=False),
     (4, 2, 3), True),
    (dict(input_size=3, hidden_size=4, num_layers=3, dropout=0.5), (3, 2, 3), False),
]


@pytest.mark.parametrize("config", range(len(GRAPH_CONFIGS)))
def test_graph_as_torch(config):
    kw, shape, with_states = GRAPH_CONFIGS[config]
    state, x, states = _setup(kw, shape, with_states)
    outs = {}
    for T in (torch, lg):
        T.manual_seed(0)
        _, _, _, (out, (h, c)) = _build(T, kw, state, x, states)
        outs[T] = [_tree(t.grad_fn) for t in (out, h, c)]
    assert outs[lg] == outs[torch]


# (kw, input shape, initial states given, which outputs the loss uses)
CONFIGS = [
    (dict(input_size=3, hidden_size=5), (6, 2, 3), True, "out"),
    (dict(input_size=3, hidden_size=5), (6, 2, 3), True, "h"),
    (dict(input_size=3, hidden_size=5), (6, 2, 3), True, "c"),
    (dict(input_size=3, hidden_size=5), (1, 3, 3), True, "out h c"),           # one step
    (dict(input_size=4, hidden_size=3, batch_first=True, bidirectional=True), (2, 5, 4),
     True, "out h c"),
    (dict(input_size=4, hidden_size=3, num_layers=2, bidirectional=True), (5, 2, 4), False,
     "h c"),
    (dict(input_size=2, hidden_size=4, batch_first=True), (5, 2), True, "out c"),
    (dict(input_size=2, hidden_size=3, num_layers=2, bias=False), (4, 1, 2), True, "out"),
]


def _grads(T, kw, state, x, states, use):
    m, tx, ts, (out, (h, c)) = _build(T, kw, state, x, states)
    rng = np.random.default_rng(1)
    picked = [t for name, t in (("out", out), ("h", h), ("c", c)) if name in use.split()]
    loss = sum((t * T.tensor(rng.normal(size=tuple(t.shape)).astype(np.float32))).sum()
               for t in picked)
    loss.backward()
    return ([t.detach().numpy() for t in (out, h, c)],
            [None if t.grad is None else t.grad.numpy() for t in [tx] + ts],
            [(n, None if p.grad is None else p.grad.numpy()) for n, p in m.named_parameters()])


@pytest.mark.parametrize("config", range(len(CONFIGS)))
def test_values_and_gradients_as_torch(config):
    kw, shape, with_states, use = CONFIGS[config]
    state, x, states = _setup(kw, shape, with_states, seed=config)
    t, l = _grads(torch, kw, state, x, states, use), _grads(lg, kw, state, x, states, use)
    tol = dict(rtol=1e-5, atol=1e-6)
    for a, b in zip(l[0], t[0]):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, **tol)
    for a, b in zip(l[1], t[1]):
        np.testing.assert_allclose(a, b, **tol)
    assert [n for n, _ in l[2]] == [n for n, _ in t[2]]
    for (n, a), (_, b) in zip(l[2], t[2]):
        assert (a is None) == (b is None), n
        if a is not None:
            np.testing.assert_allclose(a, b, err_msg=n, **tol)


@pytest.mark.parametrize("kw", [dict(input_size=3, hidden_size=4),
                                dict(input_size=3, hidden_size=4, num_layers=2,
                                     bidirectional=True)])
def test_second_order_as_torch(kw):
    state, x, states = _setup(kw, (4, 2, 3), True)
    res = {}
    for T in (torch, lg):
        m, tx, ts, (out, (h, c)) = _build(T, kw, state, x, states)
        loss = (out * out).sum() + (h * 2).sum() + (c * c * 3).sum()
        ps = [tx] + ts + list(m.parameters())
        g = T.autograd.grad(loss, ps, create_graph=True)
        g2 = T.autograd.grad(sum((gi * gi).sum() for gi in g), ps)
        res[T] = [a.detach().numpy() for a in g], [a.numpy() for a in g2]
    for a, b in zip(res[lg][0], res[torch][0]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    for a, b in zip(res[lg][1], res[torch][1]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4 * np.abs(b).max())


def _outcome(fn):
    try:
        fn()
        return None
    except Exception as e:          # the class is what is compared
        return builtin_name(type(e))


def test_in_place_changes_of_saved_tensors_as_torch():
    kw = dict(input_size=3, hidden_size=4)
    state, x, _ = _setup(kw, (5, 2, 3), False)
    for change in ("output", "h_n", "input", "weight"):
        got = {}
        for T in (torch, lg):
            m = T.nn.LSTM(**kw)
            m.load_state_dict({k: T.tensor(v) for k, v in state.items()})
            tx = T.tensor(x, requires_grad=True) * 1
            out, (h, c) = m(tx)
            loss = lambda: (out.sum() + h.sum()).backward()   # noqa: E731
            with T.no_grad():
                {"output": out, "h_n": h, "input": tx, "weight": m.weight_hh_l0}[change].add_(1)
            got[T] = _outcome(loss)
        assert got[lg] == got[torch], change


def test_hooks_and_retain_grad_on_outputs_as_torch():
    kw = dict(input_size=3, hidden_size=4, num_layers=2)
    state, x, states = _setup(kw, (5, 2, 3), True)
    res = {}
    for T in (torch, lg):
        m, tx, ts, (out, (h, c)) = _build(T, kw, state, x, states)
        out.retain_grad()
        h.register_hook(lambda g: g * 2)
        c.register_hook(lambda g: g + 1)
        seen = []
        out.grad_fn.register_hook(lambda gi, go: seen.append(len(gi)))
        (out.pow(2).sum() + h.sum() + c.sum()).backward()
        res[T] = (out.grad.numpy(), tx.grad.numpy(), ts[0].grad.numpy(), ts[1].grad.numpy(),
                  m.weight_hh_l1.grad.numpy(), seen)
    for a, b in zip(res[lg][:5], res[torch][:5]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert res[lg][5] == res[torch][5] == [7]


def test_second_backward_and_anomaly_mode_as_torch():
    kw = dict(input_size=3, hidden_size=4)
    state, x, states = _setup(kw, (5, 2, 3), True)
    res = {}
    for T in (torch, lg):
        m, tx, ts, (out, _) = _build(T, kw, state, x, states)
        out.sum().backward(retain_graph=True)
        with T.autograd.detect_anomaly():
            out.sum().backward()
        second = _outcome(lambda: out.sum().backward())
        res[T] = tx.grad.numpy(), m.weight_ih_l0.grad.numpy(), second
    np.testing.assert_allclose(res[lg][0], res[torch][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[lg][1], res[torch][1], rtol=1e-5, atol=1e-6)
    assert res[lg][2] == res[torch][2] == "RuntimeError"


def test_no_graph_without_grad_as_torch():
    kw = dict(input_size=3, hidden_size=4)
    state, x, _ = _setup(kw, (5, 2, 3), False)
    for T in (torch, lg):
        m = T.nn.LSTM(**kw)
        with T.no_grad():
            out, (h, c) = m(T.tensor(x))
        assert out.grad_fn is None and h.grad_fn is None and not out.requires_grad
        m.requires_grad_(False)
        out, _ = m(T.tensor(x))
        assert out.grad_fn is None


def test_forward_ad_as_torch():
    """float32: NotImplementedError (mkldnn_rnn_layer has no forward derivative);
    float64 runs step by step, and its tangents agree."""
    import torch.autograd.forward_ad as tfw
    import leafgrad.autograd.forward_ad as lfw
    kw = dict(input_size=3, hidden_size=4)
    state, x, _ = _setup(kw, (5, 2, 3), False)
    tan = np.random.default_rng(3).normal(size=x.shape)
    got = {}
    for T, fw in ((torch, tfw), (lg, lfw)):
        m = T.nn.LSTM(**kw)
        m.load_state_dict({k: T.tensor(v) for k, v in state.items()})
        with fw.dual_level():
            d = fw.make_dual(T.tensor(x), T.tensor(tan.astype(np.float32)))
            with pytest.raises(NotImplementedError):
                m(d)
        m = m.double()
        with fw.dual_level():
            d = fw.make_dual(T.tensor(x.astype(np.float64)), T.tensor(tan))
            got[T] = fw.unpack_dual(m(d)[0]).tangent.detach().numpy()
    np.testing.assert_allclose(got[lg], got[torch], rtol=1e-10, atol=1e-12)


def test_projection_warns_once_as_torch():
    """A float32 LSTM with projections warns once per process (it takes the step-by-step
    path); leafgrad's flag is reset so that the test does not depend on the order."""
    from leafgrad.nn.modules import rnn
    rnn._PROJ_WARNED.clear()
    m = lg.nn.LSTM(3, 4, proj_size=2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m(lg.randn(2, 1, 3))
        m(lg.randn(2, 1, 3))
    assert [str(x.message) for x in w] == [
        "LSTM with projections is not supported with oneDNN. Using default implementation."]
