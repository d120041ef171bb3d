"""Layers, activations, normalisation, embedding and loss modules against real PyTorch:
same repr, same forward values, same gradients (weights copied from torch)."""
import math

import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn

RTOL, ATOL = 1e-5, 1e-6


def arr(*shape, seed=0, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def copy_weights(tmod, lmod):
    lmod.load_state_dict({k: lg.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()})


def run_both(tmod, lmod, *inputs, grad=True):
    """Forward both on the same inputs, backward sum(out * w); return (t_out, l_out, t_in, l_in)."""
    t_in = [torch.tensor(x, requires_grad=grad and x.dtype.kind == "f") for x in inputs]
    l_in = [lg.tensor(x, requires_grad=grad and x.dtype.kind == "f") for x in inputs]
    tout, lout = tmod(*t_in), lmod(*l_in)
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), rtol=RTOL, atol=ATOL)
    if grad:
        w = arr(*tout.shape, seed=7) if tout.dim() else np.float32(1.3)
        (tout * torch.tensor(w)).sum().backward()
        (lout * lg.tensor(w)).sum().backward()
        for t, l in zip(t_in, l_in):
            if t.requires_grad:
                np.testing.assert_allclose(l.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)
        for (tn, tp), (ln, lp) in zip(tmod.named_parameters(), lmod.named_parameters()):
            assert tn == ln
            np.testing.assert_allclose(lp.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-5)
    return tout, lout


REPR_CASES = [
    "ReLU()", "ReLU(inplace=True)", "Sigmoid()", "Tanh()", "LeakyReLU()", "LeakyReLU(0.2, True)",
    "ELU()", "GELU()", "GELU('tanh')", "SiLU()", "Softplus()", "Softplus(beta=2.0)",
    "Softmax(dim=1)", "Softmax()", "LogSoftmax(1)", "Hardtanh()", "ReLU6()", "Mish()",
    "Softsign()", "Hardsigmoid()", "Hardswish()", "SELU()", "CELU()", "PReLU()",
    "Threshold(0.1, 20)", "Tanhshrink()", "LogSigmoid()", "Softmin(1)", "GLU()",
    "Dropout()", "Dropout(0.2)", "Dropout1d()", "AlphaDropout()", "Identity()",
    "Linear(4, 3)", "Linear(4, 3, bias=False)", "Bilinear(2, 3, 4)",
    "Embedding(10, 3)", "Embedding(10, 3, padding_idx=0)", "Embedding(10, 3, max_norm=1.0)",
    "LayerNorm(4)", "LayerNorm([3, 4], elementwise_affine=False)", "LayerNorm(4, bias=False)",
    "BatchNorm1d(3)", "BatchNorm1d(3, affine=False, track_running_stats=False)",
    "BatchNorm2d(5, momentum=None)", "Flatten()", "Flatten(0, 2)", "Unflatten(1, (2, 3))",
    "MSELoss()", "L1Loss(reduction='sum')", "BCELoss()", "BCEWithLogitsLoss()",
    "CrossEntropyLoss()", "NLLLoss()", "SmoothL1Loss()", "HuberLoss()", "KLDivLoss()",
    "Sequential(Linear(4, 3), ReLU(), Linear(3, 1))",
    "Sequential(Linear(2, 2), Sequential(Linear(2, 2), Tanh()))",
    "ModuleList([Linear(2, 2), Linear(2, 2), ReLU()])", "ModuleList()", "Sequential()",
    "ModuleDict({'a': ReLU(), 'b': Linear(1, 1)})",
]


@pytest.mark.parametrize("expr", REPR_CASES)
def test_repr_matches_torch(expr):
    t = eval(expr, {**vars(torch.nn)})
    m = eval(expr, {**vars(lnn)})
    assert repr(m) == repr(t)


def test_parameter_containers_repr():
    tl = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(2, 3)), torch.zeros(3)])
    ll = lnn.ParameterList([lnn.Parameter(lg.zeros(2, 3)), lg.zeros(3)])
    assert repr(ll) == repr(tl)
    td = torch.nn.ParameterDict({"b": torch.nn.Parameter(torch.zeros(2)), "a": torch.zeros(1)})
    ld = lnn.ParameterDict({"b": lnn.Parameter(lg.zeros(2)), "a": lg.zeros(1)})
    assert repr(ld) == repr(td)
    assert list(ld.keys()) == list(td.keys()) == ["a", "b"]
    assert [n for n, _ in ll.named_parameters()] == ["0", "1"]
    assert isinstance(ll[1], lnn.Parameter) and isinstance(ld["a"], lnn.Parameter)


