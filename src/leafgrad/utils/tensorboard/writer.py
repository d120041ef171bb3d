"""``SummaryWriter``: scalars, histograms, text, images and figures as TensorBoard events.

Summaries are built as PyTorch's ``torch/utils/tensorboard/summary.py`` builds them
(``simple_value`` scalars; histograms over TensorFlow's default bucket edges, 1e-12 to
1e20 growing by 1.1, with empty outer buckets trimmed; text as a string tensor for the
text plugin; images as PNG). ``add_graph``, ``add_embedding`` and ``add_hparams`` are not
available (they need PyTorch's tracer and TensorBoard's plugin protos).
"""
import io
import os
import socket
import struct
import time
import zlib
from datetime import datetime

import numpy as np
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.summary.writer.event_file_writer import EventFileWriter

__all__ = ["SummaryWriter"]


def _np(x):
    """A NumPy array from a tensor, an array, a number or a list."""
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        return x.detach().numpy()
    return np.asarray(x)


def _default_bins():
    v, pos = 1e-12, []
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    return [-b for b in reversed(pos)] + [0] + pos


_BINS = None


def _histogram(values, bins, max_bins=None):
    global _BINS
    values = _np(values).astype(float).reshape(-1)
    if isinstance(bins, str) and bins == "tensorflow":
        if _BINS is None:
            _BINS = _default_bins()
        bins = _BINS
    counts, limits = np.histogram(values, bins=bins)
    num = counts.sum() if len(counts) else 0
    if max_bins is not None and len(counts) > max_bins:
        sub = len(counts) // max_bins + (len(counts) % max_bins != 0)
        pad = (-len(counts)) % sub
        counts = np.pad(counts, (0, pad)).reshape(-1, sub).sum(axis=-1)
        limits = np.concatenate([limits[:-1:sub], limits[-1:]])
    cum = np.cumsum(np.greater(counts, 0))
    start, end = np.searchsorted(cum, [0, cum[-1] - 1], side="right")
    start, end = int(start), int(end) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    if counts.size == 0 or limits.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    sq = float(values.dot(values))
    return HistogramProto(min=float(values.min()), max=float(values.max()), num=int(num),
                          sum=float(values.sum()), sum_squares=sq,
                          bucket_limit=limits.tolist(), bucket=counts.tolist())


def _png(img):
    """PNG bytes of an (H, W, C) uint8 image (C = 1, 3 or 4), written with zlib."""
    h, w, c = img.shape
    color = {1: 0, 3: 2, 4: 6}[c]
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def _hwc(img, dataformats):
    img = _np(img)
    fmt = dataformats.upper()
    if len(fmt) != img.ndim:
        raise ValueError("size of input tensor and input format are different. tensor shape: "
                         "%s, input_format: %s" % (img.shape, dataformats))
    if fmt == "HW":
        return img[:, :, None]
    if fmt == "CHW":
        return np.transpose(img, (1, 2, 0))
    if fmt == "HWC":
        return img
    raise ValueError("dataformats %r: use 'CHW', 'HWC' or 'HW'" % dataformats)


def _image_summary(tag, img, dataformats):
    img = _hwc(img, dataformats)
    if img.dtype != np.uint8:
        scale = 1 if img.dtype.kind in "iu" and img.max() > 1 else 255
        img = np.clip(img * scale, 0, 255).astype(np.uint8)
    if img.shape[2] == 2:
        raise ValueError("an image has 1, 3 or 4 channels (got 2)")
    h, w, c = img.shape
    return Summary(value=[Summary.Value(tag=tag, image=Summary.Image(
        height=h, width=w, colorspace=c, encoded_image_string=_png(np.ascontiguousarray(img))))])


