"""``torch.backends.openmp``."""


def is_available():
    return False
