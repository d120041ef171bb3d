"""SummaryWriter writes the events PyTorch's writes (read back with TensorBoard's own
reader): scalars, add_scalars' sub-runs, histograms, text, images."""
import glob

import numpy as np
import pytest
import torch
from torch.utils.tensorboard import SummaryWriter as TorchWriter

import leafgrad
from leafgrad.utils.tensorboard import SummaryWriter

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def write(W, T, d):
    with W(log_dir=str(d)) as w:
        for step in range(3):
            w.add_scalar("loss", T.tensor(1.5 / (step + 1)), step)
            w.add_scalar("lr", 0.1 * step, step)
        w.add_scalars("run", {"train": 1.0, "test": 2.0}, 0)
        w.add_histogram("w", T.tensor(np.linspace(-3, 5, 101)), 1)
        w.add_text("note", "hello *world*", 2)
        w.add_image("img", T.tensor(np.linspace(0, 1, 3 * 4 * 5).reshape(3, 4, 5)), 0)


def read(d):
    acc = EventAccumulator(str(d), size_guidance={"histograms": 0, "images": 0, "tensors": 0})
    acc.Reload()
    tags = acc.Tags()
    out = {"scalars": {t: [(e.step, round(e.value, 6)) for e in acc.Scalars(t)]
                       for t in tags["scalars"]},
           "histograms": {t: [(e.step, e.histogram_value.num, e.histogram_value.min,
                               e.histogram_value.max, round(e.histogram_value.sum, 6),
                               list(e.histogram_value.bucket_limit),
                               list(e.histogram_value.bucket)) for e in acc.Histograms(t)]
                          for t in tags["histograms"]},
           "images": {t: [(e.step, e.width, e.height, e.encoded_image_string[:8])
                          for e in acc.Images(t)] for t in tags["images"]},
           "tensors": {t: [(e.step, e.tensor_proto.string_val) for e in acc.Tensors(t)]
                       for t in tags["tensors"]}}
    return out


def test_events_like_torch(tmp_path):
    write(TorchWriter, torch, tmp_path / "torch")
    write(SummaryWriter, leafgrad, tmp_path / "leafgrad")
    assert read(tmp_path / "leafgrad") == read(tmp_path / "torch")
    subs = sorted(p.split("/")[-1] for p in glob.glob(str(tmp_path / "leafgrad" / "run_*")))
    assert subs == sorted(p.split("/")[-1] for p in glob.glob(str(tmp_path / "torch" / "run_*")))
    for sub in subs:
        assert read(tmp_path / "leafgrad" / sub) == read(tmp_path / "torch" / sub)


def test_unavailable_calls_say_what_to_do(tmp_path):
    with SummaryWriter(log_dir=str(tmp_path)) as w:
        with pytest.raises(NotImplementedError, match="make_dot"):
            w.add_graph(leafgrad.nn.Linear(2, 2), leafgrad.ones(1, 2))
