"""Packing padded sequences: the op behind ``nn.utils.rnn.pack_padded_sequence``, with
PyTorch's node ``PackPaddedSequenceBackward0`` (``torch._pack_padded_sequence``,
aten/src/ATen/native/PackedSequence.cpp).

Input (T, B, *) (or (B, T, *) with ``batch_first``) and lengths sorted in decreasing
order; the packed data is, for t = 0, 1, ..., the rows of the sequences still running at
step t (``batch_sizes[t]`` of them, the first ones of the batch), one after the other:
(sum(batch_sizes), *). The gradient puts each row's gradient back at its (t, b) place and
zeros at the padding (PyTorch's ``_pack_padded_sequence_backward``), written with
leafgrad ops so that it differentiates again.
"""
import numpy as np

from ..._core import errors as _errors
from ..._tensor.meta import MetaArray as _Meta
from ..._tensor.tensor import Tensor
from .._dispatch import record
from .._registry import node

__all__ = ["pack_padded", "check_long_cpu_vector"]


def _pack_backward(ctx, g):
    from ..shape.indexing import index_put_zeros
    shape, idx, _ = ctx.args
    flat = (shape[0] * shape[1],) + tuple(shape[2:])
    return (index_put_zeros(g, flat, (idx,)).reshape(shape),)


def _pack_np(ctx, g):
    shape, idx, _ = ctx.args
    out = np.zeros((shape[0] * shape[1],) + tuple(shape[2:]), g.dtype)
    out[idx] = g                      # each place once: no accumulation needed
    return (out.reshape(shape),)


# saves batch_sizes (``_saved_result1``, as PyTorch's node: freed by backward, so a second
# backward through it raises as there)
PackPaddedSequenceBackward0 = node(
    "PackPaddedSequenceBackward0", _pack_backward, saves=True, np_backward=_pack_np,
    saved_names=("result1",),
    _saved_input_sym_sizes=property(lambda self: tuple(self.args[0])),
    _saved_batch_first=property(lambda self: self.args[2]))


def check_long_cpu_vector(t):
    """PyTorch's ``checkLongTensor``: ``t`` must be a 1-D int64 tensor on the CPU."""
    if t.dim() != 1 or t.device.type != "cpu" or t.dtype.name != "int64":
        raise RuntimeError(
            "'lengths' argument should be a 1D CPU int64 tensor, but got %dD %s %s tensor. "
            "Fix: pass the lengths as a list of ints, or as a 1-D tensor on the CPU "
            "(lengths.cpu())" % (t.dim(), t.device.type, _errors.type_name(t.dtype)))


def _check_lengths(lengths, batch):
    if lengths.shape[0] != batch:
        raise RuntimeError("Expected `len(lengths)` to be equal to batch_size, but got %d "
                           "(batch_size=%d). Fix: one length per sequence of the batch "
                           "(is batch_first set as your input is laid out?)"
                           % (lengths.shape[0], batch))
    if lengths[batch - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0. Fix: drop the empty sequences "
                           "from the batch (or give them length 1 and mask them out)")
    if np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")


def pack_padded(input, lengths, batch_first):
    """``torch._pack_padded_sequence(input, lengths, batch_first)``: returns the packed
    data (a tensor recorded with ``PackPaddedSequenceBackward0``) and ``batch_sizes``, an
    int64 tensor of length ``lengths[0]``. ``lengths``: a Tensor.

    Raises:
        RuntimeError: an empty input, lengths not a 1-D CPU int64 tensor, not one per
            sequence, not positive, or not sorted in decreasing order (PyTorch's checks,
            in its order).
        IndexError: an input of fewer than two dimensions.
    """
    x = input._data
    if not x.size:
        raise RuntimeError("Cannot pack empty tensors. Fix: pack a batch with at least one "
                           "non-empty sequence")
    if x.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1): pack_padded_sequence needs (T, B, *) or, with batch_first, "
                         "(B, T, *). Fix: input.unsqueeze(1) for one sequence")
    check_long_cpu_vector(lengths)
    T, B = (x.shape[1], x.shape[0]) if batch_first else (x.shape[0], x.shape[1])
    lens = np.asarray(lengths._data)
    _check_lengths(lens, B)
    batch_sizes = Tensor._make_plain(
        (lens[None, :] > np.arange(lens[0])[:, None]).sum(1).astype(np.int64))
    steps = np.arange(T)[:, None] < lens[None, :]               # (T, B): t < length_b
    t, b = np.nonzero(steps)                                     # time-major, as PyTorch
    idx = b * T + t if batch_first else t * B + b
    rest = tuple(x.shape[2:])
    if type(x) is _Meta:
        out = _Meta((idx.size,) + rest, x.dtype)
    else:
        out = x.reshape((T * B,) + rest)[idx]
    data = record(PackPaddedSequenceBackward0, out, (input,), saved=(batch_sizes,),
                  args=(x.shape, idx, bool(batch_first)))
    return data, batch_sizes
