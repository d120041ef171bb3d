"""``torch.linalg.diagonal``: ``torch.diagonal`` (``ops/shape/diagonals.py``) with
the last two dims as defaults.
"""



def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.diagonal(A, offset, dim1, dim2)`` with the matrix dims last by default
    (keyword-only arguments, as PyTorch). A view; gradient: DiagonalBackward0."""
    return A.diagonal(offset, dim1, dim2)
