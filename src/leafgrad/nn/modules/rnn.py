"""Recurrent layers ``RNN``, ``LSTM``, ``GRU`` (as ``torch.nn``), built from leafgrad ops.

Parameters, their names, order, shapes and default initialisation are
PyTorch's (``weight_ih_l{k}[_reverse]``, ``weight_hh_l{k}``, ``bias_ih_l{k}``,
``bias_hh_l{k}``, each U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) in that
order), so a model whose state_dict is copied from PyTorch computes the same
outputs and gradients. Gate equations (PyTorch's docs; gate rows stacked in
this order in the weights):

* LSTM (i, f, g, o): c' = f c + i g, h' = o tanh(c'), with i, f, o = sigmoid
  and g = tanh of W_i x + b_i + W_h h + b_h;
* GRU (r, z, n): n = tanh(W_in x + b_in + r (W_hn h + b_hn)),
  h' = (1 - z) n + z h;
* RNN: h' = tanh (or relu) of W_ih x + b_ih + W_hh h + b_hh.

Input (L, N, H_in), or (N, L, H_in) with ``batch_first``, or unbatched
(L, H_in); output (L, N, D * H_out) and the last hidden state(s)
(D * num_layers, N, H_out), D = 2 when ``bidirectional``.

The cells ``RNNCell``, ``LSTMCell``, ``GRUCell`` compute one time step (parameters
``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``) on input (N, H_in) or
unbatched (H_in,), with the same equations.
"""
import math

import numpy as np

from ..._tensor import creation as _creation
from ...ops.nn.rnn_layer import lstm_layer
from ...ops.shape import joins as S
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module
from ..._core import errors as _errors

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_PROJ_WARNED = []      # PyTorch warns once per process
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _rnn_step(xw, state, w_hh, b_hh, nonlinearity):
    pre = xw + F.linear(state[0], w_hh, b_hh)
    return [pre.tanh() if nonlinearity == "tanh" else pre.relu()]


def _lstm_step(xw, state, w_hh, b_hh):
    h, c = state
    gates = xw + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return [o.sigmoid() * c.tanh(), c]


