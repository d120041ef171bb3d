"""``torch.backends.mkl``: leafgrad uses NumPy's BLAS, not MKL."""


def is_available():
    return False
