"""``DataLoader``: batches of samples from a dataset (as ``torch.utils.data.DataLoader``).

Everything runs in the calling process (``num_workers`` is accepted and ignored).
Random draws as PyTorch's ``_BaseDataLoaderIter``: each ``iter(loader)`` first takes
``iter`` of the index sampler, then draws the workers' base seed (one int64
``random_()`` from ``generator`` or the default generator), so a shuffled loader gives
PyTorch's batches and leaves the default generator where PyTorch leaves it.
A ``TensorDataset`` with the default collate is batched with one fancy index per
tensor instead of stacking rows one by one (same values, much faster).
"""

import numpy as np

from ..._tensor.tensor import Tensor
from ._collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler
from ..._core import errors as _errors

__all__ = ["DataLoader", "get_worker_info"]


def get_worker_info():
    """Always None: there are no worker processes here."""
    return None


class DataLoader:
    """Iterate over ``dataset`` in batches.

    Args:
        dataset: a map-style ``Dataset`` (``__getitem__``/``__len__``) or an ``IterableDataset``.
        batch_size: samples per batch (``None``: no batching, samples are only converted).
        shuffle: a new random order every epoch (map-style datasets only).
        sampler / batch_sampler: custom index order / batches of indices.
        drop_last: drop the last incomplete batch.
        collate_fn: merges a list of samples (default: :func:`default_collate`).
        generator: leafgrad ``Generator`` for shuffling.

    Raises:
        ValueError: for incompatible options (as PyTorch: sampler with shuffle,
            batch_sampler with batch_size/shuffle/sampler/drop_last, shuffle with an
            IterableDataset, negative num_workers, batch_size=None with drop_last).
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 "option, but got shuffle=%s" % shuffle)
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 "option, but got sampler=%s" % sampler)
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "batch_sampler option, but got batch_sampler=%s" % batch_sampler)
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self._user_collate = collate_fn is not None
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        """Number of batches (for an IterableDataset: from ``len(dataset)`` when it has one).

        Raises:
            TypeError: for an IterableDataset without ``__len__``.
        """
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                from math import ceil
                n = n // self.batch_size if self.drop_last else ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self):
        from ..._random import generator as _random
        if self.pin_memory:         # PyTorch's _BaseDataLoaderIter, on a CPU-only build
            if self.pin_memory_device:
                _errors.warn("pin_memory_device is deprecated, the current accelerator will "
                             "be used as the device,ignore pin_memory_device='%s'."
                             % self.pin_memory_device)
            _errors.warn("'pin_memory' argument is set as true but no accelerator is found, "
                         "then device pinned memory won't be used.")
        if self._iterable:
            self._base_seed = int(_random.int_full(_random.gen(self.generator), 1, np.int64)[0])
            return self._iter_iterable()
        it = iter(self._index_sampler)
        self._base_seed = int(_random.int_full(_random.gen(self.generator), 1, np.int64)[0])
        if self._auto_collation:
            return self._iter_batches(it)
        return (self.collate_fn(self.dataset[i]) for i in it)

    def _iter_iterable(self):
        it = iter(self.dataset)
        if self.batch_size is None:
            for sample in it:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in it:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def _iter_batches(self, batches):
        ds = self.dataset
        fast = (type(ds) is TensorDataset and not self._user_collate
                and not any(t._requires_grad for t in ds.tensors))
        getitems = getattr(ds, "__getitems__", None)
        for indices in batches:
            if fast:
                idx = np.asarray(indices, dtype=np.int64)
                yield [Tensor._make_plain(t._data[idx]) for t in ds.tensors]
            elif getitems is not None:
                yield self.collate_fn(getitems(indices))
            else:
                yield self.collate_fn([ds[i] for i in indices])

    def __repr__(self):
        return "<%s.%s object at 0x%x>" % (type(self).__module__, type(self).__name__, id(self))
