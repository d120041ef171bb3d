"""CatTransform and StackTransform of torch.distributions.transforms: one transform per slice
of a dim (algorithms of torch/distributions/transforms.py, PyTorch 2.13)."""
import leafgrad as _t

from . import constraints
from ._transform import Transform
from .utils import _sum_rightmost, lazy_property

__all__ = ["CatTransform", "StackTransform"]


def _check_dim(z, dim, size, what, name):
    if not (-z.dim() <= dim < z.dim()):
        raise AssertionError(f"dim {dim} out of range for {name} with {z.dim()} dimensions")
    if z.size(dim) != size:
        raise AssertionError(f"{name[0]}.size({dim}) = {z.size(dim)} must equal {what} {size}")


class CatTransform(Transform):
    """``tseq[i]`` applied to consecutive slices of ``dim`` of lengths ``lengths`` (1 each by
    default), results concatenated.

    Raises:
        AssertionError (as PyTorch): a member that is not a Transform; lengths / transforms of
            different counts, a dim out of range, a dim size not sum(lengths).
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list([1] * len(self.transforms) if lengths is None else lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                             f"({len(self.transforms)})")
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _map(self, z, fn, name):
        _check_dim(z, self.dim, self.length, "length", name)
        out, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            out.append(fn(trans, z.narrow(self.dim, start, length)))
            start = start + length
        return _t.cat(out, dim=self.dim)

    def _call(self, x):
        return self._map(x, lambda t, s: t(s), "tensor")

    def _inverse(self, y):
        return self._map(y, lambda t, s: t.inv(s), "tensor")

    def log_abs_det_jacobian(self, x, y):
        _check_dim(x, self.dim, self.length, "length", "x")
        _check_dim(y, self.dim, self.length, "length", "y")
        logdetjacs, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            ldj = trans.log_abs_det_jacobian(x.narrow(self.dim, start, length),
                                             y.narrow(self.dim, start, length))
            if trans.event_dim < self.event_dim:
                ldj = _sum_rightmost(ldj, self.event_dim - trans.event_dim)
            logdetjacs.append(ldj)
            start = start + length
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim = dim + self.event_dim
        return _t.cat(logdetjacs, dim=dim) if dim < 0 else sum(logdetjacs)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """``tseq[i]`` applied to ``z.select(dim, i)``, results stacked along ``dim``.

    Raises:
        AssertionError (as PyTorch): a member that is not a Transform; a dim out of range or a
            dim size other than len(tseq).
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        _check_dim(x, self.dim, len(self.transforms), "len(transforms)", "x")
        return _t.stack([t(s) for s, t in zip(self._slice(x), self.transforms)], dim=self.dim)

    def _inverse(self, y):
        _check_dim(y, self.dim, len(self.transforms), "len(transforms)", "y")
        return _t.stack([t.inv(s) for s, t in zip(self._slice(y), self.transforms)],
                        dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_dim(x, self.dim, len(self.transforms), "len(transforms)", "x")
        _check_dim(y, self.dim, len(self.transforms), "len(transforms)", "y")
        return _t.stack([t.log_abs_det_jacobian(a, b) for a, b, t in
                         zip(self._slice(x), self._slice(y), self.transforms)], dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
