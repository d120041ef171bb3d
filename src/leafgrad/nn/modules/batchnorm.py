"""``BatchNorm1d/2d/3d``, ``SyncBatchNorm`` and ``LazyBatchNorm1d/2d/3d`` (as ``torch.nn``),
written with leafgrad tensor ops so gradients flow.

Formulas from the PyTorch docs: y = (x - E[x]) / sqrt(Var[x] + eps) * gamma + beta with the
biased variance; the running variance is updated with the unbiased one:
running = (1 - momentum) * running + momentum * batch_stat (``momentum=None``: cumulative
average). Running stats are buffers (``running_mean``, ``running_var``,
``num_batches_tracked``), so they appear in ``state_dict``.

``SyncBatchNorm``'s statistics are synchronised across the processes of a distributed job;
leafgrad runs in one process, where PyTorch's SyncBatchNorm computes exactly
``batch_norm`` (the path it takes when ``torch.distributed`` is not initialised), over
input (N, C, *) of any rank >= 2.
"""
from ..._tensor import creation as _creation
from ...ops import _trace
from ...ops.nn.normalization import batch_norm, count_batch
from .. import init
from ..parameter import Parameter
from .lazy import _LazyMixin, _uninit
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LazyBatchNorm1d",
           "LazyBatchNorm2d", "LazyBatchNorm3d"]


class _BatchNorm(Module):
    _expected_dims = (2, 3)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_creation.empty(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(_creation.empty(num_features, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", _creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", _creation.tensor(0))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            for buf, v in ((self.running_mean, 0), (self.running_var, 1),
                           (self.num_batches_tracked, 0)):
                buf._data[...] = v
                buf._bump_version()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        if input.dim() not in self._expected_dims:
            raise ValueError("expected %s input (got %dD input)" % (
                " or ".join("%dD" % d for d in self._expected_dims), input.dim()))

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        count = (self.training and self.track_running_stats
                 and self.num_batches_tracked is not None)
        if count and self.momentum is None:
            factor = 1.0 / (float(self.num_batches_tracked._data) + 1)
            if _trace.tape[0] is not None:      # a Python number from a buffer's value
                _trace.tape[0].fail("BatchNorm with momentum=None (its factor is read from "
                                    "num_batches_tracked)")
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        # batch_norm checks its input before it updates the running stats; the batch is
        # counted only once it went through (a bad input changes nothing, unlike
        # PyTorch, which counts it and then raises)
        out = batch_norm(input, self.running_mean if track else None,
                         self.running_var if track else None, self.weight, self.bias,
                         use_batch, factor, self.eps)
        if count:
            count_batch(self.num_batches_tracked)
        return out

    def extra_repr(self):
        return ("%s, eps=%s, momentum=%s, affine=%s, bias=%s, track_running_stats=%s" % (
            self.num_features, self.eps, self.momentum, self.affine, self.bias is not None,
            self.track_running_stats))


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) input, per channel C.

    Raises:
        ValueError: for other input ranks, or one value per channel in training.
    """
    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) input, per channel C."""
    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W) input, per channel C."""
    _expected_dims = (5,)


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
        # instance norms subclass _BatchNorm here (PyTorch's: _NormBase); not converted
        if isinstance(module, _BatchNorm) and not hasattr(module, "_no_batch_dim"):
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


class _LazyBatchNormMixin(_LazyMixin):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        Module.__init__(self)
        self.num_features = 0
        self.eps, self.momentum, self.affine = eps, momentum, affine
        self.track_running_stats = track_running_stats
        if affine:
            _uninit(self, ("weight", "bias"), True, dtype)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        from ..._tensor import creation as _creation
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(0))
            self.register_buffer("running_var", _creation.zeros(0))
            self.register_buffer("num_batches_tracked", _creation.tensor(0))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def initialize_parameters(self, input):
        from ..._tensor import creation as _creation
        self.num_features = input.shape[1]
        if self.affine:
            self.weight.materialize((self.num_features,))
            self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            self.running_mean = _creation.zeros(self.num_features)
            self.running_var = _creation.ones(self.num_features)
        self.reset_parameters()

    def has_uninitialized_params(self):
        return self.num_features == 0


def _lazy_bn(name, eager):
    doc = "``%s`` whose ``num_features`` is read from the first input." % eager.__name__
    return type(name, (_LazyBatchNormMixin, eager), {"cls_to_become": eager, "__doc__": doc,
                                                    "__module__": eager.__module__})


LazyBatchNorm1d = _lazy_bn("LazyBatchNorm1d", BatchNorm1d)


LazyBatchNorm2d = _lazy_bn("LazyBatchNorm2d", BatchNorm2d)


LazyBatchNorm3d = _lazy_bn("LazyBatchNorm3d", BatchNorm3d)
