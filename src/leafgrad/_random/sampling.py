"""Random tensors and in-place random fills, drawing PyTorch 2.13's CPU streams.

``torch.rand``/``randn``/``randint``/``randperm``/``normal``/``bernoulli``/``multinomial``/
``poisson`` (and ``*_like``), the in-place ``Tensor.uniform_``/``normal_``/``random_``/
``bernoulli_``/``exponential_``/``geometric_``/``log_normal_``/``cauchy_`` and
``Tensor.bernoulli``/``multinomial``. Each kernel and its order of draws follows PyTorch
(``aten/src/ATen/native/Distributions.cpp``, ``native/cpu/DistributionTemplates.h``,
``native/cpu/MultinomialKernel.cpp``, ``TensorFactories.cpp``); see ``_random`` for the
transforms and their precision. Outputs are filled in memory order, as PyTorch's
TensorIterator does. Every check runs before the first draw: a call that raises leaves
the generator where it was.
"""
import math

import numpy as np

from .._tensor.factory_out import takes_out

from .._core import dtype as _dtype
from . import generator as R
from .._tensor.meta import MetaArray
from .generator import Generator, default_generator, gen as _gen
from .._tensor.tensor import Tensor
from ..autograd.grad_mode import mode
from ..ops._dispatch import record as _record
from ..ops._registry import no_derivative as _no_derivative, node as _node

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "rand", "rand_like", "randn", "randn_like",
           "randint", "randint_like", "randperm", "normal", "bernoulli", "multinomial",
           "poisson"]

_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
          "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def manual_seed(seed):
    """Seed the default generator (PyTorch's stream for the same seed); returns it.

    Raises:
        ValueError: seed outside [-2**63, 2**64 - 1].
    """
    return default_generator.manual_seed(int(seed))


