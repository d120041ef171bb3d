"""``leafgrad.nn.modules``: every layer class, re-exported by ``leafgrad.nn``.

The export list is derived, not kept by hand: each family file of this package (PyTorch's
files; see below) names its layers in ``__all__``,
and every name there is exported here. ``tests/nn/test_nn_exports.py`` checks that each
file's ``__all__`` names exactly the Module classes it defines and that each is one
``torch.nn`` has. Private files (``_backward_hooks``) and ``module.py`` (only ``Module``
is public) are not family files. The files are PyTorch's, file for file: each class is in
the file ``torch/nn/modules/`` defines it in (``nn.modules.batchnorm._BatchNorm``,
``nn.modules.activation.MultiheadAttention``), which ``tests/nn/test_nn_torch_files.py``
checks.
"""
import importlib as _importlib
import pkgutil as _pkgutil

from .module import Module

__all__ = ["Module"]
for _info in sorted(_pkgutil.iter_modules(__path__), key=lambda i: i.name):
    if _info.name.startswith("_") or _info.name == "module":
        continue
    _family = _importlib.import_module("." + _info.name, __name__)
    globals().update((_n, getattr(_family, _n)) for _n in _family.__all__)
    __all__ += _family.__all__
del _info, _family
