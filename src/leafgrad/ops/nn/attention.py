"""Attention: ``scaled_dot_product_attention`` and ``multi_head_attention_forward``
(re-exported by ``leafgrad.nn.functional``).

Both are built from differentiable leafgrad ops (matmul, softmax, linear, where),
so gradients of every order exist and need no rule of their own. Formulas from
PyTorch's docs of ``torch.nn.functional.scaled_dot_product_attention`` (its
reference implementation) and from ``torch.nn.functional.multi_head_attention_forward``
(PyTorch 2.13), whose steps the latter follows one by one so that the numbers match:

    attn = softmax(Q K^T * scale + bias) (dropout) ;  out = attn V

with ``scale = 1 / sqrt(E)`` unless given, ``bias`` -inf where a bool mask is False
(or above the diagonal for ``is_causal``) and a float mask added as it is. A query
row whose every key is masked gives zeros (PyTorch's ``_safe_softmax``), not NaN.
"""
import math

import numpy as np

from ..._tensor.tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled
from .. import elementwise as E
from .._registry import functional_ops
from ..._core import errors as _errors

_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
         "int32": "int", "bool": "bool"}


def _tname(t):
    return _TYPE.get(t._data.dtype.name, t._data.dtype.name)


def _sdpa_checks(query, key, value, attn_mask, dropout_p):
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError("scaled_dot_product_attention(): argument '%s' must be Tensor, not %s"
                            % (name, type(t).__name__))
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            "%d key.dim: %d and value.dim: %d instead. Fix: give them (..., L, E) and (..., S, E)."
            % (query.dim(), key.dim(), value.dim()))
    if not (query._data.dtype == key._data.dtype == value._data.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: %s "
            "key.dtype: %s and value.dtype: %s instead. Fix: convert them to one dtype."
            % (_tname(query), _tname(key), _tname(value)))
    if attn_mask is not None:
        kind = attn_mask._data.dtype
        if kind != np.bool_ and kind != query._data.dtype:
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                "attn_mask.dtype: %s and  query.dtype: %s instead. Fix: give a bool mask (True: "
                "attend) or a float mask of the query's dtype."
                % (_tname(attn_mask), _tname(query)))
    if not 0 <= dropout_p <= 1:
        raise RuntimeError("dropout probability has to be between 0 and 1, but got %s. Fix: use "
                           "0 <= dropout_p <= 1." % (dropout_p,))


