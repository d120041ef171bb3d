"""The only place that knows calculus: each family of ops with its derivative rules.

elementwise, reduction, shape, indexing, linalg, inplace, conv (convolution and
pooling); other nn-specific ops (softmax, losses) are in ``leafgrad.nn.functional``.
"""

# ``torch.ops.aten`` (PyTorch's operator registry): present, with no operators (_aten.py)
from .._aten import aten  # noqa: E402,F401
