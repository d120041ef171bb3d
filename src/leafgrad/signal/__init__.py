"""``torch.signal``: signal-processing helpers; ``torch.signal.windows`` holds the
scipy-style window functions (``windows/windows.py``, as PyTorch's file)."""
from . import windows

__all__ = ["windows"]
