"""``torch.utils.tensorboard``: ``SummaryWriter`` writing TensorBoard event files.

Needs the ``tensorboard`` package, as PyTorch's does (without it, importing this module
raises ModuleNotFoundError, as PyTorch's). The event files are the ones PyTorch writes
(same summaries: scalars, histograms with TensorFlow's default buckets, text, images,
matplotlib figures), through tensorboard's own ``EventFileWriter``.
"""
try:
    import tensorboard  # noqa: F401
except ImportError:
    raise ModuleNotFoundError(
        "No module named 'tensorboard': SummaryWriter writes TensorBoard's event files with "
        "the tensorboard package, as PyTorch's does. Fix: pip install tensorboard",
        name="tensorboard") from None

from .writer import SummaryWriter  # noqa: E402

__all__ = ["SummaryWriter"]
