"""``AdaptiveLogSoftmaxWithLoss`` (as ``torch.nn``): the adaptive softmax of Grave et al.
2017, "Efficient softmax approximation for GPUs".

The classes are split by ``cutoffs`` into a shortlist (scored by ``head``, with one more
head logit per cluster) and clusters, each scored by a two-layer low-rank projection of
``tail``: the log-probability of a cluster's class is the head's log-probability of the
cluster plus the class's log-probability within it. Parameter names and shapes, the
initialisation (``Linear``'s) and the errors are PyTorch's, so state dicts load.
"""
from collections import namedtuple

import numpy as np

from ..._tensor.tensor import Tensor
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """``forward(input, target)`` -> ``(output, loss)``: output (N,) the target's
    log-probability, loss its negative mean; input (N, in_features) with target (N,), or
    (in_features,) with a 0-d target. ``log_prob(input)`` (N, n_classes),
    ``predict(input)`` (N,) int64.

    Raises:
        ValueError: cutoffs empty, unsorted, repeated, not integers, or outside
            [1, n_classes - 1]; RuntimeError (forward): shapes that do not fit, targets
            outside [0, n_classes - 1].
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, dtype=dtype),
                                        Linear(hidden, size, bias=False, dtype=dtype)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for proj in self.tail:
            for layer in proj:
                layer.reset_parameters()

    def forward(self, input_, target_):
        tdim = target_.dim()
        if tdim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs "
                                   "with size %s" % (input_.size(),))
        elif tdim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs "
                                   "with size %s" % (input_.size(),))
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        input = input_ if tdim else input_.unsqueeze(0)
        t = np.asarray(target_._data).reshape(-1).astype(np.int64)
        if t.size and (t.min() < 0 or t.max() >= self.n_classes):
            raise RuntimeError("Target values should be in [0, %d], but values in range [%d, %d] "
                               "were found. " % (self.n_classes - 1, t.min(), t.max()))
        # the head scores the shortlist classes and one logit per cluster
        head_index = t.copy()
        output = None
        bounds = [0] + self.cutoffs
        for i in range(1, len(bounds) - 1):
            rows = np.nonzero((t >= bounds[i]) & (t < bounds[i + 1]))[0]
            if rows.size == 0:
                continue
            head_index[rows] = self.shortlist_size + i - 1
            r = Tensor._make_plain(rows)
            logp = F.log_softmax(self.tail[i - 1](input.index_select(0, r)), dim=1)
            local = logp.gather(1, Tensor._make_plain((t[rows] - bounds[i])[:, None])).squeeze(1)
            if output is None:
                output = input.new_zeros(t.shape[0])
            output = output.index_put((r,), local)
        head_logp = F.log_softmax(self.head(input), dim=1)
        picked = head_logp.gather(1, Tensor._make_plain(head_index[:, None])).squeeze(1)
        output = picked if output is None else output + picked
        loss = (-output).mean()
        if not tdim:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _full_log_prob(self, input, head_output):
        head_logp = F.log_softmax(head_output, dim=1)
        parts = [head_logp[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            logp = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(logp + head_logp[:, self.shortlist_size + i].unsqueeze(1))
        from ...ops.shape.joins import cat
        return cat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of every class: (N, in_features) -> (N, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each row: (N, in_features) -> (N,) int64 (the same as
        ``log_prob(input).argmax(1)``; the tail is only run for rows whose head argmax is
        a cluster)."""
        head_output = self.head(input)
        out = head_output.argmax(1)
        outside = out._data >= self.shortlist_size
        if not outside.any():
            return out
        m = Tensor._make_plain(outside)
        best = self._full_log_prob(input[m], head_output[m]).argmax(1)
        res = out._data.copy()
        res[outside] = best._data
        return Tensor._make_plain(res)
