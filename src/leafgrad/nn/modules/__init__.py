"""``leafgrad.nn.modules``: every layer class, re-exported by ``leafgrad.nn``.

The export list is derived, not kept by hand: each family file of this package (layers
of one family together; a new family gets a new file) names its layers in ``__all__``,
and every name there is exported here. ``tests/nn/test_nn_exports.py`` checks that each
file's ``__all__`` names exactly the Module classes it defines and that each is one
``torch.nn`` has. Private files (``_backward_hooks``) and ``module.py`` (only ``Module``
is public) are not family files.
"""
import importlib as _importlib
import pkgutil as _pkgutil
import sys as _sys

from . import _torch_files
from .module import Module

_classes = {}

__all__ = ["Module"]
for _info in sorted(_pkgutil.iter_modules(__path__), key=lambda i: i.name):
    if _info.name.startswith("_") or _info.name == "module":
        continue
    _family = _importlib.import_module("." + _info.name, __name__)
    globals().update((_n, getattr(_family, _n)) for _n in _family.__all__)
    __all__ += _family.__all__
    _classes.update((_n, _v) for _n, _v in vars(_family).items()
                    if isinstance(_v, type) and _v.__module__ == _family.__name__)
del _info, _family

# PyTorch's file names (nn.modules.batchnorm._BatchNorm, ...): see _torch_files.py.
_torch_files.install(_sys.modules[__name__], _classes)
del _classes