def seed():
    """Seed the default generator from OS entropy; returns the seed."""
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state (uint8 tensor, PyTorch's 5056-byte layout)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore ``get_rng_state()``'s state. Raises TypeError/RuntimeError as
    ``Generator.set_state``."""
    default_generator.set_state(new_state)


# ------------------------------------------------------------------ helpers
def _creation():
    from .._tensor import creation as C
    return C


def _float_dtype(dtype, what, complex_ok=False):
    d = _dtype.to_dtype(dtype) or _dtype.get_default_dtype()
    if not (d.is_floating_point or (complex_ok and d.is_complex)):
        raise NotImplementedError('"%s" not implemented for \'%s\'. Fix: pass a floating dtype '
                           "(torch.float32 or torch.float64)" % (what, _NAMES.get(d.name, d.name)))
    return d


def _new(shape, dtype, requires_grad, values):
    C = _creation()
    return C._finish(values.reshape(shape), requires_grad)


def _numel(shape):
    return int(np.prod(shape, dtype=np.int64))


def _inplace(self, name, values):
    """Write ``values`` (flat, memory order) into ``self``, bump its version; ``values``
    None: a meta tensor (nothing drawn, as PyTorch's meta kernels: the stream is left as
    it is)."""
    if mode.enabled:
        from ..ops.inplace.arithmetic import _check_leaf
        _check_leaf(self, name)
    if values is not None:
        R.fill(self._data, values)
    self._bump_version()
    return self


def _meta_fill(self, name):
    return _inplace(self, name, None)


def _contig(arr):
    return arr.flags.c_contiguous


# ------------------------------------------------------------------ factories
@takes_out("rand")
def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None,
         layout=None, pin_memory=False):
    """Uniform [0, 1) samples, PyTorch's stream (float32: 24 random bits, float64: 53).

    Raises:
        RuntimeError: an integer dtype.
    """
    C = _creation()
    meta = C._on_meta(device)
    shape = C._size(size)
    d = _float_dtype(dtype, "check_uniform_bounds", complex_ok=True)
    if meta:        # no values: nothing drawn (the stream is left as it is, as PyTorch)
        return C._meta_new(shape, d.np, requires_grad)
    g = _gen(generator)
    if d.is_complex:        # PyTorch fills view_as_real(t): real, imaginary, real, ...
        r = d.to_real()
        return _new(shape, d, requires_grad,
                    R.uniform(g, 2 * _numel(shape), r.np, 0.0, 1.0).view(d.np))
    return _new(shape, d, requires_grad, R.uniform(g, _numel(shape), d.np, 0.0, 1.0))


@takes_out("randn")
def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None,
          layout=None, pin_memory=False):
    """Standard normal samples, PyTorch's stream (16-wide Box-Muller from 16 elements)."""
    C = _creation()
    meta = C._on_meta(device)
    shape = C._size(size)
    d = _float_dtype(dtype, "normal_kernel_cpu", complex_ok=True)
    if meta:
        return C._meta_new(shape, d.np, requires_grad)
    if d.is_complex:
        # PyTorch: normal_(view_as_real(t), 0, 1/sqrt(2)), so E|z|^2 = 1 (normal_impl_)
        vals = R.normal(_gen(generator), tuple(shape) + (2,), d.to_real().np,
                        0.0, 1.0 / math.sqrt(2.0))
        return _new(shape, d, requires_grad, vals.view(d.np))
    return _new(shape, d, requires_grad, R.normal(_gen(generator), shape, d.np))


def _like_device(input, device):
    # the *_like factories follow the input's device (a meta input gives a meta result)
    if device is None and input._data.__class__ is MetaArray:
        return "meta"
    return device


def _like_dtype(input, dtype):
    return _dtype.to_dtype(dtype) or input.dtype


def _in_layout(draw, input, memory_format):
    """``draw(shape)`` for a *_like factory: PyTorch's result keeps the input's layout
    (preserve_format) and is filled in memory order, so a transposed input gets the numbers
    of a contiguous draw of its memory shape, transposed back."""
    perm = None if memory_format == "contiguous_format" else _creation().dense_perm(input._data)
    if perm is None or input._data.__class__ is MetaArray:
        return draw(tuple(input.shape))
    out = draw(tuple(input.shape[i] for i in perm))
    out._data = out._data.transpose(np.argsort(perm))
    return out


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None, generator=None):
    return _in_layout(lambda shape: rand(*shape, dtype=_like_dtype(input, dtype),
                                         requires_grad=requires_grad, generator=generator,
                                         device=_like_device(input, device)),
                      input, memory_format)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None, generator=None):
    d = _like_dtype(input, dtype)
    if (memory_format != "contiguous_format" and not d.is_complex and device is None
            and _creation().dense_perm(input._data) is not None):
        # a non-contiguous result: PyTorch's normal_ takes the scalar path (not the 16-wide fill)
        out = _creation().zeros_like(input, dtype=d)
        R.fill(out._data, R.normal(_gen(generator), out._data.shape,
                                   _float_dtype(d, "normal_kernel_cpu").np, contiguous=False))
        return out.requires_grad_(True) if requires_grad else out
    return randn(*input.shape, dtype=d, requires_grad=requires_grad, generator=generator,
                 device=_like_device(input, device))


_C_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
            "int32": "int", "int64": "long"}


def _int_draw(g, n, low, high, npdtype, what="random_"):
    R.check_range(low, high, what)
    npdtype = np.dtype(npdtype)
    if npdtype.kind in "biu":       # PyTorch's check_from_to_in_range, before drawing
        lo, hi = (0, 1) if npdtype.kind == "b" else (np.iinfo(npdtype).min, np.iinfo(npdtype).max)
        for v, side in ((low, "from"), (high - 1, "to - 1")):
            if not lo <= v <= hi:
                raise RuntimeError("%s is out of bounds for %s. Fix: draw in a wider dtype, or "
                                   "keep [low, high) inside [%d, %d]"
                                   % (side, _C_NAMES[npdtype.name], lo, hi + 1))
    return R.int_from_to(g, n, low, high - low, npdtype)


