"""``leafgrad.<op>`` functions (``torch.exp(x)``, ``torch.sum(x, dim)``, ...).

Every declared op (``ops._registry``) with a ``torch.X`` form comes from its declaration,
aliases included; below are the few functions that are not ops.
"""
from .ops import _forms
from .ops.inplace import zero_  # noqa: F401

globals().update(_forms.functions())


def numel(input):
    return input.numel()


def detach(input):
    return input.detach()


__all__ = [n for n in dir() if not n.startswith("_")]
