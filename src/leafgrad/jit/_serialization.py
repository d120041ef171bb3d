"""``torch.jit.save`` / ``load``: leafgrad cannot write or read TorchScript archives.

Both raise NotImplementedError saying so and what to use instead (``torch.save`` of a
``state_dict``, which leafgrad reads and writes in PyTorch's format). ``load`` of a path
that does not exist raises PyTorch's ValueError first.
"""
import os
import warnings

from ._script import _no_torchscript

__all__ = ["save", "load"]


def save(m, f, _extra_files=None):
    warnings.warn("`torch.jit.save` is deprecated. Please switch to `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    raise _no_torchscript("torch.jit.save")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    warnings.warn("`torch.jit.load` is deprecated. Please switch to `torch.export`.",
                  DeprecationWarning, stacklevel=2)
    if isinstance(f, (str, os.PathLike)):
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {f} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {f} is a directory")
    raise NotImplementedError(
        "torch.jit.load is not available in leafgrad: it cannot read TorchScript archives "
        "(the compiled program inside needs PyTorch's interpreter). Fix: load the archive "
        "with PyTorch, save its weights with torch.save(scripted.state_dict(), path), and "
        "load them into the same Python model under leafgrad with torch.load.")
