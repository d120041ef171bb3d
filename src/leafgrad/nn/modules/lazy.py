"""The machinery of the lazy layers (``LazyLinear``, ``LazyConv*d``, ``LazyBatchNorm*d``,
..., each in the file of its eager layer, as PyTorch's).

A lazy layer's input size is read from its first input; until then its parameters are
``UninitializedParameter`` (no data; ``nn/parameter.py``). The first call materialises them
with that size, initialises them by the layer's own ``reset_parameters`` (the same
``nn.init`` calls as the eager layer, so one random stream gives the same weights), and
turns the module into its eager class (``Linear``, ``Conv2d``, ...: PyTorch's
``cls_to_become``). The parameter objects stay the same, so an optimizer built before the
first call keeps working.
"""
from ..parameter import UninitializedParameter

__all__ = []


def _has_uninitialized(module):
    return any(isinstance(p, UninitializedParameter) for p in module._parameters.values()
               if p is not None)


class _LazyMixin:
    """``forward`` of the first call: infer sizes, materialise, become the eager class."""

    cls_to_become = None

    def has_uninitialized_params(self):
        return _has_uninitialized(self)

    def forward(self, *args, **kwargs):
        if self.has_uninitialized_params():
            self.initialize_parameters(*args, **kwargs)
        self.__class__ = self.cls_to_become
        return self.forward(*args, **kwargs)


def _uninit(module, names, bias, dtype):
    for name in names:
        if name == "bias" and not bias:
            module.register_parameter("bias", None)
        else:
            setattr(module, name, UninitializedParameter(dtype=dtype))
