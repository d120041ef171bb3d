"""``leafgrad.nn.utils.rnn``: variable-length sequences for the recurrent layers, as
``torch.nn.utils.rnn`` (torch/nn/utils/rnn.py, whose functions these follow line for line,
and the ATen kernels they call, aten/src/ATen/native/PackedSequence.cpp).

A ``PackedSequence`` holds the steps of B sequences sorted by decreasing length: ``data``
(sum(lengths), *) is, for t = 0, 1, ..., the t-th element of every sequence longer than t;
``batch_sizes[t]`` says how many (a CPU int64 tensor); ``sorted_indices`` /
``unsorted_indices`` (or None) map between the caller's order and the sorted one.
``nn.RNN`` / ``LSTM`` / ``GRU`` take it as input. Everything here differentiates.
"""
from collections.abc import Iterable
from typing import NamedTuple, Optional

import numpy as np

from ..._core import dtype as _dtype
from ..._tensor import creation as _creation
from ..._tensor.tensor import Tensor
from ...ops.nn.packed_sequence import check_long_cpu_vector, pack_padded

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


def _caster(name, dtype):
    def cast(self):
        return self.to(dtype=dtype)
    cast.__name__ = cast.__qualname__ = name
    cast.__doc__ = "``self.to(dtype=%s)``." % dtype
    return cast


