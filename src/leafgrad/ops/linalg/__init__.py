"""Linear algebra: matrix products (``products``, ``blas``, ``einsum``) and ``torch.linalg``'s
functions by concept: ``norms`` (and svdvals), ``inverse_det`` (inv, det, solve),
``solvers`` (triangular, LU, least squares, tensor forms, ``_ex`` variants),
``decompositions``, ``cholesky``, ``qr`` (qr, matrix_rank, cond, linalg.vander), ``ldl``,
``diagonal``, ``vander`` (torch.vander), each with PyTorch's derivative formulas; their
shared LAPACK-layout helpers are in ``_lapack``.
"""
