"""The older hook-based ``torch.nn.utils.weight_norm`` / ``spectral_norm`` (deprecated in
PyTorch for the parametrizations, still common in published models): parameters
``<name>_g``/``<name>_v`` (weight norm) or ``<name>_orig`` with buffers ``<name>_u``/
``<name>_v`` (spectral norm), and a forward pre-hook that recomputes ``module.<name>``.
Formulas: see ``parametrizations``; the power iteration updates v, then u, as PyTorch's
``torch/nn/utils/spectral_norm.py``."""

from ..._api import functions as _F
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter
from .parametrizations import _norm_except_dim
from ..._core import errors as _errors

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]


class _WeightNormHook:
    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def _hooks(module, kind):
    return [(k, h) for k, h in module._forward_pre_hooks.items() if isinstance(h, kind)]


def weight_norm(module, name="weight", dim=0):
    """w = g · v / ||v|| with parameters ``<name>_g`` and ``<name>_v`` (deprecated in PyTorch
    for ``parametrizations.weight_norm``: warns FutureWarning). Returns ``module``.

    Raises:
        RuntimeError: a second weight_norm on the same parameter.
    """
    _errors.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                 "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning)
    for _, h in _hooks(module, _WeightNormHook):
        if h.name == name:
            raise RuntimeError("Cannot register two weight_norm hooks on the same parameter %s"
                               % name)
    fn = _WeightNormHook(name, -1 if dim is None else dim)
    weight = getattr(module, name)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, fn.dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, fn.compute_weight(module))
    module.register_forward_pre_hook(fn)
    return module


def _remove(module, name, kind, what, compute, params=(), buffers=()):
    """Put one parameter ``name`` back, holding ``compute(hook)``; drop the hook and the
    parameters/buffers it used."""
    for k, h in _hooks(module, kind):
        if h.name == name:
            with no_grad():
                weight = compute(h)
            delattr(module, name)
            for n in params:
                del module._parameters[name + n]
            for n in buffers:
                del module._buffers[name + n]
            module.register_parameter(name, Parameter(weight.detach()))
            del module._forward_pre_hooks[k]
            return module
    raise ValueError("%s of '%s' not found in %s" % (what, name, module))


def remove_weight_norm(module, name="weight"):
    """Back to one parameter ``<name>`` holding the current g · v / ||v||.

    Raises:
        ValueError: no weight_norm on ``name``."""
    return _remove(module, name, _WeightNormHook, "weight_norm",
                   lambda h: h.compute_weight(module), params=("_g", "_v"))


class _SpectralNormHook:
    def __init__(self, name, n_power_iterations, dim, eps):
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(_F.mv(mat.T, u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(_F.mv(mat, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = _F.dot(u, _F.mv(mat, v))
        return weight / sigma

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """w / σ(w) with parameter ``<name>_orig`` and buffers ``<name>_u``, ``<name>_v`` drawn
    from N(0, 1) and normalised. ``dim`` defaults to 1 for transposed convolutions, else 0.
    Returns ``module``.

    Raises:
        RuntimeError: a second spectral_norm on the same parameter.
        ValueError: ``n_power_iterations`` <= 0.
    """
    for _, h in _hooks(module, _SpectralNormHook):
        if h.name == name:
            raise RuntimeError("Cannot register two spectral_norm hooks on the same parameter %s"
                               % name)
    if n_power_iterations <= 0:
        raise ValueError("Expected n_power_iterations to be positive, but got "
                         "n_power_iterations=%d" % n_power_iterations)
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    fn = _SpectralNormHook(name, n_power_iterations, dim, eps)
    weight = module._parameters[name]
    with no_grad():
        mat = fn.matrix(weight)
        h, w = mat.shape
        u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=eps)
        v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=eps)
    del module._parameters[name]
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(fn)
    return module


def remove_spectral_norm(module, name="weight"):
    """Back to one parameter ``<name>`` holding the current w / σ(w).

    Raises:
        ValueError: no spectral_norm on ``name``."""
    return _remove(module, name, _SpectralNormHook, "spectral_norm",
                   lambda h: h.compute_weight(module, False), params=("_orig",),
                   buffers=("_u", "_v"))