class PackedSequence(PackedSequence_):
    """The data and ``batch_sizes`` of a packed batch of sequences (a named tuple:
    ``data, batch_sizes, sorted_indices, unsorted_indices``). Made by
    ``pack_padded_sequence`` / ``pack_sequence``, not by hand; ``PackedSequence(data,
    batch_sizes, sorted_indices)`` derives ``unsorted_indices``, and
    ``PackedSequence((data, batch_sizes))`` is accepted too (PyTorch's two forms).

    ``to``, ``float()``, ``double()``, ... convert ``data`` (and move the indices to its
    device); ``batch_sizes`` stays a CPU int64 tensor.

    Raises:
        ValueError: ``batch_sizes`` not on the CPU.
        AssertionError: no ``batch_sizes`` and ``data`` not a pair.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(
            data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        raise RuntimeError("Cannot access accelerator device when none is available. "
                           "leafgrad keeps every tensor in ordinary CPU memory (NumPy): there "
                           "is no pinned memory. Fix: drop the pin_memory() call")

    def to(self, *args, **kwargs):
        """``self.data.to(*args, **kwargs)``; ``self`` when that is ``self.data``, else a
        new PackedSequence with the indices on the data's device.

        Raises:
            RuntimeError: a ``copy`` argument (PyTorch's ``_parse_to`` refuses it).
        """
        if "copy" in kwargs:
            raise RuntimeError(".to() does not accept copy argument. Fix: leave copy out "
                               "(a PackedSequence converts only when needed)")
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def call_to(t):
            return t.to(data.device)

        return type(self)(data, self.batch_sizes, bind(self.sorted_indices, call_to),
                          bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        ex = _creation.tensor((), dtype=self.data.dtype, device=self.data.device).to(
            *args, **kwargs)
        if ex.is_cuda:
            return self.to(*args, **kwargs)
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        ex = _creation.tensor((), dtype=self.data.dtype, device=self.data.device).to(
            *args, **kwargs)
        if ex.device.type == "cpu":
            return self.to(*args, **kwargs)
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    double = _caster("double", _dtype.float64)
    float = _caster("float", _dtype.float32)
    half = _caster("half", _dtype.float16)
    long = _caster("long", _dtype.int64)
    int = _caster("int", _dtype.int32)
    short = _caster("short", _dtype.int16)
    char = _caster("char", _dtype.int8)
    byte = _caster("byte", _dtype.uint8)

    @property
    def is_cuda(self):
        """Whether ``data`` is on a GPU (never, in leafgrad)."""
        return self.data.is_cuda

    def is_pinned(self):
        """Whether ``data`` is in pinned memory (never, in leafgrad)."""
        return False


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None,
                               unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation):
    """The inverse of a 1-D int64 ``permutation`` (None for None):
    ``out[permutation[i]] = i``.

    Raises:
        IndexError: a permutation that is not 1-D (PyTorch's error class).
        RuntimeError: an index tensor that is not int64 (PyTorch's ``scatter_`` refuses
            it) or an index out of range.
    """
    if permutation is None:
        return None
    if permutation.dim() != 1:
        # PyTorch's arange(numel) index then fails scatter_'s dim check with IndexError
        raise IndexError(
            "Dimension out of range (expected to be in range of [-1, 0], but got 1) "
            "(invert_permutation: the permutation must be 1-D, got a %d-D tensor of shape %s. "
            "Fix: pass one permutation at a time, e.g. invert_permutation(p[0]))"
            % (permutation.dim(), tuple(permutation.shape)))
    output = _creation.empty_like(permutation)
    output.scatter_(0, permutation, _creation.arange(0, permutation.numel(),
                                                     device=permutation.device))
    return output


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) of sequences of
    ``lengths`` (a list of ints or a CPU tensor) into a ``PackedSequence``. With
    ``enforce_sorted`` the lengths must decrease; otherwise the batch is sorted first
    (``sorted_indices``) and ``pad_packed_sequence`` / the RNNs' final states restore
    the caller's order. Differentiable in ``input`` (``PackPaddedSequenceBackward0``).

    Raises:
        RuntimeError: lengths not sorted under ``enforce_sorted``, a length <= 0, not one
            length per sequence, lengths not on the CPU, an empty input (PyTorch's
            messages).
    """
    if not isinstance(lengths, Tensor):
        lengths = _creation.as_tensor(lengths, dtype=_dtype.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=_dtype.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = lengths.sort(descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = pack_padded(input, lengths, batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def _pad_packed(data, batch_sizes, batch_first, padding_value, total_length):
    """``torch._pad_packed_sequence``: the padded (T, B, *) tensor (copies into slices of
    a ``new_full``, so it records ``CopySlices`` as PyTorch's) and the lengths."""
    check_long_cpu_vector(batch_sizes)
    sizes = batch_sizes.tolist()
    if not sizes:
        raise RuntimeError("pad_packed_sequence: batch_sizes is empty. Fix: pad a "
                           "PackedSequence made by pack_padded_sequence or pack_sequence")
    rest = tuple(data.shape[1:])
    output = data.new_full((max(total_length, len(sizes)), sizes[0]) + rest, padding_value)
    lengths = np.empty(sizes[0], np.int64)
    offset, prev_b, prev_i, pos = 0, sizes[0], 0, sizes[0]
    for i in range(len(sizes) + 1):
        b = sizes[i] if i != len(sizes) else 0
        if b != prev_b:
            n = prev_b * (i - prev_i)
            block = data[offset:offset + n].view((i - prev_i, prev_b) + rest)
            output[prev_i:i, :prev_b].copy_(block)
            offset += n
            prev_i = i
        if prev_b > b:
            lengths[pos - (prev_b - b):pos] = i
            pos -= prev_b - b
        prev_b = b
    if batch_first:
        output = output.transpose(0, 1)
    return output, _creation.tensor(lengths)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of ``pack_padded_sequence``: the padded batch (T, B, *) (or (B, T, *))
    in the caller's order, filled with ``padding_value``, and the lengths (int64). T is
    the longest length, or ``total_length``.

    Raises:
        ValueError: ``total_length`` below the longest length.
    """
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                "input, but got total_length=%s and max sequence length being %d"
                % (total_length, max_seq_length))
        max_seq_length = total_length
    padded_output, lengths = _pad_packed(sequence.data, sequence.batch_sizes, batch_first,
                                         padding_value, max_seq_length)
    unsorted_indices = sequence.unsorted_indices
    if unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return (padded_output.index_select(batch_dim, unsorted_indices),
                lengths[unsorted_indices.cpu()])
    return padded_output, lengths


def _pad(sequences, batch_first, padding_value, padding_side):
    """``torch._C._nn.pad_sequence``: copies into slices of a ``full`` of the first
    sequence's dtype (``CopySlices``, as PyTorch's kernel)."""
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TypeError("expected Tensor as element %d in argument 0, but got %s"
                            % (i, type(s).__name__))
    if sequences[0].dim() == 0:
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0: pad_sequence needs "
                           "sequences of shape (L, *), not 0-d tensors. Fix: "
                           "t.unsqueeze(0), or stack the scalars")
    longest = max(s.size(0) for s in sequences)
    n = len(sequences)
    dims = (n, longest) if batch_first else (longest, n)
    out = _creation.full(dims + tuple(sequences[0].shape[1:]), padding_value,
                         dtype=sequences[0].dtype, device=sequences[0].device)
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got %s."
                           % padding_side)
    for i, s in enumerate(sequences):
        length = s.size(0)
        start = longest - length if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, length).copy_(s)
        else:
            out.narrow(0, start, length).select(1, i).copy_(s)
    return out


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shapes (L_i, *) into (L_max, B, *), or (B, L_max, *) with
    ``batch_first``, filling with ``padding_value`` on the ``padding_side`` ('right' or
    'left'), in the first sequence's dtype. A tensor is split along its first dimension.
    Differentiable.

    Raises:
        RuntimeError: not an iterable, an unknown ``padding_side``, an empty list, a 0-d
            first sequence, or trailing dimensions that differ.
        TypeError: an element that is not a tensor.
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           "of type: %s" % type(sequences))
    return _pad(tuple(sequences), batch_first, padding_value, padding_side)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences ``padded_sequences[:lengths[b], b]`` (or ``[b, :lengths[b]]``
    with ``batch_first``). As PyTorch's, it transposes ``padded_sequences`` in place
    when ``batch_first`` is False.

    Raises:
        ValueError: not one length per sequence.
    """
    unpadded_sequences = []
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    max_length = padded_sequences.shape[1]
    idx = _creation.arange(max_length, device=lengths.device)
    for seq, length in zip(padded_sequences, lengths, strict=True):
        mask = idx < length
        unpadded_sequences.append(seq[mask])
    return unpadded_sequences


def pack_sequence(sequences, enforce_sorted=True):
    """``pack_padded_sequence(pad_sequence(sequences), lengths)`` for a list of tensors
    (L_i, *); ``enforce_sorted`` as there."""
    lengths = _creation.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a ``PackedSequence`` holds, in the caller's order."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
