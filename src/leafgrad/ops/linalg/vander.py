"""``torch.vander``: the Vandermonde matrix of a 1-D tensor (columns x^(N-1), ..., x^0, or
increasing), built from products so its gradient is theirs. ``torch.linalg.vander``
(other argument order and defaults) is in ``ops/linalg/qr.py``.
"""

import numpy as np

from ..._tensor.tensor import Tensor
from .._registry import defop
from ..shape.joins import cat
from ..shape.rearrange import flip


@defop("vander", method=False)
def vander(x, N=None, increasing=False):
    """Vandermonde matrix of the 1-D ``x``: columns ``x**(N-1), ..., x**0`` (or increasing
    powers), shape (len(x), N); N defaults to len(x). Computed as PyTorch does, a cumprod
    of ``[1, x, x, ...]`` (so the gradient is cumprod's; integer inputs give int64).

    Raises:
        RuntimeError: ``x`` not 1-D, or a negative N.
    """
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor. Fix: x.flatten()")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative. Fix: N >= 0")
    if x._data.dtype.kind in "biu":
        x = x.long()
    ones = Tensor._make_plain(np.ones((x.shape[0], 1), x._data.dtype))
    if n == 0:
        return ones.narrow(1, 0, 0)
    res = ones
    if n > 1:
        res = cat([ones, x.unsqueeze(1).expand(x.shape[0], n - 1)], 1).cumprod(1)
    return res if increasing else flip(res, (1,))