def _repeat_heads(t, n_q, name):
    n = t.shape[-3]
    if n_q % n:
        raise RuntimeError(
            "Number of heads in key and value must divide the number of heads in query. Fix: "
            "query has %d heads, %s has %d." % (n_q, name, n))
    return t if n == n_q else t.repeat_interleave(n_q // n, -3)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(Q K^T * scale + mask) V over the last two dims, batch dims broadcast.

    Shapes: query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev).
    ``attn_mask``: broadcastable to (..., L, S); bool (True: may attend) or float (added
    to the scores). ``is_causal``: query i attends keys j <= i (top-left aligned; combined
    with ``attn_mask`` when both are given, as PyTorch). ``scale`` defaults to
    1 / sqrt(E). ``dropout_p``: dropout on the attention weights (always applied, as
    PyTorch; pass 0.0 in eval). ``enable_gqa``: key/value with fewer heads (dim -3) are
    repeated to the query's head count. Fully masked query rows give zeros.

    Raises:
        RuntimeError: inputs under 2-D or of different dtypes, a mask neither bool nor of
            the query's dtype, shapes that do not broadcast, a head count that does not
            divide (``enable_gqa``), dropout_p outside [0, 1].
    """
    _sdpa_checks(query, key, value, attn_mask, dropout_p)
    if is_causal and attn_mask is not None and is_grad_enabled() and any(
            t.requires_grad for t in (query, key, value)):
        # PyTorch's math path (the one that backpropagates here) refuses the pair
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True. Fix: fold the causal mask into attn_mask, or "
                           "drop attn_mask.")
    # the inputs PyTorch's CPU flash kernel takes (the others go its math way): its node name
    flash = (dropout_p == 0 and query.dim() == key.dim() == value.dim() == 4
             and query.shape[0] == key.shape[0] == value.shape[0]
             and query.shape[-1] == key.shape[-1] == value.shape[-1]
             and (enable_gqa or query.shape[1] == key.shape[1] == value.shape[1]))
    if enable_gqa and query.dim() >= 3:
        key = _repeat_heads(key, query.shape[-3], "key")
        value = _repeat_heads(value, query.shape[-3], "value")
    L, S = query.shape[-2], key.shape[-2]
    dt = query._data.dtype
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query.matmul(key.transpose(-2, -1)) * scale
    masked = None            # bool ndarray: False where a key is masked out (for bool masks)
    if is_causal:
        masked = np.tril(np.ones((L, S), bool))
    if attn_mask is not None:
        if attn_mask._data.dtype == np.bool_:
            masked = attn_mask._data if masked is None else masked & attn_mask._data
        else:
            scores = scores + attn_mask
    if masked is not None:
        scores = scores + Tensor._make_plain(np.where(masked, 0, -np.inf).astype(dt))
    dead = None
    if masked is not None or attn_mask is not None:
        rowmax = scores._data.max(-1, keepdims=True) if scores._data.size else None
        if rowmax is not None and np.isneginf(rowmax).any():
            dead = np.isneginf(rowmax)      # rows with no key left: zeros, not NaN
            scores = E.where(dead, 0.0, scores)
    attn = scores.softmax(-1)
    if dead is not None:
        attn = E.where(dead, 0.0, attn)
    if dropout_p > 0:
        from .dropout import dropout
        attn = dropout(attn, dropout_p)
    out = attn.matmul(value)
    if not flash:
        return out
    from .._named import _named
    return _named(out, "ScaledDotProductFlashAttentionForCpuBackward0")


# ------------------------------------------------------------ multi-head attention
def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """PyTorch's ``F._canonical_mask``: a bool mask as a float one (-inf where True)."""
    if mask is None:
        return None
    kind = mask._data.dtype
    if kind != np.bool_ and kind.kind != "f":
        raise AssertionError("only bool and floating types of %s are supported. Fix: give a "
                             "bool mask (True: ignore) or a float mask (added)." % mask_name)
    if check_other and other_type is not None and mask.dtype != other_type:
        _errors.warn("Support for mismatched %s and %s is deprecated. Use same type for both "
                     "instead." % (mask_name, other_name))
    if kind == np.bool_:
        arr = np.where(mask._data, -np.inf, 0.0)
        return Tensor._make_plain(arr.astype(target_type.np))
    return mask


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """True for batched (3-D) inputs, False for unbatched (2-D); AssertionError else
    (PyTorch's ``_mha_shape_check``)."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                "%d-D and %d-D tensors respectively" % (key.dim(), value.dim()))
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                "found %d-D tensor instead" % key_padding_mask.dim())
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                "found %d-D tensor instead" % attn_mask.dim())
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                "%d-D and %d-D tensors respectively" % (key.dim(), value.dim()))
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                "but found %d-D tensor instead" % key_padding_mask.dim())
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                    "but found %d-D tensor instead" % attn_mask.dim())
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError("Expected `attn_mask` shape to be %s but got %s"
                                     % (expected, attn_mask.shape))
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received %d-D "
                         "query tensor" % query.dim())


def _in_projection_packed(q, k, v, w, b=None):
    from ..linalg.products import linear
    e = q.shape[-1]
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, (3, e)).unsqueeze(0).transpose(0, -2)
            proj = proj.squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, e)).unsqueeze(0).transpose(0, -2)
        kv = kv.squeeze(-2).contiguous()
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _pad_last(t):
    from .padding import pad
    return pad(t, (0, 1))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
                                 out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention, step for step as PyTorch's function of that name.

    Shapes: query (L, N, E) or (L, E), key (S, N, E_k), value (S, N, E_v);
    key_padding_mask (N, S) or (S,) (bool True / -inf: ignore that key); attn_mask
    (L, S) or (N * num_heads, L, S). Returns (output (L, N, E), weights (N, L, S)
    averaged over heads, (N, num_heads, L, S) with ``average_attn_weights=False``, or
    None without ``need_weights``).

    Raises:
        AssertionError: inputs of the wrong rank, an embedding size that is not
            ``embed_dim_to_check`` or not divisible by num_heads (PyTorch's class).
        RuntimeError: is_causal without attn_mask, a mask of the wrong shape.
    """
    from ..._tensor.creation import zeros
    from ..shape.joins import cat
    from ..linalg.products import linear
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
            "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError("was expecting embedding dimension of %d, but got %d"
                             % (embed_dim_to_check, embed_dim))
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError("embed_dim %d not divisible by num_heads %d" % (embed_dim, num_heads))
    q, k, v = _mha_in_projection(query, key, value, in_proj_weight, in_proj_bias,
                                 use_separate_proj_weight, q_proj_weight, k_proj_weight,
                                 v_proj_weight)
    if attn_mask is not None:
        attn_mask = _mha_check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k is set but bias_v is None" if bias_k is not None
                             else "bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _static(k, static_k, bsz, num_heads, head_dim, "static_k")
    v = _static(v, static_v, bsz, num_heads, head_dim, "static_v")
    if add_zero_attn:
        shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(shape, dtype=k.dtype)], dim=1)
        v = cat([v, zeros(shape, dtype=v.dtype)], dim=1)
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        attn_mask = _mha_merge_key_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len)
    if not training:
        dropout_p = 0.0
    if need_weights:
        out, weights = _mha_with_weights(q, k, v, attn_mask, dropout_p, out_proj_weight,
                                         out_proj_bias, (tgt_len, bsz, num_heads, src_len),
                                         average_attn_weights)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _mha_with_weights(q, k, v, attn_mask, dropout_p, out_proj_weight, out_proj_bias, sizes,
                      average_attn_weights):
    """Attention written out (softmax of the scaled scores), so the weights can
    be returned: (output (L, N, E), weights (N, num_heads, L, S), or averaged
    over heads (N, L, S))."""
    from ..linalg.products import linear
    from .activation import softmax
    from .dropout import dropout
    tgt_len, bsz, num_heads, src_len = sizes
    q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
    scores = q_scaled.bmm(k.transpose(-2, -1))
    if attn_mask is not None:
        scores = attn_mask + scores
    weights = softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, p=dropout_p)
    out = weights.bmm(v).transpose(0, 1).reshape(tgt_len * bsz, num_heads * q.shape[-1])
    out = linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    return out, weights