def _gru_step(xw, state, w_hh, b_hh):
    h = state[0]
    hw = F.linear(h, w_hh, b_hh)
    xr, xz, xn = xw.chunk(3, -1)
    hr, hz, hn = hw.chunk(3, -1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return [(1 - z) * n + z * h]


def _init_uniform(module):
    """Every parameter U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
    stdv = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


class RNNBase(Module):
    """Shared constructor, checks and layer/direction loop of RNN, LSTM and GRU.

    Raises:
        ValueError: a dropout outside [0, 1], an input that is not 2-D or 3-D, or of
            another dtype than the weights.
        RuntimeError: an input or hidden state of the wrong size.
        ValueError: also a ``proj_size`` that is negative, not below hidden_size, or given
            to RNN/GRU (LSTM only: h_t = W_hr (o * tanh(c_t)), PyTorch's projections).
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            _errors.warn("dropout option adds dropout after all but last recurrent layer, so "
                         "non-zero dropout expects num_layers greater than 1, but got "
                         "dropout=%s and num_layers=%s" % (dropout, num_layers),
                         UserWarning)
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gates = _GATES[mode] * hidden_size
        real = proj_size or hidden_size           # the size of h
        self._flat_weights_names = []
        for layer in range(num_layers):
            for suffix in ("", "_reverse")[:2 if bidirectional else 1]:
                in_size = input_size if layer == 0 else real * (2 if bidirectional else 1)
                shapes = [("weight_ih", (gates, in_size)), ("weight_hh", (gates, real))]
                if bias:
                    shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shp in shapes:
                    full = "%s_l%d%s" % (name, layer, suffix)
                    setattr(self, full, Parameter(_creation.empty(*shp, dtype=dtype)))
                    self._flat_weights_names.append(full)
        self.reset_parameters()

    def reset_parameters(self):
        _init_uniform(self)

    def flatten_parameters(self):
        """No-op (there is no cuDNN weight buffer here)."""

    @property
    def all_weights(self):
        n = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        ws = [getattr(self, name) for name in self._flat_weights_names]
        return [ws[i:i + n] for i in range(0, len(ws), n)]

    def extra_repr(self):
        s = "%s, %s" % (self.input_size, self.hidden_size)
        if self.proj_size != 0:          # PyTorch's order: right after the sizes
            s += ", proj_size=%s" % self.proj_size
        for name, default in (("num_layers", 1), ("bias", True), ("batch_first", False),
                              ("dropout", 0.0), ("bidirectional", False)):
            v = getattr(self, name)
            if v != default:
                s += ", %s=%s" % (name, v)
        return s

    # -- forward ---------------------------------------------------------------
    def _check_input(self, input):
        name = type(self).__name__
        if input.dim() not in (2, 3):
            raise ValueError("%s: Expected input to be 2D or 3D, got %dD instead"
                             % (name, input.dim()))
        w = self.weight_ih_l0
        if input.dtype != w.dtype:
            raise ValueError("RNN input dtype (%s) does not match weight dtype (%s). Convert "
                             "input: input.to(%s), or convert model: model.to(%s)"
                             % (input.dtype, w.dtype, w.dtype, input.dtype))
        if input.shape[-1] != self.input_size:
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected %d, got %d"
                               % (self.input_size, input.shape[-1]))

    def _check_hidden(self, h, batch, which, unbatched, size=None):
        expected = (self.num_layers * (2 if self.bidirectional else 1), batch,
                    self.hidden_size if size is None else size)
        if unbatched:
            if h.dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                                   "%d-D tensor" % h.dim())
            h = h.unsqueeze(1)
        elif h.dim() != 3:
            raise RuntimeError("For batched 3-D input, hx should also be 3-D but got %d-D "
                               "tensor" % h.dim())
        if tuple(h.shape) != expected:
            raise RuntimeError("Expected %s size %s, got %s"
                               % (which, expected, list(h.shape)))
        return h

    def _layer_weights(self, layer, suffix):
        get = (lambda n: getattr(self, "%s_l%d%s" % (n, layer, suffix)))
        return (get("weight_ih"), get("weight_hh"),
                get("bias_ih") if self.bias else None, get("bias_hh") if self.bias else None,
                get("weight_hr") if self.proj_size else None)

    def _run(self, input, states, sizes=None):
        """input (L, N, H_in), or packed rows (sum(sizes), H_in) with the ``batch_sizes``
        list ``sizes``; states: a list, per state kind (h, or h and c), of tensors
        (D * num_layers, N, H). Returns output (L, N, D * H) (packed: (sum(sizes), D * H))
        and the final states in the same layout."""
        D = 2 if self.bidirectional else 1
        finals = [[] for _ in states]
        run = self._direction if sizes is None else self._packed_direction
        x = input
        for layer in range(self.num_layers):
            outs = []
            for d, suffix in enumerate(("", "_reverse")[:D]):
                state = [s[layer * D + d] for s in states]
                out, state = run(x, state, self._layer_weights(layer, suffix), d == 1, sizes)
                outs.append(out)
                for f, s in zip(finals, state):
                    f.append(s)
            x = outs[0] if D == 1 else S.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, [S.stack(f) for f in finals]

    def _step(self, xw, state, w_hh, b_hh, w_hr):
        state = self._cell(xw, state, w_hh, b_hh)
        if w_hr is not None:             # LSTM projection: h = W_hr h
            state[0] = F.linear(state[0], w_hr)
        return state

    def _direction(self, x, state, weights, reverse, sizes):
        """One layer, one direction, over (L, N, H_in): (output (L, N, H), final state)."""
        w_ih, w_hh, b_ih, b_hh, w_hr = weights
        # all time steps at once; unbind is one node (its backward stacks the
        # steps' gradients), where xw[t] would add a zero-padded full-size
        # gradient per step (quadratic in the sequence length)
        xw = F.linear(x, w_ih, b_ih).unbind(0)
        steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
        hs = [None] * x.shape[0]
        for t in steps:
            state = self._step(xw[t], state, w_hh, b_hh, w_hr)
            hs[t] = state[0]
        return (S.stack(hs) if hs else x.new_zeros((0,) + tuple(state[0].shape))), state

    def _packed_direction(self, x, state, weights, reverse, sizes):
        """One layer, one direction, over packed rows x (sum(sizes), H_in): at step t the
        first sizes[t] sequences run, and a sequence's final state is its state after its
        own last step (PyTorch's PackedLayer / ReversedPackedLayer in
        aten/src/ATen/native/RNN.cpp). Returns (output (sum(sizes), H), final state)."""
        w_ih, w_hh, b_ih, b_hh, w_hr = weights
        xw = F.linear(x, w_ih, b_ih).split(sizes)
        hs = [None] * len(sizes)
        if reverse:              # the shortest first; longer ones join with their h0 rows
            full, last = state, sizes[-1]
            state = [s[:last] for s in full]
            for t in range(len(sizes) - 1, -1, -1):
                if sizes[t] > last:
                    state = [S.cat([s, f[last:sizes[t]]]) for s, f in zip(state, full)]
                last = sizes[t]
                state = self._step(xw[t], state, w_hh, b_hh, w_hr)
                hs[t] = state[0]
            return S.cat(hs), state
        done, last = [], sizes[0]
        for t, n in enumerate(sizes):
            if n < last:         # sequences last..n-1 ended: their state is final
                done.append([s[n:last] for s in state])
                state = [s[:n] for s in state]
            last = n
            state = self._step(xw[t], state, w_hh, b_hh, w_hr)
            hs[t] = state[0]
        done.append(state)
        done.reverse()
        return S.cat(hs), [S.cat([d[k] for d in done]) for k in range(len(state))]

    def _run_fused(self, x, states):
        """``_run`` for a float32 LSTM without projections: one node per layer and
        direction (``MkldnnRnnLayerBackward0``), as PyTorch's CPU path (mkldnn_rnn in
        aten/src/ATen/native/mkldnn/RNN.cpp: the same select, cat, dropout and stack)."""
        D = 2 if self.bidirectional else 1
        hs, cs = [], []
        for layer in range(self.num_layers):
            outs = []
            for d, suffix in enumerate(("", "_reverse")[:D]):
                w_ih, w_hh, b_ih, b_hh, _ = self._layer_weights(layer, suffix)
                k = layer * D + d
                out, h, c = lstm_layer(x, w_ih, w_hh, b_ih, b_hh, states[0][k], states[1][k],
                                       d == 1)
                outs.append(out)
                hs.append(h)
                cs.append(c)
            x = outs[0] if D == 1 else S.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, [S.stack(hs), S.stack(cs)]

    def _fused(self, input, n_states):
        """Whether PyTorch's CPU path would run this LSTM as fused layers (float32, no
        projections, a non-empty input); it warns once for float32 with projections."""
        d = input._data
        if n_states != 2 or d.dtype != np.float32 or type(d) is not np.ndarray or d.size == 0:
            return False             # (a meta tensor's data is not an ndarray)
        if self.proj_size:
            if not _PROJ_WARNED:
                _PROJ_WARNED.append(True)
                _errors.warn("LSTM with projections is not supported with oneDNN. Using "
                             "default implementation.", UserWarning)
            return False
        return True

    def _check_packed(self, data, hx, n_states, batch):
        """PyTorch's checks of a packed input and its states (``check_forward_args``; its
        LSTM skips them and fails in the kernel: RuntimeError, IndexError for a 2-D
        state, as here). Returns the states as a list."""
        w = self.weight_ih_l0
        if data.dtype != w.dtype:
            raise (RuntimeError if n_states == 2 else ValueError)(
                "RNN input dtype (%s) does not match weight dtype (%s). Convert input: "
                "input.to(%s), or convert model: model.to(%s)"
                % (data.dtype, w.dtype, w.dtype, data.dtype))
        if data.dim() != 2:
            raise RuntimeError("input must have 2 dimensions, got %d. Fix: pack inputs of "
                               "shape (T, B, input_size)" % data.dim())
        if data.shape[-1] != self.input_size:
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected %d, got %d"
                               % (self.input_size, data.shape[-1]))
        if hx is None:
            return None
        hs = [hx] if n_states == 1 else [hx[0], hx[1]]
        for i, (h, size) in enumerate(zip(hs, [self.proj_size or self.hidden_size,
                                                self.hidden_size])):
            name = "hidden[%d]" % i if n_states == 2 else "hidden"
            if n_states == 2 and h.dim() != 3:
                raise IndexError("Dimension out of range (expected to be in range of [-%d, %d],"
                                 " but got 2): %s of a packed LSTM input must be 3-D (layers * "
                                 "directions, batch, size)" % (h.dim(), h.dim() - 1, name))
            expected = (self.num_layers * (2 if self.bidirectional else 1),
                        batch, size)
            if tuple(h.shape) != expected:
                raise RuntimeError("Expected %s size %s, got %s" % (name, expected,
                                                                     list(h.shape)))
        return hs

    def _forward_packed(self, packed, hx, n_states):
        """The forward of a PackedSequence: the states of ``hx`` (and the final ones
        returned) are in the caller's batch order, permuted by ``sorted_indices`` (and
        ``unsorted_indices``) around the run, as PyTorch's ``permute_hidden``."""
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        sizes = batch_sizes.tolist()
        hs = self._check_packed(data, hx, n_states, sizes[0])
        state_sizes = [self.proj_size or self.hidden_size, self.hidden_size][:n_states]
        if hs is None:
            D = 2 if self.bidirectional else 1
            hs = [_creation.zeros(self.num_layers * D, sizes[0], size, dtype=data.dtype,
                                  device=data.device) for size in state_sizes]
        else:
            hx = self.permute_hidden(hx if n_states == 1 else tuple(hs), sorted_indices)
            hs = [hx] if n_states == 1 else list(hx)
        if len(set(sizes)) == 1 and not self.proj_size and self._fused(data, n_states):
            # all sequences of one length: PyTorch's float32 LSTM runs its fused layers on
            # the (T, B, H) view of the rows and views the output back (ViewBackward0)
            out, finals = self._run_fused(data.reshape(len(sizes), sizes[0], -1).contiguous(),
                                          hs)
            out = out.reshape(-1, out.shape[-1])
        else:
            out, finals = self._run(data, hs, sizes)
        out = PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
        return out, self.permute_hidden(finals[0] if n_states == 1 else tuple(finals),
                                        unsorted_indices)

    def permute_hidden(self, hx, permutation):
        """``hx`` with its batch (dim 1) reordered by ``permutation`` (None: ``hx``
        itself), as PyTorch's (LSTM: both states)."""
        if permutation is None:
            return hx
        if isinstance(hx, (tuple, list)):
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)

    def _forward(self, input, hx, n_states):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, n_states)
        self._check_input(input)
        unbatched = input.dim() == 2
        bdim = 0 if self.batch_first else 1
        if unbatched:                    # PyTorch's order: unsqueeze, then transpose
            input = input.unsqueeze(bdim)
        if self.batch_first:
            input = input.transpose(0, 1)
        batch = input.shape[1]
        D = 2 if self.bidirectional else 1
        sizes = [self.proj_size or self.hidden_size, self.hidden_size][:n_states]
        if hx is None:
            states = [_creation.zeros(self.num_layers * D, batch, size, dtype=input.dtype,
                                      device=input.device)
                      for size in sizes]
        else:
            hs = [hx] if n_states == 1 else [hx[0], hx[1]]
            states = [self._check_hidden(h, batch, "hidden[%d]" % i if n_states > 1 else
                                         "hidden", unbatched, sizes[i])
                      for i, h in enumerate(hs)]
        if self._fused(input, n_states):
            out, finals = self._run_fused(input.contiguous(), states)
        else:
            out, finals = self._run(input, states)
        if self.batch_first:
            out = out.transpose(0, 1)
        if unbatched:
            out = out.squeeze(bdim)
            finals = [f.squeeze(1) for f in finals]
        return out, (finals[0] if n_states == 1 else tuple(finals))


