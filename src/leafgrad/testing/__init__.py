"""``torch.testing``: :func:`assert_close`, PyTorch's comparison of tensors, numbers and
nested sequences / mappings of them (``_comparison.py``)."""
from ._comparison import assert_close

__all__ = ["assert_close"]
