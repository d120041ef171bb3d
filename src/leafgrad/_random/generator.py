"""PyTorch's CPU random generator, bit for bit: ``torch.Generator`` and its streams.

PyTorch's CPU generator (``aten/src/ATen/CPUGeneratorImpl.cpp``) is an mt19937 seeded
with the low 32 bits of the seed by ``init_genrand``; NumPy's ``MT19937`` is the same
engine, so its ``random_raw`` gives PyTorch's raw 32-bit stream at NumPy speed once the
state is set as PyTorch seeds it. The transforms of those raw draws into uniforms,
normals and integers follow ``aten/src/ATen/core/TransformationHelper.h`` and
``DistributionsHelper.h``; the filling kernels follow ``native/cpu/DistributionTemplates.h``
(PyTorch 2.13's x86-64 CPU wheel: ``normal_`` of float32 runs its AVX2 kernel, whose
``log256_ps``/``sincos256_ps`` polynomials (avx_mathfun.h, Cephes) are reproduced here).

Precision: integers (``randint``, ``randperm``, ``random_``, ``bernoulli``, masks) and
uniforms are exact; float64 normals are exact on the small/strided path (scalar libm
in Python's ``math``) and within 1 ulp on the 16-wide path (NumPy's libm); float32
normals are exact or within 1 ulp (FMA contraction PyTorch's compiler chose).
"""
import math
import operator
import os

import numpy as np

from .._core import errors as _errors
from .._core.fma import fma32 as _fma, fma64  # noqa: F401  (fma64: used by _random_ops as R.fma64)

__all__ = ["Generator", "default_generator"]

DEFAULT_SEED = 67280421310721      # c10::detail::default_rng_seed_val
_U64 = (1 << 64) - 1
_STATE_DTYPE = np.dtype([            # CPUGeneratorImplState (5056 bytes, little endian)
    ("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"),
    ("state", "<u8", 624), ("normal_x", "<f8"), ("normal_y", "<f8"), ("normal_rho", "<f8"),
    ("normal_is_valid", "<i4"), ("pad0", "<i4"), ("next_float", "<f4"),
    ("next_float_valid", "u1"), ("pad1", "u1", 3)])
_LEGACY_SIZE = 5048                 # CPUGeneratorImplStateLegacy alone, also accepted


def _init_genrand(seed):
    """mt19937's init_genrand state for a 32-bit seed (PyTorch's ``mt19937(seed)``)."""
    key = [0] * 624
    s = seed & 0xFFFFFFFF
    key[0] = s
    for i in range(1, 624):
        s = (1812433253 * (s ^ (s >> 30)) + i) & 0xFFFFFFFF
        key[i] = s
    return np.array(key, dtype=np.uint32)


def check_seed(seed):
    """The seed as PyTorch stores it (uint64; negatives wrap), or ValueError."""
    try:
        s = operator.index(seed)
    except TypeError:
        raise TypeError("manual_seed expected a long, but got %s. Fix: pass an int, e.g. "
                        "manual_seed(0)" % type(seed).__name__) from None
    if not -(1 << 63) <= s <= _U64:
        raise ValueError("Overflow when unpacking long long: seed %d is outside "
                         "[-2**63, 2**64 - 1]. Fix: use a smaller seed, e.g. seed %% 2**64"
                         % s)
    return s & _U64


