"""Window functions against PyTorch: ATen's ``torch.hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window``, ``kaiser_window`` (periodic, alpha/beta, dtypes,
requires_grad, argument and dtype errors) and ``torch.signal.windows`` (sym=, parameters,
the graph PyTorch records under requires_grad, gradients, PyTorch's errors), on
hypothesis-drawn lengths and parameters in float32/float64 (and float16 for ATen's)."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad

ATEN = ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
        "kaiser_window")
SIGNAL = ("bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
          "general_hamming", "hamming", "hann", "kaiser", "nuttall")
# float32: PyTorch's vectorised cos/sin/exp against NumPy's, last bits only
TOL = {"float16": 1e-3, "float32": 2e-6, "float64": 1e-13}


def _close(a, b, d):
    assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy().astype(np.float64),
                               b.detach().numpy().astype(np.float64), rtol=TOL[d], atol=TOL[d])


@st.composite
def _aten_args(draw, name):
    args = [draw(st.integers(0, 70))]
    extra = {"hamming_window": 3, "kaiser_window": 2}.get(name, 1)
    for i in range(draw(st.integers(0, extra))):
        args.append(draw(st.booleans()) if i == 0 else
                    draw(st.floats(0.0, 20.0 if name == "kaiser_window" else 1.0)))
    return args


@pytest.mark.parametrize("name", ATEN)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_aten_window_matches_torch(name, data):
    args = data.draw(_aten_args(name))
    d = data.draw(st.sampled_from(["float16", "float32", "float64", None]))
    rg = data.draw(st.booleans())
    kw = {"requires_grad": rg} if d is None else {"dtype": getattr(leafgrad, d),
                                                   "requires_grad": rg}
    ours = getattr(leafgrad, name)(*args, **kw)
    kw.pop("dtype", None)
    theirs = getattr(torch, name)(*args, dtype=getattr(torch, d or "float32"), **kw)
    _close(ours, theirs, d or "float32")
    assert ours.requires_grad == rg and ours.is_leaf and ours.grad_fn is None


@pytest.mark.parametrize("name", ATEN)
def test_aten_window_errors_match_torch(name):
    cases = [((-1,), {}), ((3,), {"dtype": "int64"}), ((-2,), {"dtype": "int64"}),
             ((3,), {"dtype": "bool"}), ((3,), {"dtype": "complex64"}), ((3.0,), {}),
             ((True,), {}), ((5, 1), {}), ((5, None), {}), ((5, True, 0.5, 0.5, 0.5), {})]
    for args, kw in cases:
        kw = {k: getattr(torch, v) for k, v in kw.items()}
        with pytest.raises(Exception) as want:
            getattr(torch, name)(*args, **kw)
        kw = {k: getattr(leafgrad, str(v).split(".")[1]) for k, v in kw.items()}
        with pytest.raises(want.type):
            getattr(leafgrad, name)(*args, **kw)


def test_aten_window_keyword_rules_match_torch():
    for T in (torch, leafgrad):
        with pytest.raises(TypeError):
            T.hamming_window(5, alpha=0.3)          # alpha needs periodic before it
        with pytest.raises(TypeError):
            T.hamming_window(5, True, beta=0.3)     # beta needs alpha
        with pytest.raises(TypeError):
            T.kaiser_window(5, beta=2.0)
        with pytest.raises(TypeError):
            T.hann_window(5, True, 0.5)
    _close(leafgrad.hann_window(window_length=6, periodic=False),
           torch.hann_window(window_length=6, periodic=False), "float32")
    _close(leafgrad.kaiser_window(6, False, 2), torch.kaiser_window(6, False, 2), "float32")
    _close(leafgrad.hamming_window(6, True, 0.3, beta=0.2, dtype=leafgrad.float64),
           torch.hamming_window(6, True, 0.3, beta=0.2, dtype=torch.float64), "float64")
    assert leafgrad.hann_window(4, device="meta").is_meta


@st.composite
def _signal_kwargs(draw, name):
    kw = {"sym": draw(st.booleans())}
    if name == "exponential":
        kw["tau"] = draw(st.floats(0.05, 100.0))
        if not kw["sym"] and draw(st.booleans()):
            kw["center"] = draw(st.floats(-3.0, 20.0))
    elif name == "gaussian":
        kw["std"] = draw(st.floats(0.05, 20.0))
    elif name == "kaiser":
        kw["beta"] = draw(st.floats(0.0, 30.0))
    elif name == "general_cosine":
        kw["a"] = draw(st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=5))
    elif name == "general_hamming":
        kw["alpha"] = draw(st.floats(0.0, 1.0))
    return kw


@pytest.mark.parametrize("name", SIGNAL)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_signal_window_matches_torch(name, data):
    M = data.draw(st.integers(0, 60))
    kw = data.draw(_signal_kwargs(name))
    d = data.draw(st.sampled_from(["float32", "float64"]))
    rg = data.draw(st.booleans())
    ours = getattr(leafgrad.signal.windows, name)(M, dtype=getattr(leafgrad, d),
                                                  requires_grad=rg, **kw)
    theirs = getattr(torch.signal.windows, name)(M, dtype=getattr(torch, d), requires_grad=rg,
                                                 **kw)
    _close(ours, theirs, d)
    assert ours.requires_grad == theirs.requires_grad and ours.is_leaf == theirs.is_leaf
    name_of = (lambda t: t.grad_fn and t.grad_fn.name())
    assert name_of(ours) == name_of(theirs)


@pytest.mark.parametrize("name", SIGNAL)
def test_signal_window_default_dtype(name):
    kw = {"a": [0.5, 0.5]} if name == "general_cosine" else {}
    leafgrad.set_default_dtype(leafgrad.float64)
    try:
        w = getattr(leafgrad.signal.windows, name)(7, **kw)
    finally:
        leafgrad.set_default_dtype(leafgrad.float32)
    assert w.dtype == leafgrad.float64
    assert getattr(leafgrad.signal.windows, name)(7, **kw).dtype == leafgrad.float32


def test_signal_window_errors_match_torch():
    cases = [("hann", (-1,), {}), ("hann", (3,), {"dtype": "float16"}),
             ("bartlett", (5,), {"dtype": "int64"}), ("gaussian", (3,), {"std": 0}),
             ("exponential", (3,), {"center": 1.0}), ("exponential", (3,), {"tau": 0}),
             ("kaiser", (3,), {"beta": -1}), ("general_cosine", (3,), {"a": 5}),
             ("general_cosine", (3,), {"a": []}), ("hann", (5.0,), {}),
             ("cosine", (-3,), {"dtype": "int32"})]
    for name, args, kw in cases:
        tkw = {k: getattr(torch, v) if k == "dtype" else v for k, v in kw.items()}
        with pytest.raises(Exception) as want:
            getattr(torch.signal.windows, name)(*args, **tkw)
        lkw = {k: getattr(leafgrad, v) if k == "dtype" else v for k, v in kw.items()}
        with pytest.raises(want.type) as got:
            getattr(leafgrad.signal.windows, name)(*args, **lkw)
        if want.type is ValueError:
            assert str(got.value) == str(want.value)


@pytest.mark.parametrize("name", ("kaiser", "hann", "gaussian", "exponential", "cosine",
                                  "bartlett", "nuttall"))
@settings(max_examples=15, deadline=None)
@given(M=st.integers(2, 30), sym=st.booleans())
def test_signal_window_gradients_match_torch(name, M, sym):
    """The windows are functions of the linspace (and coefficient) leaves PyTorch builds
    inside: backward reaches them through the recorded graph; their gradients as PyTorch's."""
    grads = []
    for T in (leafgrad, torch):
        w = getattr(T.signal.windows, name)(M, sym=sym, dtype=T.float64, requires_grad=True)
        (w * T.tensor(np.linspace(0.5, 1.5, M))).sum().backward()
        grads.append(sorted((tuple(v.shape), v.grad.numpy().tolist()) for v in _leaves(w)))
    assert grads[0] and [s for s, _ in grads[0]] == [s for s, _ in grads[1]]
    for (_, a), (_, b) in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def _leaves(t):
    seen, out, todo = set(), [], [t.grad_fn]
    while todo:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if hasattr(n, "variable"):
            out.append(n.variable)
        todo.extend(f for f, _ in n.next_functions)
    return out


