"""``DistributedSampler``, as torch/utils/data/distributed.py: each of ``num_replicas``
processes reads its own ``rank``-strided share of the dataset.

The index order is PyTorch's exactly: with ``shuffle`` a ``randperm(len(dataset))`` from a
``Generator`` seeded ``seed + epoch`` (``set_epoch``), then padded by repeating the start
(or cut with ``drop_last``) to a multiple of ``num_replicas``, then
``indices[rank::num_replicas]``. leafgrad runs in one process with no process group, so
``num_replicas`` and ``rank`` must be given (as single-process code does); without them it
raises PyTorch's ValueError for an uninitialised default process group.
"""
import math

from ..._random import generator as _random
from .sampler import Sampler

__all__ = ["DistributedSampler"]

_NO_GROUP = ("Default process group has not been initialized, please make sure to call "
             "init_process_group. (leafgrad runs in a single process and has no process "
             "group: DistributedSampler needs num_replicas and rank. Fix: "
             "DistributedSampler(dataset, num_replicas=1, rank=0), or the world size and "
             "rank your launcher gives)")


class DistributedSampler(Sampler):
    """Raises ValueError when ``num_replicas`` or ``rank`` is missing (no process group)
    or ``rank`` is outside ``[0, num_replicas - 1]``."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            raise ValueError(_NO_GROUP)
        if rank >= num_replicas or rank < 0:
            raise ValueError("Invalid rank %s, rank should be in the interval [0, %s]"
                             % (rank, num_replicas - 1))
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas)
                                         / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = _random.Generator().manual_seed(self.seed + self.epoch)
            indices = _random.randperm(g, n).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError("Number of indices (%d) does not match total_size (%d)"
                                 % (len(indices), self.total_size))
        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError("Number of subsampled indices (%d) does not match "
                                 "num_samples (%d)" % (len(indices), self.num_samples))
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch: with ``shuffle``, each epoch draws another order (seed + epoch)."""
        self.epoch = epoch
