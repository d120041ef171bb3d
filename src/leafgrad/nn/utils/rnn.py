"""``leafgrad.nn.utils.rnn``: padding a list of variable-length sequences, as
``torch.nn.utils.rnn`` (``PackedSequence`` and packing are not implemented)."""
from ..._tensor import creation as _creation
from ..._tensor.tensor import Tensor
from ...ops.shape import joins as S

__all__ = ["pad_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shapes (L_i, *) into (L_max, B, *), or (B, L_max, *) with
    ``batch_first``, filling with ``padding_value`` on the ``padding_side`` ('right' or
    'left'). A tensor is split along its first dimension. Differentiable.

    Raises:
        RuntimeError: an unknown ``padding_side``, an empty list, or trailing dimensions
            that differ.
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got %s."
                           % padding_side)
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = tuple(sequences[0].shape[1:])
    for s in sequences[1:]:
        for i, (a, b) in enumerate(zip(trailing, s.shape[1:])):
            if a != b:
                raise RuntimeError("The size of tensor a (%d) must match the size of tensor b "
                                   "(%d) at non-singleton dimension %d" % (a, b, i + 1))
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        n = longest - s.shape[0]
        if n:
            fill = _creation.full((n,) + tuple(s.shape[1:]), padding_value,
                                  dtype=sequences[0].dtype)
            s = S.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return S.stack(padded, 0 if batch_first else 1)
