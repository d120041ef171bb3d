"""Activation modules (``ReLU``, ``Softmax``, ...), thin wrappers over ``nn.functional``.

reprs match PyTorch's (``ReLU()``, ``LeakyReLU(negative_slope=0.01)``, ``Softmax(dim=1)``).
Formulas: https://pytorch.org/docs/stable/nn.html#non-linear-activations-weighted-sum-nonlinearity
All keep the input's shape (except ``GLU``, which halves ``dim``).

Also ``Softshrink``, ``Hardshrink``, ``RReLU``, ``Softmax2d`` and ``MultiheadAttention``
(PyTorch defines it in this file; the transformer layers in ``transformer.py`` use it).
MultiheadAttention's parameter names, registration order and initialisation follow
PyTorch 2.13's ``torch/nn/modules/activation.py``.
"""
from ..._tensor import creation as _creation
from ...ops.nn.attention import _canonical_mask, _none_or_dtype
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["ReLU", "Sigmoid", "Tanh", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU",
           "Softplus", "Softmax", "LogSoftmax", "Softmin", "Hardtanh", "ReLU6", "Mish",
           "Softsign", "Hardsigmoid", "Hardswish", "Tanhshrink", "LogSigmoid", "Threshold",
           "GLU", "PReLU", "Softshrink", "Hardshrink", "RReLU", "Softmax2d",
           "MultiheadAttention"]


def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


class ReLU(Module):
    """max(0, x)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    def forward(self, input):
        return F.sigmoid(input)


class Tanh(Module):
    def forward(self, input):
        return F.tanh(input)


class LeakyReLU(Module):
    """x if x > 0 else negative_slope * x."""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return "negative_slope=%s%s" % (self.negative_slope,
                                        ", inplace=True" if self.inplace else "")


class ELU(Module):
    """x if x > 0 else alpha (exp(x) - 1)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return "alpha=%s%s" % (self.alpha, ", inplace=True" if self.inplace else "")


class CELU(ELU):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1))."""

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class SELU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class GELU(Module):
    """x Phi(x) (``approximate='tanh'``: the tanh approximation)."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return "approximate=%r" % (self.approximate,)


class SiLU(Module):
    """x sigmoid(x)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Mish(SiLU):
    """x tanh(softplus(x))."""

    def forward(self, input):
        return F.mish(input, self.inplace)


class Softplus(Module):
    """log(1 + exp(beta x)) / beta, linear where beta x > threshold."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return "beta=%s, threshold=%s" % (self.beta, self.threshold)


class _DimModule(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self):
        return "dim=%s" % (self.dim,)


class Softmax(_DimModule):
    """exp(x_i) / sum_j exp(x_j) along ``dim``."""

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_DimModule):
    """log(softmax(x)) along ``dim`` (stable)."""

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)


class Softmin(_DimModule):
    def forward(self, input):
        return F.softmin(input, self.dim, _stacklevel=5)


class Hardtanh(Module):
    """clip(x, min_val, max_val)."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise ValueError("max_val must be greater than min_val")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return "min_val=%s, max_val=%s%s" % (self.min_val, self.max_val,
                                             ", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    """min(max(0, x), 6)."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input):
        return F.softsign(input)


class Hardsigmoid(Module):
    """clip(x / 6 + 1/2, 0, 1)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)


class Hardswish(Hardsigmoid):
    """x * hardsigmoid(x)."""

    def forward(self, input):
        return F.hardswish(input, self.inplace)


class Tanhshrink(Module):
    def forward(self, input):
        return F.tanhshrink(input)


class LogSigmoid(Module):
    def forward(self, input):
        return F.logsigmoid(input)


class Threshold(Module):
    """x if x > threshold else value."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return "threshold=%s, value=%s%s" % (self.threshold, self.value,
                                             ", inplace=True" if self.inplace else "")


class GLU(Module):
    """a * sigmoid(b) with (a, b) the two halves of ``dim``."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return "dim=%s" % (self.dim,)


class PReLU(Module):
    """max(0, x) + a * min(0, x) with a learnable ``a`` (one, or one per channel = dim 1)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(_creation.full((num_parameters,), init, dtype=dtype or
                                               _creation._dtype.get_default_dtype()))

    def reset_parameters(self):
        self.weight._data[...] = self.init
        self.weight._bump_version()

    def forward(self, input):
        w = self.weight
        if self.num_parameters > 1 and input.dim() > 1:
            w = w.reshape((-1,) + (1,) * (input.dim() - 2))
        return input.clamp_min(0.0) + w * input.clamp_max(0.0)

    def extra_repr(self):
        return "num_parameters=%s" % self.num_parameters


