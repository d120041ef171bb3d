"""torch.distributions.transforms: invertible maps with log |det J| (algorithms of
torch/distributions/transforms.py, PyTorch 2.13).

``Transform`` caches the last (x, y) pair when ``cache_size=1``; ``t.inv`` is the inverse
(``_InverseTransform``, or for a ComposeTransform the reversed composition);
``event_dim`` / ``domain`` / ``codomain`` as PyTorch's. Errors: ValueError for a
cache_size other than 0 / 1, for too few dims on input, and for shape mismatches.
"""
import functools
import operator

import leafgrad as _t

from . import constraints
from .utils import _sum_rightmost, lazy_property

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
           "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
           "Transform", "identity_transform"]


from ._transform import Transform, _InverseTransform  # noqa: F401  (PyTorch's home of both)
# re-exported: torch.distributions.transforms is their public home
from ._elementwise_transforms import (
    AbsTransform, AffineTransform, CorrCholeskyTransform, CumulativeDistributionTransform,
    ExpTransform, LowerCholeskyTransform, PositiveDefiniteTransform, PowerTransform,
    SigmoidTransform, SoftmaxTransform, SoftplusTransform, StickBreakingTransform,
    TanhTransform, _clipped_sigmoid)
from ._joined_transforms import CatTransform, StackTransform


def _compose_event_dim(parts, fwd):
    """The event dim a composition needs at its domain (fwd=False) or codomain."""
    event_dim = (parts[0].domain if fwd else parts[-1].codomain).event_dim
    for part in (parts if fwd else reversed(parts)):
        a, b = (part.codomain, part.domain) if fwd else (part.domain, part.codomain)
        event_dim = max(event_dim + a.event_dim - b.event_dim, a.event_dim)
    return event_dim


class ComposeTransform(Transform):
    """The composition parts[-1] o ... o parts[0] (``identity_transform`` when empty)."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = _compose_event_dim(self.parts, fwd=False)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = _compose_event_dim(self.parts, fwd=True)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return _t.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(a, b),
                                        event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return (self.__class__.__name__ + "(\n    "
                + ",\n    ".join([p.__repr__() for p in self.parts]) + "\n)")


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with its rightmost ``reinterpreted_batch_ndims`` batch dims taken
    as event dims (their log |det J| summed).

    Raises:
        ValueError: an input with fewer dims than the event dim.
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (f"{self.__class__.__name__}({repr(self.base_transform)}, "
                f"{self.reinterpreted_batch_ndims})")

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


def _check_tail(shape, tail):
    if len(shape) < len(tail):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(tail)
    if shape[cut:] != tail:
        raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {tail}")
    return shape[:cut]


class ReshapeTransform(Transform):
    """Reshape the rightmost dims from ``in_shape`` to ``out_shape`` (log |det J| = 0).

    Raises:
        ValueError: shapes with different numbers of elements; inputs whose tail mismatches.
    """
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = _t.Size(in_shape)
        self.out_shape = _t.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        return x.reshape(x.shape[:x.dim() - len(self.in_shape)] + self.out_shape)

    def _inverse(self, y):
        return y.reshape(y.shape[:y.dim() - len(self.out_shape)] + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(x.shape[:x.dim() - len(self.in_shape)])

    def forward_shape(self, shape):
        return _check_tail(shape, self.in_shape) + self.out_shape

    def inverse_shape(self, shape):
        return _check_tail(shape, self.out_shape) + self.in_shape
