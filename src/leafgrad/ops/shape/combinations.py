"""``torch.combinations``: the length-``r`` combinations of a 1-D tensor's elements, as
PyTorch builds them (``itertools`` order, picked with indexing, so the gradient is
the indexing one). ``torch.cartesian_prod`` is in ``leafgrad/functional.py``.
"""

import itertools

import numpy as np

from ..._tensor.tensor import Tensor
from .._named import grad_fn_named
from .._registry import defop


@defop("combinations", method=False)
@grad_fn_named("StackBackward0")
def combinations(input, r=2, with_replacement=False):
    """All length-``r`` combinations of the 1-D ``input``'s elements (as itertools), one per
    row: shape (count, r); ``r == 0`` gives an empty vector.

    Raises:
        RuntimeError: ``input`` not 1-D or a negative r.
    """
    if input.dim() != 1:
        raise RuntimeError("Expect a 1D vector, but got shape %s. Fix: x.flatten()"
                           % list(input.shape))
    if r < 0:
        raise RuntimeError("Expect a non-negative number, but got %d" % r)
    if r == 0:
        return Tensor._make_plain(np.zeros(0, input._data.dtype))
    gen = (itertools.combinations_with_replacement if with_replacement else
           itertools.combinations)(range(input.shape[0]), r)
    idx = np.array(list(gen), np.int64).reshape(-1, r)
    return input[Tensor._make_plain(idx)]
