"""``torch.nn.utils.parametrizations``: ``weight_norm`` and ``spectral_norm`` as
parametrizations (PyTorch's ``torch/nn/utils/parametrizations.py``).

* weight_norm (Salimans & Kingma, 2016, arXiv:1602.07868): w = g · v / ||v||, the norm
  taken over every dim but ``dim`` (``dim=None``: over all); stored as ``original0`` (g)
  and ``original1`` (v).
* spectral_norm (Miyato et al., 2018, arXiv:1802.05957): w / σ(w), σ estimated by power
  iteration on the weight reshaped to a matrix (``dim`` first), with buffers ``_u`` and
  ``_v`` drawn from N(0, 1), normalised, then 15 iterations at registration and
  ``n_power_iterations`` per forward in training mode.

``orthogonal`` is not available yet (it needs ``matrix_exp``/``householder_product``).
"""
from ... import _functions as _F
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


def _norm_except_dim(v, dim):
    """||v||_2 over every dim except ``dim`` (shape: 1 everywhere but ``dim``); over all
    dims (a 0-d tensor) when ``dim`` is -1."""
    if dim == -1:
        return v.norm()
    dims = [d for d in range(v.dim()) if d != dim]
    return v.pow(2).sum(dims, keepdim=True).sqrt() if dims else v.abs()


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as g · v / ||v|| (see the module docstring).

    Returns ``module``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of [%d, %d] but "
                             "got %d)" % (-ndim, ndim - 1, dim))
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             "n_power_iterations=%d" % n_power_iterations)
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._matrix(weight)
            h, w = mat.shape
            u = mat.new_empty(h).normal_(0, 1)
            v = mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(mat, 15)

    def _matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, mat, n):
        with no_grad():
            for _ in range(n):
                self._u.copy_(F.normalize(_F.mv(mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(_F.mv(mat.T, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = _F.vdot(u, _F.mv(mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Reparametrize ``module.<name>`` as w / σ(w) (see the module docstring). ``dim``
    defaults to 1 for transposed convolutions, else 0. Returns ``module``.

    Raises:
        ValueError: no such parameter, or ``n_power_iterations`` <= 0.
        IndexError: ``dim`` out of range.
    """
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "ndim"):
        raise ValueError("Module '%s' has no parameter or buffer with name '%s'" % (module, name))
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Not available yet: raises NotImplementedError."""
    raise NotImplementedError(
        "parametrizations.orthogonal is not available in leafgrad yet (it needs matrix_exp / "
        "householder_product). Fix: orthogonalise by hand, e.g. with torch.nn.init.orthogonal_ "
        "at initialisation, or move this model to PyTorch (leafgrad.bridge.to_torch).")