def test_linear_default_init_bounds():
    lg.manual_seed(0)
    lin = lnn.Linear(50, 40)
    bound = 1 / math.sqrt(50)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.9 * bound                      # spread over the whole range
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01
    assert w.dtype == np.float32 and lin.weight.requires_grad


@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(bias):
    t, l = torch.nn.Linear(5, 3, bias=bias), lnn.Linear(5, 3, bias=bias)
    copy_weights(t, l)
    run_both(t, l, arr(4, 5))
    t.zero_grad(), l.zero_grad()
    run_both(t, l, arr(2, 6, 5, seed=2))          # batched leading dims


def test_linear_wrong_input_raises():
    with pytest.raises(RuntimeError):
        lnn.Linear(3, 2)(lg.ones(4, 5))


def test_bilinear_matches_torch():
    t, l = torch.nn.Bilinear(3, 4, 2), lnn.Bilinear(3, 4, 2)
    copy_weights(t, l)
    run_both(t, l, arr(5, 3), arr(5, 4, seed=1))


ACTIVATIONS = ["ReLU()", "Sigmoid()", "Tanh()", "LeakyReLU(0.1)", "ELU(0.7)", "GELU()",
               "GELU('tanh')", "SiLU()", "Softplus(2.0, 5.0)", "Softmax(dim=1)",
               "LogSoftmax(dim=-1)", "Softmin(dim=0)", "Hardtanh(-0.5, 0.7)", "ReLU6()",
               "Mish()", "Softsign()", "Hardsigmoid()", "Hardswish()", "SELU()", "CELU(1.3)",
               "Tanhshrink()", "LogSigmoid()", "Threshold(0.1, -2.0)", "GLU()", "PReLU()",
               "PReLU(4)", "Identity()", "Flatten()", "Unflatten(1, (2, 2))"]


@pytest.mark.parametrize("expr", ACTIVATIONS)
def test_activation_matches_torch(expr):
    t = eval(expr, {**vars(torch.nn)})
    l = eval(expr, {**vars(lnn)})
    copy_weights(t, l)
    x = arr(3, 4, scale=4.0)
    x[0, 0] = 7.0                                    # beyond the hard limits
    run_both(t, l, x)


def test_dropout_train_and_eval():
    lg.manual_seed(0)
    d = lnn.Dropout(0.25)
    x = lg.ones(200, 50, requires_grad=True)
    y = d(x)
    vals = np.unique(y.detach().numpy())
    np.testing.assert_allclose(sorted(vals), [0.0, 1 / 0.75], rtol=1e-6)
    frac = (y.detach().numpy() == 0).mean()
    assert 0.2 < frac < 0.3
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy() == 0, y.detach().numpy() == 0)
    d.eval()
    assert d(x) is x or np.array_equal(d(x).detach().numpy(), x.detach().numpy())
    with pytest.raises(ValueError, match="dropout probability"):
        lnn.Dropout(1.5)


def test_embedding_matches_torch_with_padding_idx():
    t = torch.nn.Embedding(6, 3, padding_idx=2)
    l = lnn.Embedding(6, 3, padding_idx=2)
    copy_weights(t, l)
    idx = np.array([[0, 2, 5], [2, 2, 1]])
    tout = t(torch.tensor(idx))
    lout = l(lg.tensor(idx))
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy())
    w = arr(2, 3, 3)
    (tout * torch.tensor(w)).sum().backward()
    (lout * lg.tensor(w)).sum().backward()
    np.testing.assert_allclose(l.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-6, atol=1e-6)
    assert not l.weight.grad.numpy()[2].any()


def test_embedding_init_and_errors():
    lg.manual_seed(1)
    e = lnn.Embedding(1000, 8, padding_idx=-1)
    assert e.padding_idx == 999
    w = e.weight.detach().numpy()
    assert not w[999].any()
    assert abs(w[:999].std() - 1.0) < 0.05
    with pytest.raises(IndexError):
        e(lg.tensor([1000]))
    with pytest.raises(RuntimeError):
        e(lg.tensor([1.0]))
    pre = lnn.Embedding.from_pretrained(lg.ones(3, 2))
    assert not pre.weight.requires_grad


def test_embedding_max_norm_matches_torch():
    t = torch.nn.Embedding(5, 4, max_norm=1.0)
    l = lnn.Embedding(5, 4, max_norm=1.0)
    copy_weights(t, l)
    idx = np.array([0, 3, 3])
    tout, lout = t(torch.tensor(idx)), l(lg.tensor(idx))
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(l.weight.detach().numpy(), t.weight.detach().numpy(), rtol=1e-5)


