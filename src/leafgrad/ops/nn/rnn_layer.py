"""One LSTM layer (one direction) as one node, as PyTorch's CPU path records it
(``MkldnnRnnLayerBackward0``, the node of ``torch.mkldnn_rnn_layer``).

Forward: the input projection of every time step in one GEMM, then per step
gates = x W_ih^T + b_ih + h W_hh^T + b_hh, i, f, o = sigmoid, g = tanh,
c' = f c + i g, h' = o tanh(c') (PyTorch's LSTM equations, nn.LSTM docs), in NumPy.
Backward (``np_backward``): backpropagation through time in NumPy; the weight and
input gradients of all steps are three GEMMs after the loop. Under
``create_graph=True`` the rule recomputes the layer with leafgrad ops (the step
the float64 path records) and differentiates that with ``create_graph``, so
second order works, as PyTorch's ``mkldnn_rnn_layer_differentiable_backward``
(torch/csrc/autograd/FunctionsManual.cpp) recomputes the layer with ATen ops.

Inputs and outputs as ``torch.mkldnn_rnn_layer``: input (T, N, I) float32,
w_ih (4H, I), w_hh (4H, H), b_ih, b_hh (4H,) or None, hx, cx (N, H);
returns output (T, N, H), h_T, c_T (N, H); ``reverse`` runs from t = T-1 to 0.
"""
import numpy as np

from ..._core import errors as _errors
from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor
from ...autograd._fw_state import active as _fw_level
from ...autograd.graph import Node
from ...autograd.grad_mode import mode
from .._dispatch import record_multi

__all__ = ["lstm_layer"]


# PyTorch's gate blocks are (i, f, g, o); internally (g, i, f, o): the three sigmoids
# are then one contiguous block, and in backward the three gates multiplied by dc too
_ORDER = [2, 0, 1, 3]       # internal block k is PyTorch's block _ORDER[k]
_BACK = [1, 2, 0, 3]        # PyTorch's block j is internal block _BACK[j]


def _forward(x, w_ih, w_hh, bias, h0, c0, reverse):
    """NumPy forward. Gate activations are kept as (4, T, N, H): each gate of each
    step one contiguous (N, H) block (ufuncs on column slices of (N, 4H) run at
    half speed), h @ W_hh^T one batched matmul of the four blocks (as fast as the
    one (N, H) x (H, 4H) GEMM) and the input projection four large GEMMs.
    Returns (output, hy, cy, state for backward)."""
    T, N, _ = x.shape
    H = w_hh.shape[1]
    wi4 = w_ih.reshape(4, H, -1)[_ORDER]                       # (4, H, I)
    wh4 = w_hh.reshape(4, H, H)[_ORDER]                        # (4, H, H)
    whT4 = np.ascontiguousarray(wh4.transpose(0, 2, 1))
    acts = np.matmul(x.reshape(T * N, -1), np.ascontiguousarray(wi4.transpose(0, 2, 1)))
    if bias is not None:
        acts += bias.reshape(4, 1, H)[_ORDER]
    acts = acts.reshape(4, T, N, H)
    out = np.empty((T, N, H), x.dtype)
    cs = np.empty((T, N, H), x.dtype)
    tcs = np.empty((T, N, H), x.dtype)
    tmp = np.empty((N, H), x.dtype)
    pre = np.empty((4, N, H), x.dtype)
    h, c = h0, c0
    with _quiet():                                 # exp(-x) overflows to inf: sigmoid 0
        for t in (range(T - 1, -1, -1) if reverse else range(T)):
            a = acts[:, t]                         # x W_ih^T + b, becomes the activations
            np.matmul(h, whT4, out=pre)
            a += pre
            s = a[1:]
            np.negative(s, out=s)
            np.exp(s, out=s)
            s += 1
            np.reciprocal(s, out=s)                # i, f, o = 1 / (1 + exp(-x))
            g = a[0]
            np.tanh(g, out=g)
            ct = cs[t]
            np.multiply(a[2], c, out=ct)
            np.multiply(a[1], g, out=tmp)
            ct += tmp                              # c' = f c + i g
            tc = tcs[t]
            np.tanh(ct, out=tc)
            h = np.multiply(a[3], tc, out=out[t])  # h' = o tanh(c')
            c = ct
    return out, out[0 if reverse else T - 1], c, (wi4, wh4, acts, cs, tcs)


