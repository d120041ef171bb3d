"""``leafgrad.utils.data``: Dataset, TensorDataset, DataLoader, samplers (DistributedSampler
included), random_split."""
from .dataset import (Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset,
                      ChainDataset, Subset, random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,
                      WeightedRandomSampler, BatchSampler)
from .distributed import DistributedSampler
from .dataloader import DataLoader, get_worker_info
from ._collate import default_collate, default_convert

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
           "DataLoader", "get_worker_info", "default_collate", "default_convert",
           "DistributedSampler"]