@pytest.mark.parametrize("kw", [{}, {"elementwise_affine": False}, {"bias": False},
                                {"eps": 1e-3}])
def test_layernorm_matches_torch(kw):
    t, l = torch.nn.LayerNorm([3, 4], **kw), lnn.LayerNorm([3, 4], **kw)
    if kw.get("elementwise_affine", True):
        with torch.no_grad():
            t.weight.normal_()
            if t.bias is not None:
                t.bias.normal_()
    copy_weights(t, l)
    run_both(t, l, arr(2, 3, 4, scale=3.0))


def test_layernorm_shape_error_message_matches_torch():
    with pytest.raises(RuntimeError) as lerr:
        lnn.LayerNorm(4)(lg.zeros(1, 3))
    with pytest.raises(RuntimeError) as terr:
        torch.nn.LayerNorm(4)(torch.zeros(1, 3))
    assert str(lerr.value) == str(terr.value)


@pytest.mark.parametrize("shape,kw", [((8, 3), {}), ((4, 3, 5), {}), ((8, 3), {"momentum": None}),
                                      ((8, 3), {"affine": False}),
                                      ((8, 3), {"track_running_stats": False})])
def test_batchnorm1d_train_eval_matches_torch(shape, kw):
    t, l = torch.nn.BatchNorm1d(3, **kw), lnn.BatchNorm1d(3, **kw)
    if t.affine:
        with torch.no_grad():
            t.weight.uniform_(0.5, 1.5)
            t.bias.normal_()
    copy_weights(t, l)
    for step in range(3):
        t.zero_grad(), l.zero_grad()
        run_both(t, l, arr(*shape, seed=step, scale=2.0))
    for (tk, tv), (lk, lv) in zip(t.state_dict().items(), l.state_dict().items()):
        assert tk == lk
        np.testing.assert_allclose(lv.numpy(), tv.numpy(), rtol=1e-5, atol=1e-6)
    t.eval(), l.eval()
    t.zero_grad(), l.zero_grad()
    run_both(t, l, arr(*shape, seed=9))


def test_batchnorm_errors_match_torch():
    for lib, mk in ((lnn, lg.zeros), (torch.nn, torch.zeros)):
        with pytest.raises(ValueError, match="expected 2D or 3D input"):
            lib.BatchNorm1d(3)(mk(2, 3, 4, 5))
        with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
            lib.BatchNorm1d(3)(mk(1, 3))


def test_batchnorm2d_matches_torch():
    t, l = torch.nn.BatchNorm2d(2), lnn.BatchNorm2d(2)
    copy_weights(t, l)
    run_both(t, l, arr(3, 2, 4, 4))
    np.testing.assert_allclose(l.running_var.numpy(), t.running_var.numpy(), rtol=1e-5)


def _targets(kind, n=6, c=4, seed=3):
    rng = np.random.default_rng(seed)
    if kind == "class":
        return rng.integers(0, c, n)
    if kind == "prob01":
        return rng.random((n, c)).astype(np.float32)
    if kind == "binary":
        return (rng.random((n, c)) > 0.5).astype(np.float32)
    if kind == "dist":
        p = rng.random((n, c)).astype(np.float32)
        return p / p.sum(1, keepdims=True)
    return arr(n, c, seed=seed)


LOSSES = [
    ("MSELoss()", "real", "real"), ("MSELoss(reduction='sum')", "real", "real"),
    ("L1Loss()", "real", "real"), ("L1Loss(reduction='none')", "real", "real"),
    ("SmoothL1Loss(beta=0.5)", "real", "real"), ("HuberLoss(delta=0.7)", "real", "real"),
    ("BCELoss()", "prob", "prob01"), ("BCEWithLogitsLoss()", "real", "binary"),
    ("BCEWithLogitsLoss(pos_weight=P)", "real", "binary"),
    ("CrossEntropyLoss()", "real", "class"), ("CrossEntropyLoss(weight=W)", "real", "class"),
    ("CrossEntropyLoss(label_smoothing=0.1)", "real", "class"),
    ("CrossEntropyLoss(ignore_index=1)", "real", "class"),
    ("CrossEntropyLoss(reduction='sum')", "real", "class"),
    ("CrossEntropyLoss()", "real", "dist"), ("NLLLoss()", "logp", "class"),
    ("NLLLoss(weight=W, reduction='sum')", "logp", "class"),
    ("KLDivLoss(reduction='batchmean')", "logp", "dist"),
]


