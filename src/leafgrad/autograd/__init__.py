"""``leafgrad.autograd``: ``backward``, ``grad``, grad modes, custom ``Function``.

See https://pytorch.org/docs/stable/autograd.html for the semantics
followed here.

Layers: ``grad_mode``, ``anomaly_mode``, ``graph`` and ``engine`` sit below
the Tensor (``leafgrad._tensor.tensor`` imports them); ``_api`` (``backward``,
``grad``), ``function``, ``functional`` and ``gradcheck`` sit above it. This
package only imports the lower ones eagerly and loads the upper ones on
first use (PEP 562 ``__getattr__``), so importing ``autograd.grad_mode`` from
``_tensor`` does not import ``_tensor`` back.
"""
import importlib

from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .graph import Node
from . import graph
from .anomaly_mode import (detect_anomaly, set_detect_anomaly, is_anomaly_enabled,
                           is_anomaly_check_nan_enabled)


__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled", "Function", "once_differentiable",
           "functional", "graph", "Node", "detect_anomaly", "set_detect_anomaly",
           "gradcheck", "gradgradcheck", "Variable", "forward_ad"]

# name -> the upper-layer submodule that defines it (None: the submodule itself)
_LAZY = {"backward": "_api", "grad": "_api", "Variable": "_api",
         "Function": "function", "once_differentiable": "function",
         "gradcheck": "gradcheck", "gradgradcheck": "gradcheck",
         "functional": None, "function": None, "forward_ad": None, "profiler": None}
# not bound by _load_upper: loaded when first used
_ON_USE = ("profiler",)


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    sub = _LAZY[name]
    mod = importlib.import_module("." + (sub or name), __name__)
    value = mod if sub is None else getattr(mod, name)
    globals()[name] = value
    return value


def _load_upper():
    """Bind every upper-layer name now (leafgrad/__init__ calls this once the
    Tensor exists, so ``autograd.gradcheck`` is the function, not its module)."""
    for name in _LAZY:
        if name not in _ON_USE:
            __getattr__(name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
