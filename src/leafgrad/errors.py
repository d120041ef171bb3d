"""``leafgrad.errors``: the exception classes leafgrad raises for autograd
mistakes. Each subclasses the built-in exception PyTorch raises for the same
mistake (``except RuntimeError`` keeps working) and tracebacks name them here,
e.g. ``leafgrad.errors.GraphFreedError: Trying to backward through the graph a
second time ... Fix: ...``. ``docs/errors.md`` lists them with a script that
triggers each one."""
from ._core.errors import (LeafgradError, GraphFreedError, NoGradError, UnusedInputError,  # noqa: F401
                           NonScalarBackwardError, InplaceLeafError, SavedTensorModifiedError,
                           ShapeError, DtypeError)

__all__ = ["LeafgradError", "GraphFreedError", "NoGradError", "UnusedInputError",
           "NonScalarBackwardError", "InplaceLeafError", "SavedTensorModifiedError",
           "ShapeError", "DtypeError"]
