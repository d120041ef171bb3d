"""``torch.linalg``: norms, inverse, determinant, solve, singular values.

The ops live in ``leafgrad.ops.linalg`` (with their derivative rules); this module gives
them PyTorch's names.
"""
from ._core.errors import LinAlgError  # noqa: F401
from .ops.linalg.products import matmul  # noqa: F401
from .ops.linalg.inverse_det import det, inv, solve  # noqa: F401
from .ops.linalg.norms import (linalg_norm as norm, matrix_norm, svdvals,  # noqa: F401
                               vector_norm)
from .ops.linalg.decompositions import (cholesky, cross, eig, eigh, eigvals, eigvalsh, matrix_exp,  # noqa: F401
                                        matrix_power, multi_dot, pinv, slogdet, svd, vecdot)
from .ops.linalg.qr import (cond, householder_product, matrix_rank,  # noqa: F401
                            qr, vander)
from .ops.linalg.solvers import (cholesky_ex, inv_ex, lstsq, lu, lu_factor,  # noqa: F401
                                 lu_factor_ex, lu_solve, solve_ex, solve_triangular,
                                 tensorinv, tensorsolve)
from .ops.linalg.diagonal import diagonal  # noqa: F401
from .ops.linalg.ldl import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: F401

__all__ = ["LinAlgError", "cholesky", "cross", "det", "eigh", "eigvalsh", "inv", "matmul",
           "matrix_exp", "matrix_norm", "matrix_power", "multi_dot", "norm", "pinv", "slogdet",
           "solve", "svd", "svdvals", "vecdot", "vector_norm", "cholesky_ex", "inv_ex", "lstsq",
           "lu", "lu_factor", "lu_factor_ex", "lu_solve", "solve_ex", "solve_triangular", "cond",
           "eig", "eigvals", "householder_product", "matrix_rank", "qr", "vander",
           "diagonal", "ldl_factor", "ldl_factor_ex", "ldl_solve", "tensorinv", "tensorsolve"]