@takes_out("randint")
def randint(*args, size=None, low=None, high=None, generator=None, dtype=None, device=None,
            requires_grad=False, out=None, layout=None, pin_memory=False):
    """Integers in [low, high): ``randint(high, size)`` or ``randint(low, high, size)``
    (int64 unless ``dtype``); random() % range, random64() from a range of 2**32 on.

    Raises:
        RuntimeError: low >= high (nothing drawn).
        TypeError: no size.
    """
    C = _creation()
    meta = C._on_meta(device)
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)) or (
            size is None and len(args) == 3):
        size = args.pop()
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is None:
            high = args[0]
        else:
            low = args[0]
    elif len(args) > 2:
        raise TypeError("randint() takes (high, size) or (low, high, size), got %d "
                        "positional arguments" % len(args))
    if high is None or size is None:
        raise TypeError('randint() missing 1 required positional arguments: "%s". Fix: '
                        "torch.randint(low, high, (n,)) or torch.randint(high, (n,))"
                        % ("size" if size is None else "high"))
    low = 0 if low is None else int(low)
    shape = C._size((size,) if isinstance(size, int) else (tuple(size),))
    d = _dtype.to_dtype(dtype) or _dtype.int64
    if meta:
        R.check_range(low, int(high), "random_")
        return C._meta_new(shape, d.np, requires_grad)
    vals = _int_draw(_gen(generator), _numel(shape), low, int(high), d.np)
    return _new(shape, d, requires_grad, vals)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None, generator=None):
    if high is None:
        low, high = 0, low
    return _in_layout(lambda shape: randint(low, high, shape, dtype=_like_dtype(input, dtype),
                                            generator=generator, requires_grad=requires_grad,
                                            device=_like_device(input, device)),
                      input, memory_format)


@takes_out("randperm")
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False, out=None,
             layout=None, pin_memory=False):
    """A random permutation of 0..n-1 (int64 unless ``dtype``), PyTorch's shuffle.

    Raises:
        RuntimeError: n < 0, or n too large for ``dtype``.
    """
    C = _creation()
    C._require_cpu(device)
    n = int(n)
    d = _dtype.to_dtype(dtype) or _dtype.int64
    if n < 0:
        raise RuntimeError("n must be non-negative, got%d. Fix: randperm(n) with n >= 0" % n)
    if d.is_floating_point:
        limit = 1 << {"float16": 11, "float32": 24}.get(d.name, 53)
    elif d.name == "bool":
        limit = 2
    else:
        limit = int(np.iinfo(d.np).max) + 1
    if n > limit:
        raise RuntimeError("n is too large for result tensor type: '%s'. Fix: pass "
                           "dtype=torch.int64" % d)
    return _new((n,), d, requires_grad, R.randperm(_gen(generator), n).astype(d.np))


@takes_out("normal")
def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """Normal samples; ``mean``/``std`` floats (with ``size``) or tensors (broadcast).
    Tensor forms draw N(0, 1) into the output, then ``* std + mean`` (as PyTorch's
    normal_out_impl), or N(0, std) + mean for a tensor mean and a float std.

    Raises:
        RuntimeError: std < 0.
    """
    g = _gen(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: with "
                            "float mean and std, size is required. Fix: torch.normal(0.0, "
                            "1.0, size=(n,))")
        C = _creation()
        shape = C._size((tuple(size),) if not isinstance(size, int) else (size,))
        d = _float_dtype(dtype, "normal_kernel_cpu")
        _check_std(std)
        return _new(shape, d, requires_grad, R.normal(g, shape, d.np, mean, std))
    if st and (std._data < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0. Fix: pass a "
                           "non-negative std (e.g. std.abs())")
    if not st:
        _check_std(std)
    ref = mean if mt else std
    shape = np.broadcast_shapes(mean.shape if mt else (), std.shape if st else ())
    npd = ref._data.dtype
    if mt and not st:
        z = R.normal(g, shape, npd, 0.0, std).reshape(shape)
        return Tensor._make_plain((z + mean._data).astype(npd, copy=False))
    z = R.normal(g, shape, npd).reshape(shape)
    m = mean._data if mt else npd.type(mean)
    return Tensor._make_plain((z * std._data + m).astype(npd, copy=False))


