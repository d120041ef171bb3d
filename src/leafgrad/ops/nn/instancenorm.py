"""``nn.functional.instance_norm`` (as PyTorch's ``torch/nn/modules/instancenorm.py``):
``batch_norm`` over each (sample, channel) pair, built from it (no rule of its own).
"""

import numpy as np

from ..._tensor.tensor import Tensor
from .._registry import functional_ops
from .normalization import batch_norm


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) over its spatial dims, as PyTorch: batch norm of
    the input viewed as (1, N C, *spatial), with the per-channel weight/bias/running stats
    repeated N times; the running stats then take the mean over the N copies.

    Raises:
        ValueError: a single spatial element with ``use_input_stats``.
    """
    from .normalization import batch_norm
    shape = tuple(input.shape)
    if use_input_stats and int(np.prod(shape[2:])) == 1:
        raise ValueError("Expected more than 1 spatial element when training, got input size "
                         "torch.Size(%s). Fix: give a larger spatial size, or use eval mode "
                         "with track_running_stats=True." % list(shape))
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    n, c = shape[:2]

    def rep(t):
        return None if t is None else t.repeat(n)

    rm = None if running_mean is None else Tensor._make_plain(np.tile(running_mean._data, n))
    rv = None if running_var is None else Tensor._make_plain(np.tile(running_var._data, n))
    out = batch_norm(input.reshape(1, n * c, *shape[2:]), rm, rv, rep(weight), rep(bias), True,
                     momentum, eps)
    for buf, new in ((running_mean, rm), (running_var, rv)):
        if buf is not None:
            buf._data[...] = new._data.reshape(n, c).mean(0)
            buf._bump_version()
    return out.view(*shape)
functional_ops(globals(), ("instance_norm",))
