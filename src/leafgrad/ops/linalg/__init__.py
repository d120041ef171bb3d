"""Linear algebra: matrix products (``products``, ``blas``, ``einsum``) and ``torch.linalg``'s
functions, decompositions and solvers, each with PyTorch's derivative formulas.
"""
