"""``torch.nn.utils.parametrizations``: ``weight_norm`` and ``spectral_norm`` as
parametrizations (PyTorch's ``torch/nn/utils/parametrizations.py``).

* weight_norm (Salimans & Kingma, 2016, arXiv:1602.07868): w = g · v / ||v||, the norm
  taken over every dim but ``dim`` (``dim=None``: over all); stored as ``original0`` (g)
  and ``original1`` (v).
* spectral_norm (Miyato et al., 2018, arXiv:1802.05957): w / σ(w), σ estimated by power
  iteration on the weight reshaped to a matrix (``dim`` first), with buffers ``_u`` and
  ``_v`` drawn from N(0, 1), normalised, then 15 iterations at registration and
  ``n_power_iterations`` per forward in training mode.

* orthogonal: Q = exp(A), the Cayley map, or Householder reflectors (PyTorch's
  ``_Orthogonal``, with the dynamic trivialization of Lezcano-Casado 2019,
  arXiv:1909.09501).
"""
import numpy as _np

from ..._tensor import creation as _C
from ..._api import functions as _F
from ... import linalg as _linalg
from ...ops.linalg import qr as _linalg_qr
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


def _is_orthogonal(Q):
    n, k = Q.shape[-2:]
    eps = 10.0 * n * _np.finfo(Q._data.dtype).eps
    return bool(_F.allclose(Q.mT @ Q, _C.eye(k, dtype=Q.dtype), atol=eps))


def _make_orthogonal(A):
    """The Q of A = Q R with diag(R) >= 0 (A tall), through geqrf."""
    X, tau = _linalg_qr.geqrf(A)
    Q = _linalg_qr.householder_product(X, tau)
    return Q * _F.sign(X.diagonal(0, -2, -1)).unsqueeze(-2)     # sgn: real here


_MAPS = ("matrix_exp", "cayley", "householder")


class _Orthogonal(Module):
    """The orthogonal map of a matrix (or batch): Q = exp(A), the Cayley map of
    A = tril(X) - tril(X)ᵀ, or a product of Householder reflectors from tril(X, -1)
    (times ``base`` with the dynamic trivialization), as PyTorch's ``_Orthogonal``."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2:]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = _F.cat([X, _C.zeros(tuple(X.shape[:-1]) + (n - k,), dtype=X.dtype)], -1)
            A = X - X.mT
            if self.orthogonal_map == "matrix_exp":
                Q = _linalg.matrix_exp(A)
            else:
                Id = _C.eye(n, dtype=A.dtype)
                Q = _linalg.solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            Q = _linalg_qr.householder_product(A, tau)
            Q = Q * X.diagonal(0, -2, -1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with no_grad():
            if tuple(Q.shape) != tuple(self.shape):
                raise ValueError("Expected a matrix or batch of matrices of shape %s. Got a "
                                 "tensor of shape %s." % (self.shape, Q.shape))
            Q_init = Q
            n, k = Q.shape[-2:]
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in ("cayley", "matrix_exp"):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley "
                        "parametrizations when use_trivialization=False.")
                A, tau = _linalg_qr.geqrf(Q)
                d = A.diagonal(0, -2, -1)
                d.copy_(_F.where(tau == 0.0, -_F.sign(d), _F.sign(d)))
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                from ..._random.sampling import randn
                N = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
                Q = _make_orthogonal(_F.cat([Q, N], -1))
            self.base = Q
            neg_id = _C.zeros_like(Q_init)
            neg_id.diagonal(0, -2, -1).fill_(-1.0)
            return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Make ``module.<name>`` (a matrix or batch, (*, m, n)) orthogonal: orthonormal columns
    when m >= n, rows otherwise, through ``orthogonal_map`` ("matrix_exp" (default for
    square), "cayley", or "householder" (default otherwise)), with PyTorch's dynamic
    trivialization (a ``base`` buffer) unless ``use_trivialization=False``. The initial
    value is the tensor itself when orthogonal, else the Q of its QR (diag(R) >= 0), as
    PyTorch. Returns ``module``.

    Raises:
        ValueError: no such tensor, fewer than 2 dims, an unknown ``orthogonal_map``.
    """
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "ndim"):
        raise ValueError("Module '%s' has no parameter or buffer with name '%s'" % (module, name))
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of %d dimensions."
                         % weight.ndim)
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         "Got: %s" % orthogonal_map)
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
