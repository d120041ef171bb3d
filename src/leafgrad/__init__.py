"""leafgrad: reverse-mode automatic differentiation on NumPy with PyTorch's API.

``import leafgrad as torch`` runs ordinary PyTorch autograd, ``nn`` and
``optim`` code on the CPU with NumPy as the only dependency.
"""
__version__ = "0.1.0"

from ._core import malloc as _malloc  # noqa: F401  (keeps freed array memory for reuse: see there)
from ._core import dtype as _dtype
from ._core.dtype import (bool_ as bool, complex64, complex128, float16, float32, float64, int8, int16,
                          int32, int64, uint8, half, double, short, long, cfloat, cdouble,
                          get_default_dtype, set_default_dtype, promote_types, dtype, bfloat16)
from ._core.dtype import float as float  # noqa: F811  (torch.float is float32)
from ._core.dtype import int as int  # noqa: F811  (torch.int is int32)
from ._tensor.tensor import Tensor, Size
from ._api import methods as _methods  # noqa: F401  (binds the Tensor methods)
from ._tensor.creation import (arange, as_tensor, device, empty, empty_like, eye, from_numpy, full,
                               full_like, linspace, logspace, ones, ones_like, scalar_tensor, tensor,
                               tril_indices, triu_indices, zeros, zeros_like)
from ._tensor.creation import torch_range as range  # shadows the builtin, as in torch
from ._tensor.buffers import empty_strided, frombuffer
from . import return_types  # noqa: E402  (torch.return_types.max, ...)
from ._tensor.storage import TypedStorage, UntypedStorage, is_nonzero, is_signed
from ._tensor.windows import (bartlett_window, blackman_window, hamming_window, hann_window,
                              kaiser_window)
from ._tensor.resize import resize_as_  # torch.resize_as_(t, template), as Tensor.resize_as_
from ._random.sampling import (Generator, bernoulli, default_generator, get_rng_state, initial_seed,
                               manual_seed, multinomial, normal, poisson, rand, rand_like, randint,
                               randint_like, randn, randn_like, randperm, seed, set_rng_state)
from ._tensor.tensor_str import set_printoptions
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                 is_inference_mode_enabled, no_grad, set_grad_enabled)
from ._core.errors import (LeafgradError, GraphFreedError, NoGradError, UnusedInputError,
                           NonScalarBackwardError, InplaceLeafError, SavedTensorModifiedError,
                           ShapeError, DtypeError)
from ._api.functions import *  # noqa: F401,F403  (torch.exp, torch.sum, ...)
from ._api.functions import abs, all, any, max, min, pow, round, sum  # noqa: F401  (shadow builtins on purpose)
from . import autograd, linalg, random  # noqa: E402
autograd._load_upper()
from .autograd.anomaly_mode import is_anomaly_enabled, is_anomaly_check_nan_enabled  # noqa: E402
from ._api.interop import asarray, from_dlpack  # noqa: E402  (also binds Tensor.__dlpack__)

from ._api.legacy_constructors import (FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor,  # noqa: E402
                                       ShortTensor, CharTensor, ByteTensor, BoolTensor)
from ._compat.devices import set_default_device, get_default_device  # noqa: E402
from . import __future__  # noqa: E402,F401  (torch.__future__: conversion flags)

# Loaded on first use (PEP 562), so that ``import leafgrad`` stays short: the
# submodules above the ops (nn, optim, utils, serialization, ...) and the names
# taken from them. name -> (module, attribute or None for the module itself).
_LAZY = {name: ("leafgrad." + name, None) for name in (
    "nn", "optim", "utils", "serialization", "accelerator", "amp", "backends", "cuda", "func",
    "functional", "onnx", "profiler", "sparse", "special", "fft", "distributed", "distributions",
    "signal", "testing", "version", "jit", "futures", "_jit_internal", "compiler", "_dynamo",
    "_vmap_internals")}
_LAZY.update({"save": ("leafgrad._checkpoint.save_load", "save"),
              "load": ("leafgrad._checkpoint.save_load", "load"),
              "autocast": ("leafgrad.amp", "autocast"),
              "Future": ("leafgrad.futures", "_Future"),
              "vmap": ("leafgrad.func", "vmap"), "_C": ("leafgrad._C", None),
              "finfo": ("leafgrad._api.finfo", "finfo"), "iinfo": ("leafgrad._api.finfo", "iinfo"),
              "result_type": ("leafgrad._api.promotion", "result_type"),
              "can_cast": ("leafgrad._api.promotion", "can_cast"),
              "compile": ("leafgrad.compiler", "compile")})
_LAZY.update({name: ("leafgrad.sparse", name) for name in ("sparse_coo_tensor", "spmm",
                                                            "sparse_coo")})
_LAZY.update({name: ("leafgrad.functional", name) for name in (
    "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "cartesian_prod", "chain_matmul",
    "unravel_index")})


def __getattr__(name):
    spec = _LAZY.get(name)
    if spec is None:
        raise AttributeError("module 'leafgrad' has no attribute '%s'" % name)
    import importlib
    mod = importlib.import_module(spec[0])
    value = mod if spec[1] is None else getattr(mod, spec[1])
    # the same NumPy-style keyword aliases as the eager functions (see _numpy_compat)
    from ._api import numpy_compat as _numpy_compat
    value = _numpy_compat._compat(value, {})
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


strided = "torch.strided"
# PyTorch's constants (torch/__init__.py: ``from math import e, inf, nan, pi``; newaxis is None)
from math import e, inf, nan, pi  # noqa: E402
newaxis = None
contiguous_format, preserve_format = "contiguous_format", "preserve_format"


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


# torch.use_deterministic_algorithms' flags: remembered and reported as PyTorch does;
# every leafgrad kernel is deterministic already, so they change no result
_DETERMINISTIC = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Remember the flags (leafgrad's CPU kernels are all deterministic).

    Raises:
        TypeError: ``mode`` or ``warn_only`` not a bool (as PyTorch's binding).
    """
    for name, v in (("mode", mode), ("warn_only", warn_only)):
        if v is not True and v is not False:      # (``bool`` here is torch.bool)
            raise TypeError("_set_deterministic_algorithms(): argument '%s' must be bool, not "
                            "%s. Fix: pass True or False" % (name, type(v).__name__))
    _DETERMINISTIC.update(mode=mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled():
    return _DETERMINISTIC["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    return _DETERMINISTIC["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    """0 / "default": off; 1 / "warn": on, warn only; 2 / "error": on.

    Raises:
        RuntimeError: an unknown mode (PyTorch's class).
    """
    names = {"default": 0, "warn": 1, "error": 2}
    if isinstance(debug_mode, str):
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               "`error`, but got %s" % debug_mode)
        debug_mode = names[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError("invalid value of debug_mode, expected 0, 1, or 2, but got %s"
                           % debug_mode)
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _DETERMINISTIC["mode"]:
        return 0
    return 1 if _DETERMINISTIC["warn_only"] else 2


def set_num_threads(n):
    pass


def get_num_threads():
    return 1


def is_floating_point(input):
    return input.is_floating_point()


def is_complex(input):
    """``torch.is_complex(t)``: whether ``t``'s dtype is complex. TypeError for a non-tensor."""
    if not isinstance(input, Tensor):
        from ._core import errors as _errors
        raise _errors.not_tensor("is_complex", "input", 1, input)
    return input.is_complex()

from ._api import numpy_compat as _numpy_compat  # noqa: E402
_numpy_compat.install(__import__("sys").modules[__name__], Tensor)
