"""``torch.backends.mkldnn``: leafgrad uses NumPy's BLAS, not oneDNN."""
enabled = True


def is_available():
    return False
