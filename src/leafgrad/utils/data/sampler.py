"""Samplers: which indices a DataLoader visits, and in which order (as ``torch.utils.data``).

Random ones draw exactly as PyTorch's (torch/utils/data/sampler.py): ``RandomSampler``
without a generator seeds a fresh ``Generator`` from one int64 ``random_()`` of the
default generator at each ``iter``, then yields ``randperm(n)`` (or, with replacement,
``randint(n, (32,))`` chunks, lazily: ``num_samples=10**10`` allocates nothing);
``SubsetRandomSampler`` yields ``randperm``; ``WeightedRandomSampler`` ``multinomial``.
"""
import numpy as np

from ..._random import generator as _random, sampling as _random_ops
from ..._tensor.tensor import Tensor

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


class Sampler:
    """Base class: subclasses define ``__iter__`` (indices) and usually ``__len__``."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation (or ``num_samples`` draws with replacement).

    Raises:
        TypeError: when ``replacement`` is not a bool.
        ValueError: when ``num_samples`` is not a positive int.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got replacement=%s"
                            % (self.replacement,))
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             "num_samples=%s" % (self.num_samples,))

    @property
    def num_samples(self):
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is None:
            seed = int(_random.int_full(_random.default_generator, 1, np.int64)[0])
            generator = _random.Generator().manual_seed(seed)
        else:
            generator = self.generator
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from _random_ops.randint(n, (32,), generator=generator).tolist()
            yield from _random_ops.randint(n, (self.num_samples % 32,),
                                           generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _random.randperm(generator, n).tolist()
            yield from _random.randperm(generator, n).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _random.randperm(_random.gen(self.generator), len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             "num_samples=%s" % (num_samples,))
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got replacement=%s"
                             % (replacement,))
        w = weights._data if isinstance(weights, Tensor) else np.asarray(weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape %s"
                             % (tuple(w.shape),))
        self.weights = Tensor._make_plain(w.astype(np.float64))
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        rand_tensor = _random_ops.multinomial(self.weights, self.num_samples, self.replacement,
                                              generator=self.generator)
        yield from iter(rand_tensor.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``.

    Raises:
        ValueError: for a non-positive ``batch_size`` or a non-bool ``drop_last``.
    """

    def __init__(self, sampler, batch_size, drop_last):
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError("batch_size should be a positive integer value, but got "
                             "batch_size=%s" % (batch_size,))
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got drop_last=%s"
                             % (drop_last,))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
