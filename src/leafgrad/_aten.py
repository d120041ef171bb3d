"""What leafgrad answers for PyTorch's ATen-level extension points, which it lacks:
``torch.ops.aten`` (the operator registry) and ``Tensor._make_wrapper_subclass`` (tensor
subclasses whose every op goes to ``__torch_dispatch__``).

leafgrad's ops are Python functions over NumPy arrays, with no ATen operator below them
that a subclass could intercept. So ``torch.ops.aten`` exists (code that binds
``aten = torch.ops.aten`` at import still loads) but every operator lookup raises
PyTorch's AttributeError, and making a wrapper subclass raises NotImplementedError;
both messages say why and what to do instead.

Source: torch/_ops.py (_OpNamespace), torch/csrc/autograd/python_variable.cpp.
"""


class _OpNamespace:
    """``torch.ops.<name>``: an operator namespace with no operators."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "<module 'torch.ops.%s'>" % self.name

    def __getattr__(self, op):
        if op.startswith("__"):
            raise AttributeError(op)
        raise AttributeError(
            "'_OpNamespace' '%s' object has no attribute '%s': leafgrad has no ATen operator "
            "registry (its ops are Python functions on NumPy arrays). Fix: call the torch "
            "function or Tensor method directly (torch.%s / Tensor.%s)"
            % (self.name, op, op.lstrip("_"), op.lstrip("_")))


aten = _OpNamespace("aten")


def make_wrapper_subclass(cls, size, *args, **kwargs):
    """``torch.Tensor._make_wrapper_subclass``: refused.

    Raises:
        NotImplementedError: always (no ``__torch_dispatch__`` here)."""
    raise NotImplementedError(
        "Tensor._make_wrapper_subclass(%s, ...): a wrapper subclass gets every ATen operator "
        "through __torch_dispatch__; leafgrad has no ATen dispatch, so its ops would never "
        "reach %s.__torch_dispatch__. Fix: keep the wrapped tensor as an attribute of a "
        "plain object (or subclass torch.Tensor without a wrapper, overriding its methods)"
        % (getattr(cls, "__name__", cls), getattr(cls, "__name__", cls)))
