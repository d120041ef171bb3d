"""``TransformerEncoderLayer``/``TransformerEncoder``, ``TransformerDecoderLayer``/
``TransformerDecoder`` and ``Transformer`` (as ``torch.nn``; their ``MultiheadAttention`` is in
``activation.py``, as PyTorch's).

Parameter names, registration order (so ``state_dict`` keys and order), default
initialisation (the same ``nn.init`` calls in the same order, so one random stream
gives the same weights) and forward passes follow PyTorch 2.13's
``torch/nn/modules/activation.py`` and ``transformer.py``. Everything is built from
differentiable ops (``nn.functional.multi_head_attention_forward``), so gradients of
every order exist.

PyTorch's inference fast paths give the same numbers as the plain path, with one
visible difference that is reproduced here: a ``TransformerEncoder`` in eval mode, with
no gradient needed, given a left-aligned ``src_key_padding_mask`` and no ``mask``, runs
on nested tensors and returns zeros at the padded positions (before its final ``norm``).
"""
import copy

from ..._tensor import creation as _creation
from ..._tensor.tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled
from .. import functional as F
from .. import init
from ...ops.nn.attention import _canonical_mask, _none_or_dtype
from .activation import GELU, MultiheadAttention, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from ..._core import errors as _errors

__all__ = ["TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError("activation should be relu/gelu, not %s. Fix: pass 'relu', 'gelu' or a "
                       "callable." % (activation,))


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    return _creation.full((sz, sz), float("-inf"), dtype=dtype).triu(diagonal=1)