def _backward(x, h0, c0, out, state, reverse, gout, ghy, gcy, need):
    """NumPy backpropagation through time. Returns the gradients of
    (input, w_ih, w_hh, b_ih, b_hh, hx, cx) (None where ``need`` is False)."""
    wi4, wh4, acts, cs, tcs = state
    T, N, H = out.shape
    dt = out.dtype
    dG = np.empty((4, T, N, H), dt)                # gradients of the gate pre-activations
    dh = np.zeros((N, H), dt) if ghy is None else ghy.astype(dt, copy=True)
    dc = np.zeros((N, H), dt) if gcy is None else gcy.astype(dt, copy=True)
    tmp = np.empty((N, H), dt)
    tmp3 = np.empty((3, N, H), dt)
    tmp4 = np.empty((4, N, H), dt)
    prev = None
    for t in (range(T) if reverse else range(T - 1, -1, -1)):
        if prev is not None:
            np.matmul(dG[:, prev], wh4, out=tmp4)  # dh from the next step's gates
            np.add.reduce(tmp4, 0, out=dh)
            dc *= acts[2, prev]                    # and dc through c' = f c + i g
        if gout is not None:
            dh += gout[t]
        a = acts[:, t]
        tc = tcs[t]
        d = dG[:, t]
        # h = o tanh(c): dc += dh o (1 - tanh^2 c), d o = dh tanh(c)
        np.multiply(tc, tc, out=tmp)
        np.subtract(1, tmp, out=tmp)
        tmp *= a[3]
        tmp *= dh
        dc += tmp
        np.multiply(dh, tc, out=d[3])
        cprev = c0 if t == (T - 1 if reverse else 0) else cs[t + 1 if reverse else t - 1]
        np.multiply(dc, a[1], out=d[0])            # d g = dc i
        np.multiply(dc, a[0], out=d[1])            # d i = dc g
        np.multiply(dc, cprev, out=d[2])           # d f = dc c_{t-1}
        # through the nonlinearities: tanh' = 1 - g^2, sigmoid' = s (1 - s)
        np.multiply(a[0], a[0], out=tmp)
        np.subtract(1, tmp, out=tmp)
        d[0] *= tmp
        np.subtract(1, a[1:], out=tmp3)
        tmp3 *= a[1:]
        d[1:] *= tmp3
        prev = t
    first = prev
    res = [None] * 7
    I = x.shape[-1]
    Gk = dG.reshape(4, T * N, H)
    GkT = Gk.transpose(0, 2, 1)
    if need[0]:
        res[0] = np.add.reduce(np.matmul(Gk, wi4), 0).reshape(x.shape)
    if need[1]:
        res[1] = np.matmul(GkT, x.reshape(T * N, I))[_BACK].reshape(4 * H, I)
    if need[2]:
        # h_{t-1} of each step: the output shifted by one step, h0 for the first
        if reverse:
            dW = np.matmul(GkT[:, :, :-N], out[1:].reshape(-1, H)) if T > 1 else 0
            dW = dW + np.matmul(GkT[:, :, -N:], h0)
        else:
            dW = np.matmul(GkT[:, :, N:], out[:-1].reshape(-1, H)) if T > 1 else 0
            dW = dW + np.matmul(GkT[:, :, :N], h0)
        res[2] = dW[_BACK].reshape(4 * H, H)
    if need[3] or need[4]:
        db = np.add.reduce(Gk, 1)[_BACK].reshape(4 * H)
        res[3] = db if need[3] else None
        res[4] = (db.copy() if need[3] else db) if need[4] else None
    if need[5]:
        res[5] = np.add.reduce(np.matmul(dG[:, first], wh4), 0)
    if need[6]:
        res[6] = dc * acts[2, first]
    return res


