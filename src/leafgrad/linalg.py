"""``torch.linalg``: norms, inverse, determinant, solve, singular values.

The ops live in ``leafgrad.ops.linalg`` (with their derivative rules); this
module gives them PyTorch's names.
"""
from ._errors import LinAlgError  # noqa: F401
from .ops.linalg import matmul  # noqa: F401
from .ops.linalg_fns import det, inv, matrix_norm, solve, svdvals, vector_norm  # noqa: F401
from .ops.linalg_fns import linalg_norm as norm  # noqa: F401

__all__ = ["LinAlgError", "det", "inv", "matmul", "matrix_norm", "norm", "solve", "svdvals",
           "vector_norm"]