def _get_seq_len(src, batch_first):
    if src.dim() == 2:
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """True when ``is_causal`` is True, or it is None and ``mask`` is the causal mask."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.shape[-2]
        causal = _generate_square_subsequent_mask(sz, dtype=mask.dtype)
        if tuple(mask.shape) == tuple(causal.shape):
            make_causal = bool((mask._data == causal._data).all())
        else:
            make_causal = False
    return make_causal


class _Blocks(Module):
    """The self-attention and feed-forward blocks both layer kinds share (PyTorch's
    ``_sa_block``/``_ff_block``); ``_ff_dropout``: the dropout after the feed-forward."""

    _ff_dropout = "dropout2"

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return getattr(self, self._ff_dropout)(x)


class TransformerEncoderLayer(_Blocks):
    """Self-attention then a feed-forward block, each with a residual and LayerNorm
    (``norm_first``: the norm before each block, else after the residual).

    Shapes: src (S, N, d_model) ((N, S, d_model) with ``batch_first``, (S, d_model)
    unbatched) -> same shape. ``activation``: "relu", "gelu" or a callable (a Module is
    registered as a child, as PyTorch). Submodules: self_attn, linear1, dropout, linear2,
    norm1, norm2, dropout1, dropout2.

    Raises:
        RuntimeError: an activation string other than relu/gelu.
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """``src_mask`` (S, S) or (N * nhead, S, S); ``src_key_padding_mask`` (N, S):
        True (or -inf) ignores that position as a key; ``is_causal``: hint that src_mask
        is the causal mask."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype, False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x


def _nested_fast_path_reason(layer, src, mask, kpm, mask_check):
    """Why PyTorch's TransformerEncoder would not take its nested-tensor path ('' if it
    would): only that path changes what is returned (zeros at padded positions)."""
    if layer.training:
        return "training"
    if src.dim() != 3:
        return "unbatched"
    if kpm is None:
        return "no padding mask"
    if mask_check and not _left_aligned(kpm):
        return "not left aligned"
    if mask is not None:
        return "mask given"
    sa = layer.self_attn
    args = (src, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight, sa.out_proj.bias,
            layer.norm1.weight, layer.norm1.bias, layer.norm2.weight, layer.norm2.bias,
            layer.linear1.weight, layer.linear1.bias, layer.linear2.weight, layer.linear2.bias)
    if is_grad_enabled() and any(t is not None and t.requires_grad for t in args):
        return "grad"
    return ""


def _left_aligned(kpm):
    """Each row of ``kpm == 0`` (kept positions) is a run of True then False."""
    keep = kpm._data == 0
    return bool((keep[:, 1:] <= keep[:, :-1]).all())


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer``, then ``norm`` (if given).

    Warns (UserWarning, as PyTorch) when ``enable_nested_tensor`` is True but the layer
    rules out PyTorch's nested-tensor path (e.g. ``batch_first=False``).
    """

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why:
            _errors.warn("enable_nested_tensor is True, but self.use_nested_tensor is False "
                         "because %s" % why)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """``mask`` (S, S); ``src_key_padding_mask`` (N, S); ``is_causal``: None detects
        the causal mask from ``mask``."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(mask), "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, False)
        first = self.layers[0]
        nested = bool(getattr(self, "use_nested_tensor", False)) and not _nested_fast_path_reason(
            first, src, mask, src_key_padding_mask, getattr(self, "mask_check", True))
        is_causal = _detect_is_causal_mask(mask, is_causal,
                                           _get_seq_len(src, first.self_attn.batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal,
                         src_key_padding_mask=src_key_padding_mask)
        if nested:      # PyTorch's to_padded_tensor(0.0): padded positions are zeros
            keep = (src_key_padding_mask._data == 0)[..., None]
            output = output * Tensor._make_plain(keep.astype(output._data.dtype))
        if self.norm is not None:
            output = self.norm(output)
        return output


def _why_not_nested(layer):
    enc = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return "%s was not TransformerEncoderLayer" % enc
    if layer.norm_first:
        return "%s.norm_first was True" % enc
    if not layer.self_attn.batch_first:
        return ("%s.self_attn.batch_first was not True(use batch_first for better inference "
                "performance)" % enc)
    if not layer.self_attn._qkv_same_embed_dim:
        return "%s.self_attn._qkv_same_embed_dim was not True" % enc
    if layer.self_attn.in_proj_bias is None:
        return "%s.self_attn was passed bias=False" % enc
    if not layer.activation_relu_or_gelu:
        return "%s.activation_relu_or_gelu was not True" % enc
    if layer.norm1.eps != layer.norm2.eps:
        return "%s.norm1.eps was not equal to %s.norm2.eps" % (enc, enc)
    if layer.self_attn.num_heads % 2 == 1:
        return "%s.self_attn.num_heads is odd" % enc
    return ""


class TransformerDecoderLayer(_Blocks):
    """Self-attention, attention over ``memory``, then a feed-forward block, each with a
    residual and LayerNorm (``norm_first`` as in the encoder layer).

    Shapes: tgt (T, N, d_model), memory (S, N, d_model) (batch first with
    ``batch_first``) -> (T, N, d_model). Submodules: self_attn, multihead_attn, linear1,
    dropout, linear2, norm1..3, dropout1..3.
    """

    __constants__ = ["norm_first"]
    _ff_dropout = "dropout3"

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, bias=bias, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) \
            else activation

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """Masks as ``TransformerEncoderLayer.forward``'s, for the target (self-attention)
        and for the memory (cross-attention)."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                    memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer``, then ``norm`` (if given)."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """``tgt_is_causal=None`` detects the causal mask from ``tgt_mask``."""
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """Encoder-decoder transformer (Vaswani et al. 2017), PyTorch's module.

    Shapes: src (S, N, d_model), tgt (T, N, d_model) (batch first with ``batch_first``;
    unbatched (S, d_model)) -> (T, N, d_model). Submodules ``encoder``
    (TransformerEncoder with a final LayerNorm) and ``decoder``; every parameter with
    more than one dim re-initialised by ``xavier_uniform_`` (PyTorch's _reset_parameters).

    Raises:
        RuntimeError: src and tgt batch sizes differ, or a feature size is not d_model.
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                      batch_first, norm_first, bias)

        def stack(layer_cls, stack_cls, n):
            layer = layer_cls(*layer_args, dtype=dtype)          # PyTorch's order
            return stack_cls(layer, n, LayerNorm(d_model, eps=layer_norm_eps, bias=bias,
                                                 dtype=dtype))
        self.encoder = custom_encoder if custom_encoder is not None else stack(
            TransformerEncoderLayer, TransformerEncoder, num_encoder_layers)
        self.decoder = custom_decoder if custom_decoder is not None else stack(
            TransformerDecoderLayer, TransformerDecoder, num_decoder_layers)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        """Encode ``src``, decode ``tgt`` over the memory; masks as the layers' ones."""
        is_batched = src.dim() == 3
        if is_batched and src.shape[0 if self.batch_first else 1] != \
                tgt.shape[0 if self.batch_first else 1]:
            raise RuntimeError("the batch number of src and tgt must be equal. Fix: give both "
                               "the same batch size.")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model. "
                               "Fix: project the inputs to d_model=%d features." % self.d_model)
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """(sz, sz): -inf above the diagonal, 0 elsewhere (float32 unless ``dtype``)."""
        return _generate_square_subsequent_mask(sz, device, dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
