"""``leafgrad.nn.parallel``: ``DataParallel``, ``DistributedDataParallel``,
``data_parallel``, as a CPU-only PyTorch build answers them.

Without accelerators PyTorch's ``DataParallel`` keeps ``device_ids = []`` and its forward
runs the wrapped module as is; leafgrad does the same (parameters and ``state_dict`` keys
under ``module.``). ``DistributedDataParallel`` needs a process group, which leafgrad has
not: it raises PyTorch's ValueError, as PyTorch does before ``init_process_group``.
"""
from ..modules.module import Module

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module``; on CPU (no devices) ``forward`` is ``module(*inputs, **kwargs)``."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """Refused without a process group (PyTorch's ValueError)."""

    def __init__(self, module, *args, **kwargs):
        raise ValueError("Default process group has not been initialized, please make sure to "
                         "call init_process_group. Fix: leafgrad has no process groups; use the "
                         "module itself (or DataParallel, which runs it as is on CPU).")


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """``module(*inputs, **module_kwargs)``, as PyTorch on a machine without devices."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