class RNN(RNNBase):
    """Elman RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (``nonlinearity='relu'``: relu).

    Returns ``(output, h_n)``.
    """

    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError("Unknown nonlinearity '%s'. Select from 'tanh' or 'relu'."
                             % nonlinearity)
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)

    def _cell(self, xw, state, w_hh, b_hh):
        return _rnn_step(xw, state, w_hh, b_hh, self.nonlinearity)

    def forward(self, input, hx=None):
        return self._forward(input, hx, 1)


class LSTM(RNNBase):
    """Long short-term memory. ``forward(input, (h_0, c_0))`` returns
    ``(output, (h_n, c_n))``; states default to zeros."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    _cell = staticmethod(_lstm_step)

    def forward(self, input, hx=None):
        return self._forward(input, hx, 2)


class GRU(RNNBase):
    """Gated recurrent unit. ``forward(input, h_0)`` returns ``(output, h_n)``."""

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)

    _cell = staticmethod(_gru_step)

    def forward(self, input, hx=None):
        return self._forward(input, hx, 1)


class RNNCellBase(Module):
    """Shared constructor, repr and checks of the one-step cells.

    Raises:
        ValueError: an input or state that is not 1-D or 2-D.
        RuntimeError: an input or state of the wrong size (PyTorch's messages).
    """

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_creation.empty(num_chunks * hidden_size, input_size,
                                                   dtype=dtype))
        self.weight_hh = Parameter(_creation.empty(num_chunks * hidden_size, hidden_size,
                                                   dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_creation.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(_creation.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "%s, %s" % (self.input_size, self.hidden_size)
        if self.bias is not True:
            s += ", bias=%s" % (self.bias,)
        nonlinearity = self.__dict__.get("nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += ", nonlinearity=%s" % nonlinearity
        return s

    def reset_parameters(self):
        _init_uniform(self)

    def _check_dims(self, input, hx, n_states):
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError("%s: Expected input to be 1D or 2D, got %dD instead"
                             % (name, input.dim()))
        if hx is not None:
            hs = [hx] if n_states == 1 else list(hx)
            for i, h in enumerate(hs):
                if h.dim() not in (1, 2):
                    raise ValueError("%s: Expected %s to be 1D or 2D, got %dD instead"
                                     % (name, "hidden" if n_states == 1 else "hx[%d]" % i,
                                        h.dim()))

    def _step(self, input, hx, n_states, step):
        """Checks, batches an unbatched input, runs ``step``; returns the list of states."""
        self._check_dims(input, hx, n_states)
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError("input has inconsistent input_size: got %d expected %d"
                               % (input.shape[1], self.input_size))
        if hx is None:
            zeros = _creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype,
                                    device=input.device)
            hs = [zeros] * n_states
        else:
            hs = [h if batched else h.unsqueeze(0) for h in ([hx] if n_states == 1 else hx)]
            for i, h in enumerate(hs):
                if h.shape[0] != input.shape[0]:
                    raise RuntimeError("Input batch size %d doesn't match hidden%d batch size "
                                       "%d" % (input.shape[0], i, h.shape[0]))
                if h.shape[1] != self.hidden_size:
                    raise RuntimeError("hidden%d has inconsistent hidden_size: got %d, "
                                       "expected %d" % (i, h.shape[1], self.hidden_size))
        xw = F.linear(input, self.weight_ih, self.bias_ih)
        out = step(xw, hs, self.weight_hh, self.bias_hh)
        return out if batched else [o.squeeze(0) for o in out]


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu).

    Raises:
        RuntimeError: in forward, for a ``nonlinearity`` other than 'tanh' or 'relu'.
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity not in ("tanh", "relu"):
            self._check_dims(input, hx, 1)
            raise RuntimeError("Unknown nonlinearity: %s" % self.nonlinearity)
        return self._step(input, hx, 1, lambda xw, st, w, b: _rnn_step(
            xw, st, w, b, self.nonlinearity))[0]


class LSTMCell(RNNCellBase):
    """One LSTM step: ``forward(input, (h, c))`` returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        return tuple(self._step(input, hx, 2, _lstm_step))


class GRUCell(RNNCellBase):
    """One GRU step: ``forward(input, h)`` returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        return self._step(input, hx, 1, _gru_step)[0]
