"""utils.data against real PyTorch: batching, collation, lengths, shuffling, splits, errors."""
from collections import namedtuple

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import leafgrad as lg
import leafgrad.utils.data as ldata


def to_np(obj):
    """Nested batches -> nested numpy/python for comparison across libraries."""
    if isinstance(obj, (lg.Tensor, torch.Tensor)):
        return ("tensor", str(obj.dtype).replace("torch.", ""), obj.numpy().tolist())
    if isinstance(obj, dict):
        return {k: to_np(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [to_np(v) for v in obj])
    return obj


def both_datasets():
    x = np.arange(14, dtype=np.float32).reshape(7, 2)
    y = np.arange(7)
    return (ldata.TensorDataset(lg.tensor(x), lg.tensor(y)),
            tdata.TensorDataset(torch.tensor(x), torch.tensor(y)))


@pytest.mark.parametrize("kw", [dict(batch_size=3), dict(batch_size=3, drop_last=True),
                                dict(batch_size=1), dict(batch_size=7), dict(batch_size=10),
                                dict(batch_size=None)])
def test_tensor_dataset_batches_match_torch(kw):
    lds, tds = both_datasets()
    lb, tb = list(ldata.DataLoader(lds, **kw)), list(tdata.DataLoader(tds, **kw))
    assert len(ldata.DataLoader(lds, **kw)) == len(tdata.DataLoader(tds, **kw)) == len(tb)
    assert to_np(lb) == to_np(tb)


Point = namedtuple("Point", "x y")
SAMPLES = {
    "floats": [1.5, 2.0, -3.0],
    "ints": [1, 2, 3],
    "bools": [True, False, True],
    "strs": ["a", "b", "c"],
    "dicts": [{"a": 1.0, "b": [1, 2]}, {"a": 2.0, "b": [3, 4]}, {"a": 3.0, "b": [5, 6]}],
    "tuples": [(1, 2.0), (3, 4.0), (5, 6.0)],
    "namedtuples": [Point(1, 2.0), Point(3, 4.0), Point(5, 6.0)],
    "numpy": [np.ones(2, np.float32), np.zeros(2, np.float32), np.full(2, 3, np.float32)],
    "npscalars": [np.float64(1), np.float64(2), np.float64(3)],
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_default_collate_matches_torch(kind):
    samples = SAMPLES[kind]
    lb = next(iter(ldata.DataLoader(samples, batch_size=3)))
    tb = next(iter(tdata.DataLoader(samples, batch_size=3)))
    assert to_np(lb) == to_np(tb)
    if kind == "namedtuples":
        assert type(lb) is Point


def test_collate_errors():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        ldata.default_collate([[1, 2], [1]])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        ldata.default_collate([None, None])


def test_custom_collate_and_dataset():
    class Squares(ldata.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return lg.tensor([float(i * i)])

    dl = ldata.DataLoader(Squares(), batch_size=2, collate_fn=lambda b: len(b))
    assert list(dl) == [2, 2, 1]
    batches = list(ldata.DataLoader(Squares(), batch_size=2))
    assert tuple(batches[0].shape) == (2, 1) and batches[2].numpy().tolist() == [[16.0]]


def test_shuffle_is_a_permutation_and_reproducible():
    lds, _ = both_datasets()
    g = lg.Generator().manual_seed(3)
    first = [y for _, ys in ldata.DataLoader(lds, batch_size=2, shuffle=True, generator=g)
             for y in ys.tolist()]
    assert sorted(first) == list(range(7))
    second = [y for _, ys in ldata.DataLoader(lds, batch_size=2, shuffle=True, generator=g)
              for y in ys.tolist()]
    assert sorted(second) == list(range(7))
    g.manual_seed(3)
    again = [y for _, ys in ldata.DataLoader(lds, batch_size=2, shuffle=True, generator=g)
             for y in ys.tolist()]
    assert again == first
    lg.manual_seed(0)
    a = [int(y) for _, y in ldata.DataLoader(lds, shuffle=True)]
    lg.manual_seed(0)
    b = [int(y) for _, y in ldata.DataLoader(lds, shuffle=True)]
    assert a == b and sorted(a) == list(range(7))


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        ldata.TensorDataset(lg.zeros(3), lg.zeros(4))
    lds, tds = both_datasets()
    assert len(lds) == len(tds) == 7
    assert to_np(lds[2]) == to_np(tds[2])


def test_random_split_lengths_and_fractions():
    parts = ldata.random_split(range(10), [3, 7], generator=lg.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(10))
    fr = ldata.random_split(range(11), [0.5, 0.3, 0.2])
    tfr = tdata.random_split(range(11), [0.5, 0.3, 0.2])
    assert [len(p) for p in fr] == [len(p) for p in tfr]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        ldata.random_split(range(10), [3, 3])


def test_subset_concat_and_iterable():
    sub = ldata.Subset(list(range(10)), [4, 2, 8])
    assert len(sub) == 3 and sub[1] == 2
    assert list(ldata.DataLoader(sub, batch_size=3))[0].tolist() == [4, 2, 8]
    cat = ldata.ConcatDataset([[1, 2], [3, 4, 5]])
    assert len(cat) == 5 and cat[2] == 3 and cat[-1] == 5
    with pytest.raises(ValueError):
        cat[-6]
    assert len(ldata.Dataset.__add__(sub, sub)) == 6

    class Stream(ldata.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    assert [b.tolist() for b in ldata.DataLoader(Stream(), batch_size=3)] == \
        [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in ldata.DataLoader(Stream(), batch_size=3, drop_last=True)] == \
        [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="IterableDataset"):
        ldata.DataLoader(Stream(), shuffle=True)


def test_samplers_match_torch():
    assert list(ldata.SequentialSampler(range(4))) == list(tdata.SequentialSampler(range(4)))
    lbs = ldata.BatchSampler(ldata.SequentialSampler(range(10)), 3, drop_last=False)
    tbs = tdata.BatchSampler(tdata.SequentialSampler(range(10)), 3, drop_last=False)
    assert list(lbs) == list(tbs) and len(lbs) == len(tbs)
    assert len(ldata.BatchSampler(range(10), 3, True)) == \
        len(tdata.BatchSampler(range(10), 3, True))
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        ldata.BatchSampler(range(3), 0, False)
    rs = ldata.RandomSampler(range(6))
    assert sorted(rs) == list(range(6)) and len(rs) == 6
    rr = list(ldata.RandomSampler(range(3), replacement=True, num_samples=20))
    assert len(rr) == 20 and set(rr) <= {0, 1, 2}
    dl = ldata.DataLoader(list(range(10)), batch_sampler=lbs)
    assert [b.tolist() for b in dl][-1] == [9]


def test_dataloader_option_errors_match_torch():
    for lib in (ldata, tdata):
        with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
            lib.DataLoader(range(3), sampler=lib.SequentialSampler(range(3)), shuffle=True)
        with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
            lib.DataLoader(range(3), batch_size=2, batch_sampler=[[0, 1]])
        with pytest.raises(ValueError, match="num_workers option should be non-negative"):
            lib.DataLoader(range(3), num_workers=-1)
        with pytest.raises(ValueError, match="disables auto-batching"):
            lib.DataLoader(range(3), batch_size=None, drop_last=True)


def test_training_loop_with_dataloader():
    import leafgrad.nn as lnn
    lg.manual_seed(0)
    x = lg.randn(64, 3)
    y = x @ lg.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    model = lnn.Linear(3, 1)
    opt = lg.optim.SGD(model.parameters(), lr=0.1)
    dl = ldata.DataLoader(ldata.TensorDataset(x, y), batch_size=16, shuffle=True)
    for _ in range(30):
        for xb, yb in dl:
            opt.zero_grad()
            loss = lnn.functional.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
    assert loss.item() < 1e-3
    np.testing.assert_allclose(model.weight.detach().numpy(), [[1.0, -2.0, 0.5]], atol=0.02)


@pytest.mark.parametrize("kw", [dict(pin_memory=True), dict(pin_memory=True, pin_memory_device="cuda"),
                                dict(pin_memory_device="cuda"), {}])
def test_pin_memory_warnings_as_a_cpu_only_torch(kw):
    """PyTorch warns at each iterator (not at construction) that pin_memory has no
    accelerator to pin for, and that pin_memory_device is deprecated."""
    import warnings
    import torch
    got = []
    for T in (torch, lg):
        ds = T.utils.data.TensorDataset(T.arange(6.))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            dl = T.utils.data.DataLoader(ds, batch_size=2, **kw)
            n0 = len(w)
            for _ in range(2):
                list(dl)
        got.append((n0, [(x.category, str(x.message)) for x in w]))
    assert got[1] == got[0]
