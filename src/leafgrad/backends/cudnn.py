"""``torch.backends.cudnn``: no cuDNN here; the flags are kept as set."""
enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    """False: leafgrad runs on the CPU."""
    return False


def version():
    """None: no cuDNN."""
    return None


def is_acceptable(tensor):
    return False
