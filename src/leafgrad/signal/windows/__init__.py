"""``torch.signal.windows``: the window functions of ``windows.py`` (PyTorch's
``torch/signal/windows/windows.py``)."""
from .windows import (bartlett, blackman, cosine, exponential, gaussian, general_cosine,
                      general_hamming, hamming, hann, kaiser, nuttall)

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
