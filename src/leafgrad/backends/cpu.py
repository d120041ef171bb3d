"""``torch.backends.cpu``."""


def get_cpu_capability():
    """NumPy picks its own SIMD kernels; reported as PyTorch's baseline."""
    return "DEFAULT"
