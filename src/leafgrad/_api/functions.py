"""``leafgrad.<op>`` functions (``torch.exp(x)``, ``torch.sum(x, dim)``, ...).

Every declared op (``ops._registry``) with a ``torch.X`` form comes from its declaration,
aliases included; below are the few functions that are not ops.
"""
from ..ops import _forms
from ..ops.inplace.writes import zero_  # noqa: F401

globals().update(_forms.functions())
# torch.sin_(t), torch.clamp_(t, ...): the Tensor.X_ forms (bound by _methods, imported first)
globals().update(_forms.inplace_functions())
# the keyword forms (alpha=, rounding_mode=), shared with the Tensor methods (correct's change)
from ..ops.elementwise import arithmetic_keywords as _scaled  # noqa: E402
for _n in ("add", "sub", "div"):     # wrappers of the declared ops (they call them)
    getattr(_scaled, _n).__wrapped__ = globals()[_n]
add, sub, div = _scaled.add, _scaled.sub, _scaled.div
subtract, divide = sub, div


def numel(input):
    return input.numel()


def detach(input):
    return input.detach()


__all__ = [n for n in dir() if not n.startswith("_")]
