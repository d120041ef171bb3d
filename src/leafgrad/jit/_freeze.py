"""``torch.jit.freeze`` / ``optimize_for_inference``: nothing to fold in eager code; they
check as PyTorch does and return the module."""
import warnings

from ._script import ScriptModule

__all__ = ["freeze", "optimize_for_inference"]


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Returns ``mod``; RuntimeError as PyTorch for a non-scripted module or training mode."""
    warnings.warn("`torch.jit.freeze` is deprecated. Please use `torch.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    if not isinstance(mod, ScriptModule):
        raise RuntimeError(
            "Freezing expects a ScriptModule as input. Please use torch.jit.script or "
            "torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError(
            "Freezing is currently only implemented for modules in eval mode. Please call "
            ".eval() on your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    """Returns ``mod`` (scripted first if it is a plain Module, as PyTorch does)."""
    warnings.warn("`torch.jit.optimize_for_inference` is deprecated. Please use "
                  "`torch.compile` instead.", DeprecationWarning, stacklevel=2)
    if not isinstance(mod, ScriptModule):
        raise RuntimeError(
            "optimize_for_inference expects a ScriptModule as input. Please use "
            "torch.jit.script or torch.jit.trace to script your 'nn.Module'.")
    return mod