@pytest.mark.parametrize("expr,inp,tgt", LOSSES)
def test_loss_modules_match_torch(expr, inp, tgt):
    w = np.array([0.5, 1.0, 2.0, 0.25], dtype=np.float32)
    t = eval(expr, {**vars(torch.nn), "W": torch.tensor(w), "P": torch.tensor(w)})
    l = eval(expr, {**vars(lnn), "W": lg.tensor(w), "P": lg.tensor(w)})
    x = arr(6, 4, seed=5, scale=2.0)
    if inp == "prob":
        x = 1 / (1 + np.exp(-x))
    elif inp == "logp":
        x = x - np.log(np.exp(x).sum(1, keepdims=True))
    y = _targets(tgt)
    tx, lx = torch.tensor(x, requires_grad=True), lg.tensor(x, requires_grad=True)
    tout, lout = t(tx, torch.tensor(y)), l(lx, lg.tensor(y))
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-6)
    tout.sum().backward()
    lout.sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-6)
    assert repr(l) == repr(t)
    assert list(l.state_dict()) == list(t.state_dict())


def test_sequential_container_api():
    a, b, c = lnn.Linear(2, 3), lnn.ReLU(), lnn.Linear(3, 1)
    seq = lnn.Sequential(a, b)
    assert len(seq) == 2 and seq[0] is a and seq[-1] is b
    seq.append(c)
    assert list(seq) == [a, b, c]
    sl = seq[1:]
    assert isinstance(sl, lnn.Sequential) and list(sl) == [b, c]
    assert list(sl._modules) == ["1", "2"]                     # keys kept, as torch
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and seq[0] is b
    from collections import OrderedDict
    named = lnn.Sequential(OrderedDict([("inp", a), ("act", b)]))
    assert list(named.state_dict()) == ["inp.weight", "inp.bias"]
    assert named.inp is a
    with pytest.raises(IndexError):
        named[5]
    y = lnn.Sequential(a, b, c)(lg.ones(4, 2))
    assert tuple(y.shape) == (4, 1)


def test_modulelist_and_moduledict():
    ml = lnn.ModuleList([lnn.Linear(1, 1) for _ in range(3)])
    ml.append(lnn.ReLU())
    ml.extend([lnn.Tanh()])
    assert len(ml) == 5 and isinstance(ml[-1], lnn.Tanh)
    assert [n for n, _ in ml.named_parameters()][:2] == ["0.weight", "0.bias"]
    with pytest.raises(TypeError):
        ml.extend(3)
    md = lnn.ModuleDict({"x": lnn.Linear(1, 2)})
    md["y"] = lnn.ReLU()
    assert list(md.keys()) == ["x", "y"] and "y" in md and len(md) == 2
    assert [n for n, _ in md.named_parameters()] == ["x.weight", "x.bias"]
    assert md.pop("y").__class__ is lnn.ReLU


def test_functional_norms_and_embedding_match_torch():
    import torch.nn.functional as TF
    import leafgrad.nn.functional as LF
    x = arr(4, 3, 5, scale=2.0)
    w, b = arr(5, seed=1), arr(5, seed=2)
    np.testing.assert_allclose(
        LF.layer_norm(lg.tensor(x), (5,), lg.tensor(w), lg.tensor(b)).numpy(),
        TF.layer_norm(torch.tensor(x), (5,), torch.tensor(w), torch.tensor(b)).numpy(),
        rtol=RTOL, atol=ATOL)
    rm_l, rv_l = lg.zeros(3), lg.ones(3)
    rm_t, rv_t = torch.zeros(3), torch.ones(3)
    lo = LF.batch_norm(lg.tensor(x), rm_l, rv_l, training=True, momentum=0.2)
    to = TF.batch_norm(torch.tensor(x), rm_t, rv_t, training=True, momentum=0.2)
    np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(rv_l.numpy(), rv_t.numpy(), rtol=RTOL)
    lo = LF.batch_norm(lg.tensor(x), rm_l, rv_l)
    to = TF.batch_norm(torch.tensor(x), rm_t, rv_t)
    np.testing.assert_allclose(lo.numpy(), to.numpy(), rtol=RTOL, atol=ATOL)
    wt = arr(5, 2)
    lw, tw = lg.tensor(wt, requires_grad=True), torch.tensor(wt, requires_grad=True)
    idx = np.array([1, 0, 1, 4])
    LF.embedding(lg.tensor(idx), lw, padding_idx=1).sum().backward()
    TF.embedding(torch.tensor(idx), tw, padding_idx=1).sum().backward()
    np.testing.assert_array_equal(lw.grad.numpy(), tw.grad.numpy())