def _recompute(x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse):
    """The layer with leafgrad ops, one recorded step per time step (for second order)."""
    from ..linalg.products import linear
    from ..shape.joins import stack
    xw = linear(x, w_ih, b_ih).unbind(0)
    h, c = hx, cx
    hs = [None] * len(xw)
    for t in (range(len(xw) - 1, -1, -1) if reverse else range(len(xw))):
        i, f, g, o = (xw[t] + linear(h, w_hh, b_hh)).chunk(4, -1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = hs[t] = o.sigmoid() * c.tanh()
    return stack(hs), h, c


class MkldnnRnnLayerBackward0(Node):
    """The node of one LSTM layer and direction (inputs: input, w_ih, w_hh, b_ih,
    b_hh, hx, cx; outputs: output, h_T, c_T). ``args``: (reverse, the NumPy
    forward's state, the outputs' version counters)."""

    __slots__ = ("out_metas",)
    n_outputs = 3
    saves = True

    def _check_outputs(ctx):
        """The outputs are saved too (the rule reads them): an in-place change raises."""
        for nr, (vc, shape) in enumerate(ctx.args[2]):
            if vc[0] != 0:
                raise _errors.saved_modified(shape, ctx.name(), 0, vc[0], "Float",
                                             (nr, ctx.name()))

    def _release(ctx, freed_by=True):
        Node._release(ctx, freed_by)
        ctx.args = None                            # the forward's state (~6 T N H floats)

    def np_backward(ctx, gout, ghy, gcy):
        saved = ctx._checked_saved                  # version checks of the inputs
        ctx._check_outputs()
        reverse, state, _ = ctx.args
        x, _, _, _, _, hx, cx = [None if t is None else t._data for t in saved]
        out = state[-1]
        return tuple(_backward(x, hx, cx, out, state[:-1], reverse, gout, ghy, gcy,
                               ctx.needs_input_grad))

    def backward(ctx, gout, ghy, gcy):
        if not mode.enabled:                       # hooks or anomaly mode, no create_graph
            res = ctx.np_backward(*[None if g is None else g._data for g in (gout, ghy, gcy)])
            return tuple(None if r is None else Tensor._make_plain(r) for r in res)
        saved = ctx._checked_saved
        ctx._check_outputs()
        from ...autograd._api import grad
        outs = _recompute(*saved, ctx.args[0])
        pairs = [(o, g) for o, g in zip(outs, (gout, ghy, gcy)) if g is not None]
        want = [t for t, n in zip(saved, ctx.needs_input_grad) if n]
        got = iter(grad([o for o, _ in pairs], want, [g for _, g in pairs],
                        create_graph=True, allow_unused=True))
        return tuple(next(got) if n else None for n in ctx.needs_input_grad)


def lstm_layer(input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse):
    """One LSTM layer, one direction, as one node (see the module docstring).

    Shapes: input (T, N, I) float32 with T * N * I > 0; w_ih (4H, I); w_hh (4H, H);
    b_ih, b_hh (4H,) or both None; hx, cx (N, H). Returns (output (T, N, H), h_T, c_T).

    Raises:
        NotImplementedError: under forward-mode AD with a tangent on an input (PyTorch's
            mkldnn_rnn_layer has no forward derivative either).
    """
    inputs = (input, w_ih, w_hh, b_ih, b_hh, hx, cx)
    lv = _fw_level[0]
    if lv is not None and lv.any_dual(inputs):
        raise NotImplementedError(_errors.lstm_forward_ad())
    bias = None if b_ih is None else b_ih._data + b_hh._data
    out, hy, cy, state = _forward(input._data, w_ih._data, w_hh._data, bias, hx._data,
                                  cx._data, reverse)
    hy, cy = hy.copy(), cy.copy()        # c_T is the backward's; h_T a view of the output
    if not mode.enabled or not any(t is not None and t._requires_grad for t in inputs):
        return record_multi(MkldnnRnnLayerBackward0, (out, hy, cy), inputs)
    res = record_multi(MkldnnRnnLayerBackward0, (out, hy, cy), inputs, saved=inputs)
    node = res[0]._grad_fn
    node.args = (reverse, state + (out,),
                 tuple((r._version_counter(), tuple(r.shape)) for r in res))
    return res