class Generator:
    """``torch.Generator`` for the CPU: mt19937 as PyTorch seeds and draws it.

    ``Generator()`` starts from PyTorch's default seed 67280421310721; ``manual_seed``
    accepts any int in [-2**63, 2**64) (negatives wrap to uint64, only the low 32 bits
    seed the engine, as PyTorch). ``get_state``/``set_state`` use PyTorch's 5056-byte
    layout (a uint8 tensor), including the cached normal sample.

    Raises:
        RuntimeError: a device other than the CPU.
    """

    __slots__ = ("_bg", "_seed", "next_double_normal", "next_float_normal", "__weakref__")

    def __init__(self, device="cpu"):
        from .._tensor.creation import _require_cpu
        _require_cpu(device)
        self._bg = None
        self._reseed(DEFAULT_SEED)

    @property
    def device(self):
        from .._tensor.creation import device
        return device("cpu")

    def _reseed(self, seed):
        self._seed = seed
        if self._bg is not None:
            self._set_key(_init_genrand(seed), 624)
        self.next_double_normal = None
        self.next_float_normal = None

    def _engine(self):
        """The mt19937 engine, made on the first draw: ``import leafgrad`` then does not
        load ``numpy.random`` (~20 ms). ``_bg is None`` means: fresh from ``_seed``."""
        bg = self._bg
        if bg is None:
            bg = self._bg = np.random.MT19937(0)
            self._set_key(_init_genrand(self._seed), 624)
        return bg

    def _set_key(self, key, pos):
        self._bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}

    def manual_seed(self, seed):
        """Reseed (resets the cached normal); returns the generator.

        Raises:
            ValueError: seed outside [-2**63, 2**64 - 1] (PyTorch's class).
            TypeError: a seed that is not an int.
        """
        self._reseed(check_seed(seed))
        return self

    def seed(self):
        """Reseed from the OS entropy pool; returns the new seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self._reseed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor of 5056 bytes (PyTorch's layout)."""
        from .._tensor.tensor import Tensor
        st = self._engine().state["state"]
        rec = np.zeros((), _STATE_DTYPE)
        pos = int(st["pos"])
        rec["seed"] = self._seed
        rec["left"] = 625 - pos
        rec["seeded"] = 1
        rec["next"] = pos % 624
        rec["state"] = st["key"].astype(np.uint64)
        if self.next_double_normal is not None:
            rec["normal_is_valid"] = 1
            rec["normal_y"] = self.next_double_normal
        if self.next_float_normal is not None:
            rec["next_float_valid"] = 1
            rec["next_float"] = self.next_float_normal
        return Tensor._make_plain(np.frombuffer(rec.tobytes(), np.uint8).copy())

    def set_state(self, new_state):
        """Restore a state from ``get_state`` (or PyTorch's ``get_rng_state``).

        Raises:
            TypeError: not a uint8 tensor.
            RuntimeError: a wrong size or an invalid mt19937 state; nothing changes.
        """
        from .._tensor.tensor import Tensor
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError("expected a torch.ByteTensor, but got %s. Fix: pass the uint8 "
                            "tensor that get_state() / torch.get_rng_state() returned"
                            % (type(new_state).__name__ if not isinstance(new_state, Tensor)
                               else "a %s tensor" % new_state.dtype))
        raw = np.ascontiguousarray(new_state._data).reshape(-1).tobytes()
        if len(raw) not in (_LEGACY_SIZE, _STATE_DTYPE.itemsize):
            raise RuntimeError(
                "Expected either a THGeneratorState of size 5048 or a CPUGeneratorImplState "
                "of size 5056 but found the input RNG state size to be %d. Fix: pass the "
                "tensor that get_state() / torch.get_rng_state() returned" % len(raw))
        rec = np.frombuffer(raw.ljust(_STATE_DTYPE.itemsize, b"\0"), _STATE_DTYPE)[0]
        left = int(rec["left"])
        if not (rec["seeded"] and 0 < left <= 624 and int(rec["next"]) <= 624):
            raise RuntimeError("Invalid mt19937 state. Fix: pass the tensor that "
                               "get_state() / torch.get_rng_state() returned")
        self._engine()
        self._set_key((rec["state"] & 0xFFFFFFFF).astype(np.uint32),
                      625 - left if left > 1 else 624)
        self._seed = int(rec["seed"])
        self.next_double_normal = float(rec["normal_y"]) if rec["normal_is_valid"] else None
        self.next_float_normal = (float(rec["next_float"]) if len(raw) > _LEGACY_SIZE
                                  and rec["next_float_valid"] else None)
        return self

    # ----------------------------------------------------------- raw draws
    def u32(self, n):
        """``n`` draws of ``random()`` (uint32 values in a uint64 array)."""
        if vmap_randomness[-1] == "error":
            _vmap_refuse()
        return (self._bg or self._engine()).random_raw(n)

    def u64(self, n):
        """``n`` draws of ``random64()``: two 32-bit draws, the first is the high word."""
        if vmap_randomness[-1] == "error":
            _vmap_refuse()
        raw = (self._bg or self._engine()).random_raw(2 * n)
        w = raw.view(np.uint32)[::2]                            # the 32-bit values
        out = np.empty(n, np.uint64)
        halves = out.view(np.uint32)                            # little endian: low, high
        halves[0::2] = w[1::2]
        halves[1::2] = w[0::2]
        return out

    def __repr__(self):
        return "<torch._C.Generator object at 0x%x>" % id(self)

    def __reduce__(self):
        return (_rebuild_generator, (self.get_state()._data.tobytes(),))