class Softshrink(Module):
    """x - lambd / x + lambd outside [-lambd, lambd], 0 inside (``F.softshrink``)."""

    __constants__ = ["lambd"]

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.softshrink(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Softshrink):
    """x outside [-lambd, lambd], 0 inside (``F.hardshrink``)."""

    def forward(self, input):
        return F.hardshrink(input, self.lambd)


class RReLU(Module):
    """Randomized leaky ReLU (``F.rrelu``): slope U(lower, upper) in training, their mean
    in eval."""

    __constants__ = ["lower", "upper", "inplace"]

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        s = "lower=%s, upper=%s" % (self.lower, self.upper)
        return s + (", inplace=True" if self.inplace else "")


class Softmax2d(Module):
    """Softmax over the channel dim (-3) of (N, C, H, W) or (C, H, W).

    Raises:
        ValueError: an input that is not 3-D or 4-D.
    """

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError("Softmax2d: expected input to be 3D or 4D, got %dD instead. Fix: "
                             "give (N, C, H, W) or (C, H, W)." % input.dim())
        return F.softmax(input, -3, _stacklevel=5)


def _empty(*shape, dtype=None):
    return Parameter(_creation.empty(*shape, dtype=dtype))


class MultiheadAttention(Module):
    """Multi-head attention (Vaswani et al. 2017), PyTorch's module.

    Shapes: query (L, N, E) ((N, L, E) with ``batch_first``, (L, E) unbatched), key
    (S, N, kdim), value (S, N, vdim) -> (output (L, N, E), weights (N, L, S) or None).
    Parameters: ``in_proj_weight`` (3E, E) when kdim = vdim = E, else ``q_proj_weight``
    (E, E), ``k_proj_weight`` (E, kdim), ``v_proj_weight`` (E, vdim); ``in_proj_bias``
    (3E,); ``out_proj`` (Linear E -> E); ``bias_k``/``bias_v`` (1, 1, E) with
    ``add_bias_kv``. Init: xavier_uniform_ on the projections, zeros on the biases,
    xavier_normal_ on bias_k/bias_v (after ``out_proj``'s own Linear init, as PyTorch).

    Raises:
        ValueError: embed_dim or num_heads not positive.
        AssertionError: embed_dim not divisible by num_heads (PyTorch's class).
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError("embed_dim and num_heads must be greater than 0, got embed_dim=%s "
                             "and num_heads=%s instead" % (embed_dim, num_heads))
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = _empty(embed_dim, embed_dim, dtype=dtype)
            self.k_proj_weight = _empty(embed_dim, self.kdim, dtype=dtype)
            self.v_proj_weight = _empty(embed_dim, self.vdim, dtype=dtype)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = _empty(3 * embed_dim, embed_dim, dtype=dtype)
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = _empty(3 * embed_dim, dtype=dtype)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = _empty(1, 1, embed_dim, dtype=dtype)
            self.bias_v = _empty(1, 1, embed_dim, dtype=dtype)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        """Attention of ``query`` over ``key``/``value``; see the class doc for shapes.
        ``key_padding_mask`` (N, S): True (or -inf) ignores that key; ``attn_mask`` (L, S)
        or (N * num_heads, L, S): True ignores, a float is added; ``is_causal``: a hint
        that ``attn_mask`` is the causal mask (it must be given)."""
        is_batched = query.dim() == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                           _none_or_dtype(attn_mask), "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if self.batch_first and is_batched:
            # transposed so that ``key is value`` (self-attention packing) still holds
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """(merged float mask (N, num_heads, L, S) or the one given, mask type 0/1/2/None),
        as PyTorch's ``MultiheadAttention.merge_masks``."""
        mask_type, merged = None, None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            n, seq_len = query.shape[0], query.shape[1]
            mask_type = 2
            if attn_mask.dim() == 3:
                attn_view = attn_mask.view(n, -1, seq_len, seq_len)
            else:
                attn_view = attn_mask.view(1, 1, seq_len, seq_len).expand(
                    n, self.num_heads, -1, -1)
            merged = attn_view
            if key_padding_mask is not None:
                kpm = key_padding_mask.view(n, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
                merged = attn_view + kpm
        return merged, mask_type
