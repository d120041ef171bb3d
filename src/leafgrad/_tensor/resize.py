"""``Tensor.resize_`` and ``Tensor.resize_as_`` (PyTorch's ``resize_`` on CPU tensors).

PyTorch keeps the storage when the new shape fits in it (the tensor becomes a C-ordered
view of the first elements, from its storage offset) and grows the storage otherwise
(the old bytes kept, the new ones uninitialised: zeros here). The tensor's version is
bumped once (not at all when the shape is already the asked one). A tensor that requires grad cannot be resized.
"""
import numpy as np

from .tensor import Size, Tensor

__all__ = ["resize_", "resize_as_"]


def resize_(self, *sizes, memory_format=None):
    """Resize ``self`` in place to ``sizes`` (ints or one sequence) and return it.

    Raises:
        RuntimeError: when ``self`` requires grad (PyTorch's "cannot resize variables that
            require grad"), or for a negative size.
    """
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        sizes = tuple(sizes[0])
    shape = tuple(int(s) for s in sizes)
    if any(s < 0 for s in shape):
        raise RuntimeError("Trying to create tensor with negative dimension %d: %s"
                           % (min(shape), list(shape)))
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    old = self._data
    if shape == old.shape:          # PyTorch returns at once: no version bump
        return self
    n = int(np.prod(shape, dtype=np.int64))
    flat = old.reshape(-1) if old.flags.c_contiguous else None
    if flat is not None and n <= flat.size:
        new = flat[:n].reshape(shape)       # the same memory: views still see it
    else:
        new = np.zeros(n, old.dtype)
        src = np.ascontiguousarray(old).reshape(-1)
        new[:min(n, src.size)] = src[:n]
        new = new.reshape(shape)
    self._data = new
    self._bump_version()
    return self


def resize_as_(self, the_template, memory_format=None):
    """``self.resize_(the_template.shape)``."""
    if not isinstance(the_template, Tensor):
        raise TypeError("resize_as_(): argument 'the_template' (position 1) must be Tensor, "
                        "not %s" % type(the_template).__name__)
    return resize_(self, Size(the_template.shape))


METHODS = {"resize_": resize_, "resize_as_": resize_as_}