# torch.func.vmap's randomness mode of the innermost vmap running (None outside vmap):
# every draw of random bits refuses in "error" mode, as PyTorch
vmap_randomness = [None]


def _vmap_refuse():
    raise RuntimeError("vmap: called random operation while in randomness error mode. Please "
                       "either use the 'same' or 'different' randomness flags on vmap or perform "
                       "the randomness operation out of vmap")


def _rebuild_generator(state):
    from .._tensor.tensor import Tensor
    return Generator().set_state(Tensor._make_plain(np.frombuffer(state, np.uint8).copy()))


default_generator = Generator()
default_generator.seed()             # PyTorch seeds its default generator randomly at start


def gen(generator):
    """The generator to draw from (``generator=None``: the default one)."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError("generator must be a torch.Generator, but got %s. Fix: pass "
                        "torch.Generator().manual_seed(seed) or leave generator out"
                        % type(generator).__name__)
    return generator


# ------------------------------------------------------------- transforms
_F32 = np.float32


def uniform01(g, n, npdtype):
    """``uniform_real_distribution<T>(0, 1)``: float64 from 53 bits of random64(),
    float32 (and float16, which PyTorch 2.13's CPU wheel draws as float then rounds)
    from 24 bits of random(); float32 array for both."""
    if npdtype == np.float64:
        v = g.u64(n)
        v &= np.uint64((1 << 53) - 1)
        x = v.view(np.int64).astype(np.float64)     # int64 -> float64 converts fast
        x *= 2.0 ** -53
        return x
    v = g.u32(n).view(np.uint32)[::2] & np.uint32((1 << 24) - 1)
    x = v.view(np.int32).astype(_F32)
    x *= _F32(2.0 ** -24)
    return x


def uniform(g, n, npdtype, low, high):
    """``uniform_(low, high)``: fma(x, to - from, from) in the accumulation type (float32
    for float32/float16, float64 for float64), from/to first cast to the dtype."""
    x = uniform01(g, n, npdtype)
    if npdtype == np.float64:
        lo, hi = np.float64(low), np.float64(high)
        if not (lo == 0 and hi == 1):
            x = fma64(x, hi - lo, lo)
        return x
    t = np.dtype(npdtype).type
    lo, hi = _F32(low), _F32(high)        # float32 bounds for float16 too (measured)
    if not (lo == 0 and hi == 1):
        x = _fma(x, float(hi - lo), float(lo))
    if npdtype == np.float16:     # a draw that rounds up to `to` becomes `from` (measured)
        x = x.astype(np.float16)
        x[x == t(high)] = t(low)
    return x.astype(npdtype, copy=False)


def normal_scalar(g, n, mean=0.0, std=1.0):
    """``n`` draws of ``normal_distribution<double>`` (Box-Muller with the cached second
    sample, DistributionsHelper.h): u1, u2 from random64(); r = sqrt(-2 log1p(-u2)),
    theta = 2 pi u1; returns r cos(theta), caches r sin(theta). float64 array."""
    out = np.empty(n, np.float64)
    i = 0
    if n and g.next_double_normal is not None:
        out[0] = g.next_double_normal
        g.next_double_normal = None
        i = 1
    pairs = (n - i + 1) // 2
    if pairs:
        u = uniform01(g, 2 * pairs, np.float64)
        u1, u2 = u[0::2], u[1::2]
        # scalar libm as PyTorch's kernel (NumPy's SIMD libm can differ by an ulp)
        m = math
        r = [m.sqrt(-2.0 * m.log1p(-b)) for b in u2.tolist()]
        th = [2.0 * m.pi * a for a in u1.tolist()]
        c = np.array([a * m.cos(t) for a, t in zip(r, th)])
        s = np.array([a * m.sin(t) for a, t in zip(r, th)])
        both = np.empty(2 * pairs)
        both[0::2], both[1::2] = c, s
        out[i:] = both[:n - i]
        if (n - i) % 2:
            g.next_double_normal = float(both[-1])
    if not (mean == 0 and std == 1):
        out = fma64(out, float(std), float(mean))
    return out


def libm(fn, arr):
    """``fn`` (a ``math`` function) elementwise: glibc's scalar results, as PyTorch's
    scalar kernels compute them."""
    return np.fromiter(map(fn, arr.tolist()), np.float64, arr.size)


# Cephes single-precision log and sincos as avx_mathfun.h computes them (8 lanes at a
# time in PyTorch; elementwise here), with the multiply-adds GCC contracts into FMAs.
_LOG_P = [7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
          1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
          3.3333331174e-1]


def _c(v):
    return float(_F32(v))


def _log_ps(x):
    x = np.maximum(x, _F32(1.17549435e-38))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F32)
    x = ((bits & ~0x7F800000) | 0x3F000000).view(_F32)
    mask = (x < _F32(0.707106781186547524)).astype(_F32)
    e += _F32(1)
    e -= mask                               # e + 1, minus 1 where x < sqrt(1/2)
    mask *= x
    x = x - _F32(1)
    x += mask                               # x - 1 (+ x where x < sqrt(1/2))
    x64 = x.astype(np.float64)
    z = x * x
    y = (x64 * _c(_LOG_P[0]) + _c(_LOG_P[1])).astype(_F32)
    for p in _LOG_P[2:]:
        y = _fma(y, x64, _c(p))
    y *= x
    y = _fma(y, z.astype(np.float64), (e * _F32(-2.12194440e-4)).astype(np.float64))
    y = _fma(z, -0.5, y.astype(np.float64))
    x += y
    x += e * _F32(0.693359375)              # exact product (|e| < 128, 9-bit constant)
    return x


def _sincos_ps(x):
    sign_sin = x.view(np.int32) & np.int32(-0x80000000)
    x = np.abs(x)
    j = (x * _F32(1.27323954473516)).astype(np.int32)
    j += 1
    j &= ~1
    y = j.astype(np.float64)
    sign_sin ^= (j & 4) << 29
    poly = ((j & 2) >> 1) - 1                # all ones where (j & 2) == 0, else 0
    y32 = y.astype(_F32)
    x += y32 * _F32(-0.78515625)            # exact products (y <= 8, short constants):
    x += y32 * _F32(-2.4187564849853515625e-4)   # one rounding, as the fused add's
    x = (x.astype(np.float64) + y * _c(-3.77489497744594108e-8)).astype(_F32)
    sign_cos = (~(j - 2) & 4) << 29
    z = x * x
    z64 = z.astype(np.float64)
    yc = (z64 * _c(2.443315711809948e-5) + _c(-1.388731625493765e-3)).astype(_F32)
    yc = _fma(yc, z64, _c(4.166664568298827e-2))
    yc *= z
    yc = _fma(yc, z64, (z * _F32(-0.5)).astype(np.float64))
    yc += _F32(1)
    ys = (z64 * _c(-1.9515295891e-4) + _c(8.3321608736e-3)).astype(_F32)
    ys = _fma(ys, z64, _c(-1.6666654611e-1))
    ys *= z
    x64 = x.astype(np.float64)
    ys = _fma(ys, x64, x64)
    # select the polynomial per lane with bit masks (exact, and fast in NumPy)
    ysb, ycb = ys.view(np.int32), yc.view(np.int32)
    s = ((ysb & poly) | (ycb & ~poly)) ^ sign_sin
    c = ((ycb & poly) | (ysb & ~poly)) ^ sign_cos
    s, c = s.view(_F32), c.view(_F32)
    return s, c


def _fill16_f32(d, mean, std):
    """normal_fill_16_AVX2 over rows of 16 (d: (k, 16) float32 uniforms, in place);
    in chunks that stay in cache (the emulation makes ~90 passes over the data)."""
    step = 4096
    for a in range(0, d.shape[0], step):
        blk = d[a:a + step]
        u1 = _F32(1) - blk[:, :8]
        radius = np.sqrt(_F32(-2) * _log_ps(u1))
        s, c = _sincos_ps(_F32(2.0 * math.pi) * blk[:, 8:])
        c *= radius
        s *= radius
        if not (mean == 0 and std == 1):
            m, sd = np.float64(_F32(mean)), np.float64(_F32(std))
            c = (c * sd + m).astype(_F32)
            s = (s * sd + m).astype(_F32)
        blk[:, :8], blk[:, 8:] = c, s


def _fill16_f64(d, mean, std):
    """normal_fill_16<double>: scalar libm in PyTorch, Python's ``math`` here for up to
    4096 rows (exact), NumPy's vectorised libm beyond (within 1 ulp)."""
    if d.shape[0] <= 4096:
        m = math
        u1 = d[:, :8].reshape(-1).tolist()
        u2 = d[:, 8:].reshape(-1).tolist()
        r = [m.sqrt(-2.0 * m.log(1.0 - a)) for a in u1]
        th = [2.0 * m.pi * b for b in u2]
        c = np.array([a * m.cos(t) for a, t in zip(r, th)]).reshape(-1, 8)
        s = np.array([a * m.sin(t) for a, t in zip(r, th)]).reshape(-1, 8)
    else:
        radius = np.sqrt(-2.0 * np.log(1.0 - d[:, :8]))
        theta = 2.0 * math.pi * d[:, 8:]
        c, s = radius * np.cos(theta), radius * np.sin(theta)
    if not (mean == 0 and std == 1):
        c, s = fma64(c, std, mean), fma64(s, std, mean)
    d[:, :8], d[:, 8:] = c, s


def normal_fill(g, n, npdtype, mean, std):
    """``normal_fill`` (n >= 16, contiguous): n uniforms, Box-Muller over blocks of 16
    (first 8 radii, last 8 angles); when n % 16 != 0 the last 16 values are redrawn and
    transformed again (native/cpu/DistributionTemplates.h)."""
    d = uniform01(g, n, npdtype)
    full = n // 16 * 16
    fill = _fill16_f32 if npdtype == np.float32 else _fill16_f64
    if full:
        blk = d[:full].reshape(-1, 16)
        fill(blk, mean, std)
        d[:full] = blk.reshape(-1)
    if n % 16:
        tail = uniform01(g, 16, npdtype).reshape(1, 16)
        fill(tail, mean, std)
        d[n - 16:] = tail.reshape(-1)
    return d


def _normal_fill_half(g, n, mean, std):
    """float16 on PyTorch 2.13's wheel (measured): the float32 AVX2 fill over the whole
    blocks of 16 (uniforms drawn only for them), the last 16 values redrawn as float32's
    tail, then rounded to float16."""
    full = n // 16 * 16
    d = np.empty(n, _F32)
    if full:
        blk = uniform01(g, full, np.float32).reshape(-1, 16)
        _fill16_f32(blk, mean, std)
        d[:full] = blk.reshape(-1)
    if n % 16:
        tail = uniform01(g, 16, np.float32).reshape(1, 16)
        _fill16_f32(tail, mean, std)
        d[n - 16:] = tail.reshape(-1)
    return d.astype(np.float16)


def normal(g, shape, npdtype, mean=0.0, std=1.0, contiguous=True):
    """``normal_(mean, std)`` values for a tensor of ``shape`` in memory order: the
    16-wide fill for contiguous tensors of >= 16 elements, else the scalar double path."""
    n = int(np.prod(shape, dtype=np.int64))
    if n >= 16 and contiguous:
        if npdtype == np.float16:
            return _normal_fill_half(g, n, mean, std)
        return normal_fill(g, n, npdtype, mean, std)
    return normal_scalar(g, n, mean, std).astype(npdtype)


def int_from_to(g, n, low, rng, npdtype):
    """``uniform_int_from_to_distribution``: (random() % range) + low, with random64()
    from a range of 2**28 on (PyTorch 2.13's threshold, measured on its wheel; older
    TransformationHelper.h used 2**32)."""
    wide = rng >= (1 << 28)
    v = (g.u64(n) if wide else g.u32(n)) % np.uint64(rng)
    v = (v + np.uint64(low & _U64)).view(np.int64)
    return v.astype(npdtype)


def int_full(g, n, npdtype):
    """``random_()`` without bounds: uniform_int_distribution<T> (random64 % 2**63 for
    int64, random % (max + 1) for smaller ints, % (2**digits + 1) for floats, & 1 bool)."""
    dt = np.dtype(npdtype)
    if dt == np.bool_:
        return (g.u32(n) & np.uint64(1)).astype(np.bool_)
    if dt == np.int64:
        return (g.u64(n) % np.uint64(1 << 63)).astype(np.int64)
    if dt == np.float64:
        return (g.u64(n) % np.uint64((1 << 53) + 1)).astype(np.float64)
    if dt.kind == "f":
        digits = 24 if dt == np.float32 else 11
        return (g.u32(n) % np.uint64((1 << digits) + 1)).astype(dt)
    return (g.u32(n) % np.uint64(int(np.iinfo(dt).max) + 1)).astype(dt)


def randperm(g, n):
    """``randperm_cpu``: identity, then for i < n - 1 swap i with i + random() % (n - i);
    from n >= 2**32 / 20 PyTorch's inside-out shuffle with random64() (TensorFactories.cpp)."""
    if n < 0xFFFFFFFF // 20:
        if n < 2:
            return np.arange(n, dtype=np.int64)
        z = (g.u32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
        z += np.arange(n - 1, dtype=np.int64)
        r = list(range(n))
        for i, j in enumerate(z.tolist()):
            r[i], r[j] = r[j], r[i]
        return np.array(r, dtype=np.int64)
    r = np.empty(n, np.int64)     # pragma: no cover  (n >= 214748364: 1.7 GB)
    z = g.u64(n) % np.arange(1, n + 1, dtype=np.uint64)
    for i, j in enumerate(z.tolist()):
        r[i] = r[j]
        r[j] = i
    return r


def bernoulli_scalar(g, n, p):
    """``bernoulli_(float p)``: bernoulli_distribution<double>: uniform (53 bits) < p."""
    return uniform01(g, n, np.float64) < p


def bernoulli_tensor(g, p):
    """``bernoulli_(Tensor p)`` (p already in the output's memory order): float64 p
    compares a 53-bit uniform, other dtypes a float32 uniform with p as float32."""
    n = p.size
    if p.dtype == np.float64:
        return uniform01(g, n, np.float64) < p.reshape(-1)
    return uniform01(g, n, np.float32) < p.reshape(-1).astype(_F32)


def memory_order(arr, like=None):
    """``arr`` transposed so that C order is the order PyTorch's TensorIterator visits
    the output ``like`` (default ``arr``) in: its axes from the largest stride down."""
    ref = arr if like is None else like
    if ref.ndim < 2 or ref.flags.c_contiguous:
        return arr
    axes = sorted(range(ref.ndim), key=lambda a: (-abs(ref.strides[a]), a))
    return arr.transpose(axes)


def fill(arr, values):
    """Write a flat array of values into ``arr`` in memory order."""
    view = memory_order(arr)
    view[...] = values.reshape(view.shape)


def check_range(low, high, what="random_"):
    if not low < high:
        raise RuntimeError("%s expects 'from' to be less than 'to', but got from=%s >= to=%s. "
                           "Fix: pass low < high (the range is [low, high))"
                           % (what, low, high))