def _check_std(std):
    if std < 0:
        raise RuntimeError("normal expects std >= 0.0, but found std %s. Fix: pass a "
                           "non-negative std" % std)


def _check_p(p, what="bernoulli_"):
    if not 0 <= p <= 1:
        raise RuntimeError("%s expects p to be in [0, 1], but got p=%s. Fix: pass a "
                           "probability between 0 and 1" % (what, p))


@takes_out("bernoulli", has_dtype=False, any_out=True)
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probabilities ``input`` (or the float ``p``), dtype of input.

    Raises:
        RuntimeError: probabilities outside [0, 1].
    """
    arr = input._data
    out = np.empty(arr.shape, arr.dtype)
    if p is None:
        _check_probs(arr)
        vals = R.bernoulli_tensor(_gen(generator), np.ascontiguousarray(arr))
    else:
        _check_p(p)
        vals = R.bernoulli_scalar(_gen(generator), arr.size, p)
    out[...] = vals.reshape(arr.shape)
    if input._requires_grad and mode.enabled:
        # as PyTorch: the draw requires grad; bernoulli(p) has a zero derivative
        # (BernoulliBackward0), bernoulli(x, p=float) none (backward raises)
        return _record(_BernoulliBackward0 if p is None else _no_derivative("bernoulli"),
                       out, (input,))
    return Tensor._make_plain(out)


def _zero_grad(ctx, g):
    return (Tensor._make_plain(np.zeros_like(g._data)),)


_BernoulliBackward0 = _node("BernoulliBackward0", _zero_grad, saves=False)


def _check_probs(p):
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false. "
                           "Fix: probabilities must lie in [0, 1] (e.g. torch.sigmoid(x) "
                           "or x.clamp(0, 1))")


@takes_out("multinomial", has_dtype=False, long_out=True)
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices sampled from the rows of ``input`` (weights, not necessarily normalised).

    Without replacement (or one sample): argmax/top-k of p / q with q ~ Exp(1) drawn
    into a tensor like ``input`` (Gumbel trick, native/Distributions.cpp). With
    replacement: per row, the float cumulative sum divided by its total, a 53-bit
    uniform per sample and a binary search (cpu/MultinomialKernel.cpp).

    Raises:
        RuntimeError: not 1-D/2-D, num_samples <= 0, more samples than categories
            without replacement, negative/inf/nan weights or a row summing to 0.
    """
    p = input._data
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim. Fix: pass weights of shape (C,) "
                           "or (N, C)")
    if not np.issubdtype(p.dtype, np.floating):
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           "%s. Fix: pass input.float()" % input.dtype)
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples. Fix: num_samples >= 1")
    n_cat = p.shape[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement. Fix: num_samples <= %d, or replacement=True" % n_cat)
    if n_cat > (1 << 24):
        raise RuntimeError("number of categories cannot exceed 2^24")
    rows = p.reshape(-1, n_cat)
    if rows.size and not (np.isfinite(rows).all() and (rows >= 0).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0. "
                           "Fix: pass finite non-negative weights (e.g. logits.softmax(-1))")
    if (rows.sum(axis=1, dtype=np.float64) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0). "
                           "Fix: every row needs a positive weight")
    g = _gen(generator)
    if not replacement or num_samples == 1:
        u = R.uniform01(g, rows.size, np.float64)
        q = (-1.0 * np.log1p(-u)).astype(p.dtype).reshape(rows.shape)   # exponential_(1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = rows / q
        if num_samples == 1:
            idx = np.argmax(ratio, axis=1)[:, None]
        else:
            idx = np.argsort(-ratio, axis=1, kind="stable")[:, :num_samples]
    else:
        idx = np.empty((rows.shape[0], num_samples), np.int64)
        for i, row in enumerate(rows):
            cum = np.cumsum(row, dtype=np.float32 if row.dtype == np.float16 else row.dtype)
            cum = cum / cum[-1]
            cum[-1] = 1
            u = R.uniform01(g, num_samples, np.float64)
            idx[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
    return Tensor._make_plain(idx.astype(np.int64).reshape(p.shape[:-1] + (num_samples,)))


def _poisson_one(lam, g):
    # sample_poisson (native/Distributions.cpp): PTRS (Hoermann 1993) for lambda >= 10,
    # else the product of uniforms
    def u():
        return float(R.uniform01(g, 1, np.float64)[0])
    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            U = u() - 0.5
            V = u()
            us = 0.5 - abs(U)
            k = math.floor((2 * a / us + b) * U + lam + 0.43)
            if us >= 0.07 and V <= vr:
                return k
            if k < 0 or (us < 0.013 and V > us):
                continue
            if (math.log(V) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -lam + k * loglam - math.lgamma(k + 1)):
                return k
    if lam == 0:
        return 0
    x, prod, enlam = 0, 1.0, math.exp(-lam)
    while True:
        prod *= u()
        if prod > enlam:
            x += 1
        else:
            return x


def poisson(input, generator=None):
    """Poisson samples with rates ``input`` (same dtype), one element at a time as
    PyTorch's CPU kernel (rejection sampling: a varying number of draws per element).

    Raises:
        RuntimeError: a negative rate.
    """
    lam = input._data
    if (lam < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative. Fix: "
                           "pass rates >= 0")
    g = _gen(generator)
    vals = [_poisson_one(float(x), g) for x in np.ascontiguousarray(lam).reshape(-1).tolist()]
    return Tensor._make_plain(np.array(vals, dtype=lam.dtype).reshape(lam.shape))


# ------------------------------------------------------------------ in-place methods
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    """Fill with U(from, to): x (to - from) + from per element (memory order).

    Raises:
        RuntimeError: from > to, or an integer tensor.
    """
    from_ = kw.pop("from", from_)
    if from_ > to:
        raise RuntimeError("uniform_ expects to return a [from, to) range, but found from=%s "
                           "> to=%s. Fix: pass from <= to" % (from_, to))
    d = _float_dtype(self.dtype, "check_uniform_bounds")
    if self._data.__class__ is MetaArray:
        return _meta_fill(self, "uniform_")
    return _inplace(self, "uniform_", R.uniform(_gen(generator), self._data.size, d.np,
                                                from_, to))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with N(mean, std) (PyTorch's normal_kernel: 16-wide for contiguous >= 16)."""
    _check_std(std)
    d = _float_dtype(self.dtype, "normal_kernel_cpu")
    if self._data.__class__ is MetaArray:
        return _meta_fill(self, "normal_")
    return _inplace(self, "normal_", R.normal(_gen(generator), self._data.shape, d.np, mean,
                                              std, _contig(self._data)))


def random_(self, from_=None, to=None, *, generator=None):
    """``random_()``: integers over the dtype's range (uniform_int_distribution);
    ``random_(from, to)``: [from, to); ``random_(from, None)``: [from, the dtype's
    largest integer] (``Tensor.random_(to)`` is [0, to)).

    Raises:
        RuntimeError: from >= to (nothing drawn).
    """
    npd = self._data.dtype
    if self._data.__class__ is MetaArray:
        return _meta_fill(self, "random_")
    g = _gen(generator)
    n = self._data.size
    if from_ is None and to is None:
        return _inplace(self, "random_", R.int_full(g, n, npd))
    if to is None:
        if npd.kind == "f":
            to = (1 << {2: 11, 4: 24}.get(npd.itemsize, 53)) + 1
        elif npd == np.bool_:
            to = 2
        else:
            to = int(np.iinfo(npd).max) + 1
    return _inplace(self, "random_", _int_draw(g, n, int(from_ or 0), int(to), npd))


def _random_method(self, *args, generator=None, **kw):
    """``Tensor.random_(from=0, to=None)``, ``random_(to)``, ``random_()``."""
    if len(args) == 1 and not kw:
        return random_(self, 0, args[0], generator=generator)
    lo = kw.get("from", args[0] if args else None)
    hi = kw.get("to", args[1] if len(args) > 1 else None)
    return random_(self, lo, hi, generator=generator)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1: ``p`` a float (53-bit uniform < p) or a tensor of probabilities
    broadcast to self (float32 uniform < p, float64 for a float64 p).

    Raises:
        RuntimeError: p outside [0, 1].
    """
    g = _gen(generator)
    arr = self._data
    if arr.__class__ is MetaArray:
        return _meta_fill(self, "bernoulli_")
    if isinstance(p, Tensor):
        pv = p._data
        _check_probs(pv)
        pv = np.ascontiguousarray(R.memory_order(np.broadcast_to(pv, arr.shape), arr))
        return _inplace(self, "bernoulli_", R.bernoulli_tensor(g, pv))
    _check_p(p)
    return _inplace(self, "bernoulli_", R.bernoulli_scalar(g, arr.size, p))


def _bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


def _double_fill(self, name, generator, fn):
    """Kernels that draw a 53-bit uniform per element and transform it in double."""
    if self._data.__class__ is MetaArray:
        return _meta_fill(self, name)
    u = R.uniform01(_gen(generator), self._data.size, np.float64)
    return _inplace(self, name, fn(u))


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with Exp(lambd): -1/lambd log1p(-u), u a 53-bit uniform (double math).

    Raises:
        RuntimeError: lambd <= 0.
    """
    if not lambd > 0:
        raise RuntimeError("exponential_ expects lambda > 0.0, but found lambda=%s. Fix: "
                           "pass a positive rate" % lambd)
    return _double_fill(self, "exponential_", generator, lambda u: -1.0 / lambd * R.libm(math.log1p, -u))


def geometric_(self, p, *, generator=None):
    """Fill with Geometric(p) on {1, 2, ...}: ceil(log(u) / log1p(-p)).

    Raises:
        RuntimeError: p outside (0, 1).
    """
    if not 0 < p < 1:
        raise RuntimeError("geometric_ expects p to be in (0, 1), but got p=%s. Fix: pass "
                           "0 < p < 1" % p)
    return _double_fill(self, "geometric_", generator,
                        lambda u: np.ceil(R.libm(math.log, u) / math.log1p(-p)))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with exp(N(mean, std)) (scalar double Box-Muller, with its cache).

    Raises:
        RuntimeError: std <= 0.
    """
    if not std > 0:
        raise RuntimeError("log_normal_ expects std > 0.0, but found std=%s. Fix: pass a "
                           "positive std" % std)
    z = R.normal_scalar(_gen(generator), self._data.size, mean, std)
    return _inplace(self, "log_normal_", R.libm(math.exp, z))


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with Cauchy(median, sigma): median + sigma tan(pi (u - 0.5))."""
    return _double_fill(self, "cauchy_", generator,
                        lambda u: R.fma64(R.libm(math.tan, math.pi * (u - 0.5)), float(sigma),
                                                float(median)))


def _multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


_METHODS = {"uniform_": uniform_, "normal_": normal_, "random_": _random_method,
            "bernoulli_": bernoulli_, "bernoulli": _bernoulli_method,
            "exponential_": exponential_, "geometric_": geometric_, "log_normal_": log_normal_,
            "cauchy_": cauchy_, "multinomial": _multinomial_method}


def _install():
    for name, fn in _METHODS.items():
        setattr(Tensor, name, fn)


_install()
