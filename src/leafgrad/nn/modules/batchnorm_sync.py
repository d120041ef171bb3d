"""``SyncBatchNorm`` (as ``torch.nn``). Its statistics are synchronised across the
processes of a distributed job; leafgrad runs in one process, where PyTorch's
SyncBatchNorm computes exactly ``batch_norm`` (the path it takes when
``torch.distributed`` is not initialised), over input (N, C, *) of any rank >= 2."""
from .normalization import _BatchNorm
from .normalization_more import _InstanceNorm

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """Batch norm over (N, C, *) per channel; parameters, buffers and repr as
    ``BatchNorm*d``. ``process_group`` is kept (there is no other process to sync with).

    Raises:
        ValueError: input of fewer than 2 dims, or with no channels.
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError("expected at least 2D input (got %dD input)" % input.dim())
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every ``BatchNorm*d`` (recursively) replaced by a
        ``SyncBatchNorm`` that shares its parameters and buffers (as PyTorch)."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group, bias=module.bias is not None)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


