"""``torch.backends``: the flags real code sets (``cudnn.benchmark = True``,
``cudnn.deterministic``) and the availability queries, answered as a CPU-only
PyTorch 2.13 build answers them. The flags are stored and read back; nothing
in leafgrad depends on them (NumPy on the CPU is deterministic already)."""
from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp  # noqa: F401

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp"]
