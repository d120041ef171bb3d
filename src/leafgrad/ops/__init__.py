"""The only place that knows calculus: each family of ops with its derivative rules.

The machinery at this folder's top (``_registry``: ``defop``/``node``/``OPS``, one
declaration per op; ``_forms``: the public forms derived from them; ``_dispatch``: the
recording; ``_out``, ``_named``, ``_select``) and one folder per family: ``elementwise``,
``reduce``, ``shape``, ``linalg``, ``nn`` (nn.functional's ops and its composites) and
``inplace``. May import ``_core``, the graph layer (``autograd.graph``, ``grad_mode``, ...)
and ``_tensor``; docs/architecture.md has the map.
"""

# ``torch.ops.aten`` (PyTorch's operator registry): present, with no operators (_tensor/aten.py)
from .._tensor.aten import aten  # noqa: E402,F401
