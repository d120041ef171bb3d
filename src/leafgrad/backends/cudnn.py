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


class flags:
    """``with torch.backends.cudnn.flags(enabled=False, benchmark=False, ...)``: sets the
    flags inside the block and restores them after (they change nothing here)."""

    def __init__(self, enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
                 allow_tf32=True, fp32_precision="none", depthwise_kernel="auto"):
        self._new = dict(enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit,
                         deterministic=deterministic, allow_tf32=allow_tf32)
        self._old = None

    def __enter__(self):
        g = globals()
        self._old = {k: g[k] for k in self._new}
        g.update(self._new)
        return self

    def __exit__(self, *exc):
        globals().update(self._old)
        return False