def _mha_in_projection(query, key, value, in_proj_weight, in_proj_bias,
                       use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight):
    """q, k, v: the inputs projected by the three weights, or by slices of the
    packed ``in_proj_weight`` (PyTorch's checks and errors)."""
    from ..linalg.products import linear
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError("key's sequence and batch dims %s do not match value's %s"
                                 % (key.shape[:2], value.shape[:2]))
        for nm, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError("use_separate_proj_weight is True but %s_proj_weight is None"
                                     % nm)
        b_q, b_k, b_v = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        return (linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k),
                linear(value, v_proj_weight, b_v))
    if tuple(key.shape) != tuple(value.shape):
        raise AssertionError("key shape %s does not match value shape %s"
                             % (key.shape, value.shape))
    if in_proj_weight is None:
        raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
    return _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)


def _mha_check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads):
    """``attn_mask`` checked against (L, S) or (N * num_heads, L, S); a 2-D one
    gains a leading dim."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError("The shape of the 2D attn_mask is %s, but should be %s."
                               % (attn_mask.shape, (tgt_len, src_len)))
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        want = (bsz * num_heads, tgt_len, src_len)
        if tuple(attn_mask.shape) != want:
            raise RuntimeError("The shape of the 3D attn_mask is %s, but should be %s."
                               % (attn_mask.shape, want))
        return attn_mask
    raise RuntimeError("attn_mask's dimension %d is not supported" % attn_mask.dim())


def _pad_masks(attn_mask, key_padding_mask):
    """Both masks (where given) with one more key, not masked: for the key
    that bias_k / add_zero_attn appended."""
    if attn_mask is not None:
        attn_mask = _pad_last(attn_mask)
    if key_padding_mask is not None:
        key_padding_mask = _pad_last(key_padding_mask)
    return attn_mask, key_padding_mask


def _mha_merge_key_padding(attn_mask, key_padding_mask, bsz, num_heads, src_len):
    """``key_padding_mask`` (N, S) checked, repeated per head to (N * num_heads,
    1, S) and added to ``attn_mask`` (or taking its place)."""
    if key_padding_mask.shape[0] != bsz:
        raise AssertionError("Expected key_padded_mask.shape[0] to be %d, but got %d"
                             % (bsz, key_padding_mask.shape[0]))
    if key_padding_mask.shape[1] != src_len:
        raise AssertionError("Expected key_padded_mask.shape[1] to be %d, but got %d"
                             % (src_len, key_padding_mask.shape[1]))
    key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
        -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
    return key_padding_mask if attn_mask is None else attn_mask + key_padding_mask


def _static(t, static, bsz, num_heads, head_dim, name):
    if static is None:
        return t.view(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.shape[0] != bsz * num_heads:
        raise AssertionError("expecting %s.size(0) of %d, but got %d"
                             % (name, bsz * num_heads, static.shape[0]))
    if static.shape[2] != head_dim:
        raise AssertionError("expecting %s.size(2) of %d, but got %d"
                             % (name, head_dim, static.shape[2]))
    return static


functional_ops(globals(), ("scaled_dot_product_attention", "multi_head_attention_forward"))