def test_signal_module_paths():
    import importlib
    mod = importlib.import_module("leafgrad.signal.windows.windows")
    assert mod.hann is leafgrad.signal.windows.hann
    assert sorted(leafgrad.signal.windows.__all__) == sorted(torch.signal.windows.__all__)


@pytest.mark.parametrize("beta", [33.3, 50.0, 85.0, 88.7, 89.0, 90.0, 100.0, 700.0, 710.0, 800.0,
                                  float("inf")])
@pytest.mark.parametrize("d", ["float16", "float32", "float64"])
def test_kaiser_window_large_beta_overflows_as_torch(beta, d):
    """ATen's float32 I0 overflows once exp(x) does (past 88.7), float64's past 709: the
    window is then 0 at the edges and nan in the middle, as PyTorch's. The window's
    relative condition is about beta (1 ulp of the argument), so float32 is compared to
    beta float32 ulps."""
    for L, periodic in ((6, False), (17, True), (40, False)):
        ours = leafgrad.kaiser_window(L, periodic, beta, dtype=getattr(leafgrad, d)).numpy()
        want = torch.kaiser_window(L, periodic, beta, dtype=getattr(torch, d)).numpy()
        rtol = {"float16": 1e-3, "float32": 1.2e-7 * min(beta, 100.0), "float64": 1e-12}[d]
        np.testing.assert_allclose(ours.astype(np.float64), want.astype(np.float64),
                                   rtol=rtol, atol=1e-37, equal_nan=True)
