"""The discrete Fourier transforms (``torch.fft``'s ops): the three kernels (complex to
complex, real to complex, complex to real) with their rules, and the public transforms
built on them (``transforms.py``); ``stft``/``istft`` built on those (``spectral.py``).
May import ``_core``, the graph layer, ``_tensor`` and the other op families."""
