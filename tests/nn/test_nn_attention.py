"""Attention and transformers against real PyTorch 2.13: F.scaled_dot_product_attention,
nn.MultiheadAttention, TransformerEncoder(Layer), TransformerDecoder(Layer), Transformer.
Weights are copied through state_dict; outputs and gradients (input and parameters) must
match, in train mode with dropout 0 and in eval mode (PyTorch's fast paths)."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn
import leafgrad.nn.functional as LF
import torch.nn.functional as TF
from leafgrad.autograd import gradcheck, gradgradcheck

RTOL, ATOL = 1e-4, 1e-5


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def close(l, t, rtol=RTOL, atol=ATOL):
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def pair(x, grad=True):
    """The same array as a torch and a leafgrad tensor."""
    g = grad and x.dtype.kind == "f"
    return torch.tensor(x, requires_grad=g), lg.tensor(x, requires_grad=g)


def copy_weights(tmod, lmod):
    sd = tmod.state_dict()
    assert list(lmod.state_dict()) == list(sd)
    lmod.load_state_dict({k: lg.tensor(v.detach().numpy()) for k, v in sd.items()})


def check_grads(tout, lout, tins, lins, tmod=None, lmod=None):
    w = arr(*tout.shape, seed=9)
    (tout * torch.tensor(w)).sum().backward()
    (lout * lg.tensor(w)).sum().backward()
    for t, l in zip(tins, lins):
        if t is not None and t.requires_grad:
            close(l.grad, t.grad, 1e-3, 1e-4)
    if tmod is not None:
        tp = dict(tmod.named_parameters())
        for n, p in lmod.named_parameters():
            if tp[n].grad is None:
                assert p.grad is None or not p.grad.numpy().any(), n
            else:
                close(p.grad, tp[n].grad, 1e-3, 1e-4)


# ------------------------------------------------------------------- SDPA
def _mask(kind, shape, seed=3):
    rng = np.random.default_rng(seed)
    if kind == "bool":
        m = rng.random(shape) > 0.4
        m[..., 1, :] = False                  # a fully masked row: zeros, not NaN
        return m
    return rng.standard_normal(shape).astype(np.float32)


SDPA = [
    ((2, 4, 3, 8), (2, 4, 5, 8), (2, 4, 5, 6), {}),
    ((2, 4, 5, 8), (2, 4, 5, 8), (2, 4, 5, 8), {"is_causal": True}),
    ((2, 4, 3, 8), (2, 4, 6, 8), (2, 4, 6, 8), {"is_causal": True}),     # L < S: top-left
    ((3, 8), (5, 8), (5, 4), {"scale": 0.3}),
    ((2, 4, 3, 8), (2, 4, 5, 8), (2, 4, 5, 6), {"attn_mask": ("bool", (3, 5))}),
    ((2, 4, 3, 8), (2, 4, 5, 8), (2, 4, 5, 6), {"attn_mask": ("float", (2, 1, 3, 5))}),
    ((2, 4, 3, 8), (2, 2, 5, 8), (2, 2, 5, 8), {"enable_gqa": True}),
    ((2, 6, 3, 8), (2, 3, 5, 8), (2, 3, 5, 8), {"enable_gqa": True, "is_causal": True}),
    ((1, 4, 3, 8), (2, 1, 5, 8), (2, 1, 5, 8), {}),                       # batch broadcast
]


@pytest.mark.parametrize("qs,ks,vs,kw", SDPA)
def test_sdpa_matches_torch(qs, ks, vs, kw):
    tq, lq = pair(arr(*qs, seed=1))
    tk, lk = pair(arr(*ks, seed=2))
    tv, lv = pair(arr(*vs, seed=3))
    tkw, lkw = dict(kw), dict(kw)
    if "attn_mask" in kw:
        m = _mask(*kw["attn_mask"])
        tkw["attn_mask"], lkw["attn_mask"] = torch.tensor(m), lg.tensor(m)
    tout = TF.scaled_dot_product_attention(tq, tk, tv, **tkw)
    lout = LF.scaled_dot_product_attention(lq, lk, lv, **lkw)
    close(lout, tout)
    assert not np.isnan(lout.detach().numpy()).any()
    if "Flash" in type(tout.grad_fn).__name__:
        assert type(lout.grad_fn).__name__ == type(tout.grad_fn).__name__
    check_grads(tout, lout, (tq, tk, tv), (lq, lk, lv))


def test_sdpa_causal_and_mask_combine_without_grad():
    q, k, v = arr(1, 2, 3, 8, seed=1), arr(1, 2, 5, 8, seed=2), arr(1, 2, 5, 8, seed=3)
    m = np.random.default_rng(0).random((3, 5)) > 0.3
    with torch.no_grad():
        t = TF.scaled_dot_product_attention(*map(torch.tensor, (q, k, v)),
                                            attn_mask=torch.tensor(m), is_causal=True)
    l = LF.scaled_dot_product_attention(*map(lg.tensor, (q, k, v)), attn_mask=lg.tensor(m),
                                        is_causal=True)
    close(l, t)
    with pytest.raises(RuntimeError, match="is_causal"):
        LF.scaled_dot_product_attention(lg.tensor(q, requires_grad=True), lg.tensor(k),
                                        lg.tensor(v), attn_mask=lg.tensor(m), is_causal=True)


def test_sdpa_second_order_float64():
    rng = np.random.default_rng(0)
    q, k, v = (lg.tensor(rng.standard_normal(s), requires_grad=True)
               for s in ((2, 3, 4), (2, 5, 4), (2, 5, 3)))
    m = lg.tensor(rng.random((3, 5)) > 0.3)
    f = lambda a, b, c: LF.scaled_dot_product_attention(a, b, c, attn_mask=m)  # noqa: E731
    assert gradcheck(f, (q, k, v))
    assert gradgradcheck(f, (q, k, v))


def test_sdpa_dropout_statistics():
    q = lg.ones(1, 1, 2000, 4)
    v = lg.ones(1, 1, 3, 4)
    out = LF.scaled_dot_product_attention(q, lg.ones(1, 1, 3, 4), v, dropout_p=0.5)
    # each weight is 1/3, kept and scaled by 2 or dropped: sums of k * 2/3
    k = out.numpy() * 1.5
    np.testing.assert_allclose(k, np.round(k), atol=1e-5)
    assert set(np.round(k).ravel()) <= {0.0, 1.0, 2.0, 3.0}
    assert abs(out.numpy().mean() - 1.0) < 0.1


@pytest.mark.parametrize("call", [
    lambda F, q, k, v: F.scaled_dot_product_attention(q[0, 0, 0], k[0, 0, 0], v[0, 0, 0]),
    lambda F, q, k, v: F.scaled_dot_product_attention(q.double(), k, v),
    lambda F, q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=(k[0, 0, :3, :5] > 0)
                                                      .long()),
    lambda F, q, k, v: F.scaled_dot_product_attention(q, k, v, dropout_p=1.5),
    lambda F, q, k, v: F.scaled_dot_product_attention(q, k[:, :3], v[:, :3], enable_gqa=True),
])
def test_sdpa_errors_as_torch(call):
    shapes = ((2, 4, 3, 8), (2, 4, 5, 8), (2, 4, 5, 8))
    with pytest.raises(RuntimeError):
        call(TF, *(torch.randn(*s) for s in shapes))
    with pytest.raises(RuntimeError, match="Fix:"):
        call(LF, *(lg.randn(*s) for s in shapes))
    with pytest.raises(RuntimeError):       # heads that do not broadcast
        LF.scaled_dot_product_attention(lg.randn(2, 4, 3, 8), lg.randn(2, 2, 5, 8),
                                        lg.randn(2, 2, 5, 8))


# --------------------------------------------------------- MultiheadAttention
MHA = [
    ({}, {}),
    ({"batch_first": True}, {}),
    ({"bias": False}, {"need_weights": False}),
    ({"kdim": 5, "vdim": 3}, {}),
    ({"kdim": 5, "vdim": 3, "batch_first": True}, {"average_attn_weights": False}),
    ({"add_bias_kv": True}, {"attn_mask": "bool2"}),
    ({"add_zero_attn": True}, {"key_padding_mask": "bool"}),
    ({"add_bias_kv": True, "add_zero_attn": True}, {"key_padding_mask": "bool",
                                                     "need_weights": False}),
    ({}, {"key_padding_mask": "float", "attn_mask": "float2"}),
    ({}, {"attn_mask": "bool3", "need_weights": False}),
    ({"batch_first": True}, {"attn_mask": "causal", "is_causal": True, "need_weights": False}),
    ({"batch_first": True}, {"attn_mask": "causal", "is_causal": True}),
    ({"batch_first": True}, {"key_padding_mask": "bool", "need_weights": False}),
]


def _mha_masks(kw, L, S, N, H):
    rng = np.random.default_rng(5)
    out = {}
    for name, kind in kw.items():
        if name not in ("attn_mask", "key_padding_mask"):
            out[name] = (kind, kind)
            continue
        if kind == "causal":
            m = np.triu(np.full((L, S), -np.inf, np.float32), 1)
        elif name == "key_padding_mask":
            m = rng.random((N, S)) > 0.6
            m[:, 0] = False
            if kind == "float":
                m = np.where(m, -np.inf, rng.standard_normal((N, S))).astype(np.float32)
        else:
            shape = (L, S) if kind.endswith("2") else (N * H, L, S)
            m = rng.random(shape) > 0.7
            m[..., 0] = False
            if kind.startswith("float"):
                m = np.where(m, -np.inf, rng.standard_normal(shape)).astype(np.float32)
        out[name] = (torch.tensor(m), lg.tensor(m))
    return out


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("ctor,call", MHA)
def test_mha_matches_torch(ctor, call, train):
    E, H, L, S, N = 8, 2, 4, 6, 3
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(E, H, **ctor)
    lm = lnn.MultiheadAttention(E, H, **ctor)
    copy_weights(tm, lm)
    tm.train(train), lm.train(train)
    bf = ctor.get("batch_first", False)
    shp = lambda n, d: (N, n, d) if bf else (n, N, d)  # noqa: E731
    selfattn = "kdim" not in ctor
    tq, lq = pair(arr(*shp(L if not selfattn else S, E), seed=1))
    if selfattn:
        tk, lk, tv, lv = tq, lq, tq, lq
        L = S
    else:
        tk, lk = pair(arr(*shp(S, ctor["kdim"]), seed=2))
        tv, lv = pair(arr(*shp(S, ctor["vdim"]), seed=3))
    masks = _mha_masks(call, L, S, N, H)
    tkw = {k: v[0] for k, v in masks.items()}
    lkw = {k: v[1] for k, v in masks.items()}
    tout, tw = tm(tq, tk, tv, **tkw)
    lout, lw = lm(lq, lk, lv, **lkw)
    close(lout, tout)
    if tw is None:
        assert lw is None
    else:
        close(lw, tw)
    check_grads(tout, lout, (tq, tk, tv), (lq, lk, lv), tm, lm)


def test_mha_unbatched_and_no_grad_fast_path():
    E, H = 8, 2
    tm, lm = torch.nn.MultiheadAttention(E, H, batch_first=True), \
        lnn.MultiheadAttention(E, H, batch_first=True)
    copy_weights(tm, lm)
    x = arr(5, E)
    kpm = np.array([False, False, True, False, True])
    t = tm(*(torch.tensor(x),) * 3, key_padding_mask=torch.tensor(kpm))
    l = lm(*(lg.tensor(x),) * 3, key_padding_mask=lg.tensor(kpm))
    close(l[0], t[0]), close(l[1], t[1])
    tm.eval(), lm.eval()
    xb = arr(3, 5, E)
    kb = np.zeros((3, 5), bool)
    kb[1, 3:] = True
    with torch.no_grad():
        t = tm(*(torch.tensor(xb),) * 3, key_padding_mask=torch.tensor(kb), need_weights=False)
    with lg.no_grad():
        l = lm(*(lg.tensor(xb),) * 3, key_padding_mask=lg.tensor(kb), need_weights=False)
    close(l[0], t[0])


REPRS = [
    "MultiheadAttention(8, 2)", "MultiheadAttention(8, 2, kdim=3, vdim=5, bias=False)",
    "TransformerEncoderLayer(8, 2, 16)", "TransformerDecoderLayer(8, 2, 16, activation='gelu')",
    "TransformerEncoderLayer(8, 2, 16, activation=GELU())",
    "TransformerEncoder(TransformerEncoderLayer(8, 2, 16, batch_first=True), 2, LayerNorm(8))",
    "Transformer(8, 2, 1, 1, 16)",
]


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
@pytest.mark.parametrize("expr", REPRS)
def test_repr_and_state_dict_match_torch(expr):
    t, l = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    assert repr(l) == repr(t)
    tsd, lsd = t.state_dict(), l.state_dict()
    assert list(lsd) == list(tsd)
    for k in tsd:
        assert tuple(lsd[k].shape) == tuple(tsd[k].shape), k


def test_mha_default_init():
    lg.manual_seed(0)
    m = lnn.MultiheadAttention(16, 4, add_bias_kv=True)
    bound = (6 / (16 + 48)) ** 0.5                      # xavier_uniform_ on (48, 16)
    w = m.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert not m.in_proj_bias.detach().numpy().any() and not m.out_proj.bias.detach().numpy().any()
    assert m.bias_k.shape == (1, 1, 16) and m.bias_k.detach().numpy().any()
    m2 = lnn.MultiheadAttention(8, 2, add_bias_kv=False)
    assert m2.bias_k is None and "bias_k" not in dict(m2.named_parameters())


@pytest.mark.parametrize("call", [
    lambda nn: nn.MultiheadAttention(0, 2),
    lambda nn: nn.MultiheadAttention(8, 3),
    lambda nn: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
])
def test_constructor_errors_as_torch(call):
    with pytest.raises(Exception) as te:
        call(torch.nn)
    with pytest.raises(type(te.value)):
        call(lnn)


@pytest.mark.parametrize("call", [
    lambda m, x, lib: m(x, x, x, is_causal=True),                        # needs attn_mask
    lambda m, x, lib: m(x, x, x, attn_mask=lib.ones(3, 3)),              # wrong 2-D shape
    lambda m, x, lib: m(x, x, x, key_padding_mask=lib.ones(4, 5).long()),  # int mask
    lambda m, x, lib: m(x[0, 0], x[0, 0], x[0, 0]),                      # 1-D query
])
def test_mha_forward_errors_as_torch(call):
    tm, lm = torch.nn.MultiheadAttention(8, 2), lnn.MultiheadAttention(8, 2)
    with pytest.raises(Exception) as te:
        call(tm, torch.randn(5, 4, 8), torch)
    with pytest.raises(type(te.value)):
        call(lm, lg.randn(5, 4, 8), lg)


# --------------------------------------------------------------- transformers
LAYERS = [
    {}, {"norm_first": True}, {"batch_first": True}, {"activation": "gelu"},
    {"activation": "gelu_module"}, {"activation": "callable"}, {"bias": False},
    {"layer_norm_eps": 1e-3, "batch_first": True, "norm_first": True},
]


def _ctor(kw, lib):
    kw = dict(kw)
    if kw.get("activation") == "gelu_module":
        kw["activation"] = lib.nn.GELU()
    elif kw.get("activation") == "callable":
        kw["activation"] = lib.tanh
    return kw


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("kw", LAYERS)
def test_encoder_decoder_layers_match_torch(kw, train):
    d, h, f, S, T, N = 8, 2, 16, 5, 4, 3
    bf = kw.get("batch_first", False)
    shp = lambda n: (N, n, d) if bf else (n, N, d)  # noqa: E731
    for kind in ("enc", "dec"):
        cls = "TransformerEncoderLayer" if kind == "enc" else "TransformerDecoderLayer"
        torch.manual_seed(1)
        tm = getattr(torch.nn, cls)(d, h, f, dropout=0.0, **_ctor(kw, torch))
        lm = getattr(lnn, cls)(d, h, f, dropout=0.0, **_ctor(kw, lg))
        copy_weights(tm, lm)
        tm.train(train), lm.train(train)
        tx, lx = pair(arr(*shp(T), seed=1))
        kpm = np.zeros((N, T), bool)
        kpm[0, -1] = True
        causal = np.triu(np.full((T, T), -np.inf, np.float32), 1)
        if kind == "enc":
            targs = dict(src_mask=torch.tensor(causal), src_key_padding_mask=torch.tensor(kpm))
            largs = dict(src_mask=lg.tensor(causal), src_key_padding_mask=lg.tensor(kpm))
            tout, lout = tm(tx, **targs), lm(lx, **largs)
            tins, lins = (tx,), (lx,)
        else:
            tmem, lmem = pair(arr(*shp(S), seed=2))
            mkpm = np.zeros((N, S), bool)
            mkpm[1, -2:] = True
            targs = dict(tgt_mask=torch.tensor(causal), tgt_key_padding_mask=torch.tensor(kpm),
                         memory_key_padding_mask=torch.tensor(mkpm), tgt_is_causal=True)
            largs = dict(tgt_mask=lg.tensor(causal), tgt_key_padding_mask=lg.tensor(kpm),
                         memory_key_padding_mask=lg.tensor(mkpm), tgt_is_causal=True)
            tout, lout = tm(tx, tmem, **targs), lm(lx, lmem, **largs)
            tins, lins = (tx, tmem), (lx, lmem)
        close(lout, tout)
        check_grads(tout, lout, tins, lins, tm, lm)


def test_encoder_nested_path_zeros_padded_positions_like_torch():
    d, h, N, S = 8, 2, 3, 5
    torch.manual_seed(0)
    tl = torch.nn.TransformerEncoderLayer(d, h, 16, batch_first=True)
    ll = lnn.TransformerEncoderLayer(d, h, 16, batch_first=True)
    tm = torch.nn.TransformerEncoder(tl, 2, norm=torch.nn.LayerNorm(d))
    lm = lnn.TransformerEncoder(ll, 2, norm=lnn.LayerNorm(d))
    copy_weights(tm, lm)
    tm.eval(), lm.eval()
    x = arr(N, S, d)
    kpm = np.zeros((N, S), bool)
    kpm[0, 3:] = True
    kpm[2, 1:] = True
    with torch.no_grad():
        t = tm(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
    with lg.no_grad():
        l = lm(lg.tensor(x), src_key_padding_mask=lg.tensor(kpm))
    close(l, t)
    # with gradients needed PyTorch takes the plain path: no zeros
    t2 = tm(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
    l2 = lm(lg.tensor(x), src_key_padding_mask=lg.tensor(kpm))
    close(l2, t2)
    assert not np.allclose(t2.detach().numpy(), t.numpy())
    # not left aligned: plain path
    kpm2 = kpm.copy()
    kpm2[1, 0] = True
    with torch.no_grad():
        t3 = tm(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm2))
    with lg.no_grad():
        l3 = lm(lg.tensor(x), src_key_padding_mask=lg.tensor(kpm2))
    close(l3, t3)


@pytest.mark.parametrize("kw", [{}, {"batch_first": True, "norm_first": True},
                                {"activation": "gelu", "batch_first": True}])
def test_transformer_matches_torch(kw):
    d, h, S, T, N = 8, 2, 5, 4, 3
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        torch.manual_seed(0)
        tm = torch.nn.Transformer(d, h, 2, 2, 16, dropout=0.0, **kw)
    with warnings.catch_warnings(record=True) as lw:
        warnings.simplefilter("always")
        lm = lnn.Transformer(d, h, 2, 2, 16, dropout=0.0, **kw)
    assert [str(w.message) for w in lw] == [str(w.message) for w in tw]
    copy_weights(tm, lm)
    bf = kw.get("batch_first", False)
    shp = lambda n: (N, n, d) if bf else (n, N, d)  # noqa: E731
    ts, ls = pair(arr(*shp(S), seed=1))
    tt, lt = pair(arr(*shp(T), seed=2))
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(T)
    lmask = lnn.Transformer.generate_square_subsequent_mask(T)
    close(lmask, tmask)
    kpm = np.zeros((N, S), bool)
    kpm[2, -2:] = True
    tout = tm(ts, tt, tgt_mask=tmask, src_key_padding_mask=torch.tensor(kpm),
              memory_key_padding_mask=torch.tensor(kpm))
    lout = lm(ls, lt, tgt_mask=lmask, src_key_padding_mask=lg.tensor(kpm),
              memory_key_padding_mask=lg.tensor(kpm))
    close(lout, tout)
    check_grads(tout, lout, (ts, tt), (ls, lt), tm, lm)
    tm.eval(), lm.eval()
    with torch.no_grad():
        tout = tm(ts, tt, tgt_mask=tmask, src_key_padding_mask=torch.tensor(kpm))
    with lg.no_grad():
        lout = lm(ls, lt, tgt_mask=lmask, src_key_padding_mask=lg.tensor(kpm))
    close(lout, tout)


def test_transformer_errors_and_default_init():
    lm = lnn.Transformer(8, 2, 1, 1, 16, batch_first=True)
    with pytest.raises(RuntimeError, match="batch number"):
        lm(lg.randn(2, 5, 8), lg.randn(3, 4, 8))
    with pytest.raises(RuntimeError, match="d_model"):
        lm(lg.randn(2, 5, 8), lg.randn(2, 4, 6))
    w = lm.encoder.layers[0].linear1.weight.detach().numpy()       # (16, 8): xavier_uniform_
    bound = (6 / 24) ** 0.5
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    m = lnn.Transformer.generate_square_subsequent_mask(3, dtype=lg.float64)
    assert m.dtype == lg.float64


def test_square_mask_causal_detection_in_encoder():
    torch.manual_seed(0)
    tl = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    ll = lnn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    tm, lm = torch.nn.TransformerEncoder(tl, 1), lnn.TransformerEncoder(ll, 1)
    copy_weights(tm, lm)
    x = arr(2, 4, 8)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    t = tm(torch.tensor(x), mask=tmask)
    l = lm(lg.tensor(x), mask=lnn.Transformer.generate_square_subsequent_mask(4))
    close(l, t)
