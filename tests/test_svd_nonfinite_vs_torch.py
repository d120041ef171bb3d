"""SVD-based ops on inf / nan input as PyTorch: NumPy's gesdd never returned on an inf
(the call hung), so leafgrad settles non-finite matrices before LAPACK: a nan raises
``torch.linalg.LinAlgError`` (with the batch element), an inf gives nan singular values,
and what is built from them (pinv, matrix_rank, cond, norms) comes out as PyTorch's."""
import math

import numpy as np
import pytest
import torch

import leafgrad

INF, NAN = math.inf, math.nan
_OPS = {
    "svdvals": lambda T, a: T.linalg.svdvals(a),
    "svd.S": lambda T, a: T.linalg.svd(a).S,
    "matrix_norm2": lambda T, a: T.linalg.matrix_norm(a, ord=2),
    "nuc": lambda T, a: T.linalg.matrix_norm(a, "nuc"),
    "pinv": lambda T, a: T.linalg.pinv(a),
    "rank": lambda T, a: T.linalg.matrix_rank(a),
    "cond": lambda T, a: T.linalg.cond(a),
}
_MATS = {
    "inf": [[INF, 1.0], [1.0, 1.0]],
    "nan": [[NAN, 1.0], [1.0, 1.0]],
    "wide inf": [[INF, 1.0, 2.0], [1.0, 1.0, 3.0]],
    "batch inf": [[[1.0, 2.0], [3.0, 4.0]], [[-INF, 1.0], [1.0, 1.0]]],
    "batch nan": [[[1.0, 2.0], [3.0, 4.0]], [[NAN, 1.0], [1.0, 1.0]]],
}


def _outcome(T, op, a):
    try:
        return np.asarray(_OPS[op](T, T.tensor(a, dtype=T.float64)).tolist(), dtype=float)
    except Exception as e:  # noqa: BLE001 - compared with torch
        return "%s: %s" % (type(e).__name__, str(e).split(" Fix:")[0])


@pytest.mark.parametrize("mat", sorted(_MATS))
@pytest.mark.parametrize("op", sorted(_OPS))
def test_svd_ops_on_nonfinite_input(op, mat):
    want, got = (_outcome(T, op, _MATS[mat]) for T in (torch, leafgrad))
    if isinstance(want, str):
        assert got == want
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)
