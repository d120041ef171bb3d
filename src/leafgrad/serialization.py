"""``torch.serialization``: ``save``/``load`` and the allowlist of a weights-only load.

``add_safe_globals([Cls, ...])`` lets ``load(..., weights_only=True)`` rebuild instances of
those classes (or call those functions) from a PyTorch-format file; ``safe_globals([...])``
does the same inside a ``with`` block (for this thread). Entries are objects, or
``(obj, "module.name")`` pairs naming them as the file does, as in PyTorch
(https://pytorch.org/docs/stable/notes/serialization.html#weights-only).
"""
from ._checkpoint import torch_reader as _torch_format
from ._checkpoint.save_load import load, save

__all__ = ["save", "load", "add_safe_globals", "safe_globals", "get_safe_globals",
           "clear_safe_globals", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2


def add_safe_globals(safe_globals):
    """Allow these classes/functions in every later weights-only load (process-wide)."""
    _torch_format._user_globals.update(safe_globals)


def get_safe_globals():
    """The entries added by :func:`add_safe_globals`."""
    return list(_torch_format._user_globals)


def clear_safe_globals():
    """Forget everything :func:`add_safe_globals` added."""
    _torch_format._user_globals.clear()


class safe_globals:
    """``with safe_globals([Cls]):`` -- allow ``Cls`` in weights-only loads inside the block."""

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        local = _torch_format._local
        self._saved = getattr(local, "extra", ())
        local.extra = tuple(self._saved) + tuple(self.safe_globals)

    def __exit__(self, *exc):
        _torch_format._local.extra = self._saved
        return False
