"""Deprecated ``torch.nn`` classes kept for old code: ``Container`` (use ``Module``) and
``NLLLoss2d`` (use ``NLLLoss``). Each warns on construction with PyTorch's FutureWarning
and then behaves as PyTorch's."""

from .loss import NLLLoss
from .module import Module
from ..._core import errors as _errors

__all__ = ["Container", "NLLLoss2d"]


class Container(Module):
    """A ``Module`` holding the keyword arguments as submodules (deprecated)."""

    def __init__(self, **kwargs):
        _errors.warn("`nn.Container` is deprecated. All of its functionality is now "
                     "implemented in `nn.Module`. Subclass that instead.", FutureWarning)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class NLLLoss2d(NLLLoss):
    """``NLLLoss`` (deprecated name from when it was limited to 2-D targets)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        _errors.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                     "drop-in replacement and see https://pytorch.org/docs/main/nn.html"
                     "#torch.nn.NLLLoss for more details.", FutureWarning)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