class SummaryWriter:
    """``SummaryWriter(log_dir=None, comment='', purge_step=None, max_queue=10,
    flush_secs=120, filename_suffix='')``: the default ``log_dir`` is
    ``runs/<Mon>DD_HH-MM-SS_<host><comment>``, as PyTorch's."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            now = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", now + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self._writer = None
        self._scalar_writers = {}
        self._open()
        if purge_step is not None:
            self._write(Event(step=purge_step, file_version="brain.Event:2"))
            self._write(Event(step=purge_step, session_log=SessionLog(status=SessionLog.START)))

    def _open(self):
        if self._writer is None:
            self._writer = EventFileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                           self.filename_suffix)
        return self._writer

    def get_logdir(self):
        return self.log_dir

    def _write(self, event, writer=None):
        (writer or self._open()).add_event(event)

    def _summary(self, summary, global_step, walltime, writer=None):
        ev = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            ev.step = int(global_step)
        self._write(ev, writer)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """One scalar (a number or a one-element tensor) at ``global_step``."""
        v = float(_np(scalar_value).reshape(-1)[0]) if not isinstance(scalar_value, (int, float)) \
            else float(scalar_value)
        if new_style:
            dtype = "DT_DOUBLE" if double_precision else "DT_FLOAT"
            tensor = TensorProto(dtype=dtype, tensor_shape=TensorShapeProto(),
                                 **({"double_val": [v]} if double_precision else
                                    {"float_val": [v]}))
            summary = Summary(value=[Summary.Value(
                tag=tag, tensor=tensor, metadata=SummaryMetadata(
                    plugin_data=SummaryMetadata.PluginData(plugin_name="scalars")))])
        else:
            summary = Summary(value=[Summary.Value(tag=tag, simple_value=v)])
        self._summary(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several scalars in one chart: each tag goes to ``log_dir/<main_tag>_<tag>``."""
        walltime = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(self.log_dir, main_tag.replace("/", "_") + "_" + tag)
            w = self._scalar_writers.get(path)
            if w is None:
                w = self._scalar_writers[path] = EventFileWriter(path, self.max_queue,
                                                                 self.flush_secs,
                                                                 self.filename_suffix)
            v = float(_np(value).reshape(-1)[0])
            self._summary(Summary(value=[Summary.Value(tag=main_tag, simple_value=v)]),
                          global_step, walltime, w)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        """A histogram of ``values`` (bins: 'tensorflow', a NumPy bins argument)."""
        summary = Summary(value=[Summary.Value(tag=tag, histo=_histogram(values, bins,
                                                                         max_bins))])
        self._summary(summary, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Markdown text, shown by TensorBoard's text plugin."""
        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text",
                                                                      content=b""))
        tensor = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
                             tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
        summary = Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta,
                                               tensor=tensor)])
        self._summary(summary, global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """One image: float values in [0, 1] (scaled to 0..255) or uint8."""
        self._summary(_image_summary(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images tiled into one grid (8 per row)."""
        imgs = _np(img_tensor)
        fmt = dataformats.upper()
        if fmt == "NHWC":
            imgs = np.transpose(imgs, (0, 3, 1, 2))
        elif fmt != "NCHW":
            raise ValueError("dataformats %r: use 'NCHW' or 'NHWC'" % dataformats)
        n, c, h, w = imgs.shape
        cols = min(n, 8)
        rows = -(-n // cols)
        grid = np.zeros((c, rows * h, cols * w), dtype=imgs.dtype)
        for i in range(n):
            r, q = divmod(i, cols)
            grid[:, r * h:(r + 1) * h, q * w:(q + 1) * w] = imgs[i]
        self.add_image(tag, grid, global_step, walltime, "CHW")

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them), rendered to PNG."""
        figs = figure if isinstance(figure, list) else [figure]
        for i, fig in enumerate(figs):
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
            w, h = fig.canvas.get_width_height()
            name = tag if len(figs) == 1 else "%s/%d" % (tag, i)
            self._summary(Summary(value=[Summary.Value(tag=name, image=Summary.Image(
                height=h, width=w, colorspace=4, encoded_image_string=buf.getvalue()))]),
                global_step, walltime)
            if close:
                import matplotlib.pyplot as plt
                plt.close(fig)

    def _unavailable(self, what, fix):
        raise NotImplementedError("SummaryWriter.%s is not available in leafgrad. Fix: %s"
                                  % (what, fix))

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Not available (needs PyTorch's tracer): raises NotImplementedError with the fix."""
        self._unavailable("add_graph", "draw the graph with leafgrad.utils.viz.make_dot(loss, "
                          "params=dict(model.named_parameters())) instead")

    def add_embedding(self, *args, **kwargs):
        self._unavailable("add_embedding", "log the vectors with add_histogram or save them "
                          "with torch.save")

    def add_hparams(self, *args, **kwargs):
        self._unavailable("add_hparams", "log each metric with add_scalar and the "
                          "hyperparameters with add_text")

    def flush(self):
        for w in [self._writer] + list(self._scalar_writers.values()):
            if w is not None:
                w.flush()

    def close(self):
        for w in [self._writer] + list(self._scalar_writers.values()):
            if w is not None:
                w.flush()
                w.close()
        self._writer = None
        self._scalar_writers = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
