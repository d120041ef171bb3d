"""The only place that knows calculus: each family of ops with its derivative rules.

One file per family (unary, binary, reduction, shape, indexing, linalg, inplace, conv,
pooling, activation, loss, ...), each op declared once (``_registry.defop``); the map of
files is in docs/contributing.md. nn.functional's composite families built from these
ops (interpolate, pad, attention, ...) are in ``leafgrad/nn/functional_*.py``.
"""

# ``torch.ops.aten`` (PyTorch's operator registry): present, with no operators (_tensor/aten.py)
from .._tensor.aten import aten  # noqa: E402,F401
