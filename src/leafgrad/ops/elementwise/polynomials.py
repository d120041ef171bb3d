"""torch.special's orthogonal polynomials: Chebyshev T, U, V, W (and the shifted ones on
[0, 1]), Hermite H and He, Laguerre L, Legendre P, as ``f(input, n)``.

PyTorch's definitions (its ``*_polynomial_*_forward`` kernels): ``n`` is truncated to an
integer, a negative ``n`` gives 0, the three-term recurrence is run from P_0 and P_1, and
the Chebyshev ones switch to their trigonometric forms (cos(n acos x), ...) inside
(-1, 1) for large n, with the closed values at the ends x = +-1. No gradient: PyTorch
has no derivative for these (the result does not require grad). Either operand may be a
Python number; the result has the promoted float dtype (the default float dtype for
integers).
"""
import numpy as np

from ..._core import dtype as _dtype
from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor
from .._registry import defop


def _operands(name, x, n):
    if not isinstance(x, Tensor) and not isinstance(n, Tensor):
        raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s. Fix: "
                        "pass a tensor, e.g. torch.tensor(%r)" % (name, type(x).__name__, x))
    xd = x._data if isinstance(x, Tensor) else x
    nd = n._data if isinstance(n, Tensor) else n
    # PyTorch's promotion: a Python number takes the tensor's dtype if that is a float
    # and a float tensor's dtype wins over an integer tensor's (as torch.promote_types)
    ts = [v.dtype for v in (xd, nd) if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
    dt = np.result_type(*ts) if ts else _dtype.get_default_dtype().np
    xa, na = np.broadcast_arrays(np.asarray(xd, np.float64), np.asarray(nd, np.float64))
    with _quiet():
        ni = np.where(np.isfinite(na), np.trunc(na), -1).astype(np.int64)
    return xa, ni, dt


def _recurrence(x, n, p0, p1, step):
    """P_n by P_{k+1} = step(k, x, P_k, P_{k-1}) from P_0 = p0 and P_1 = p1, per element."""
    out = np.where(n == 0, p0, p1)
    top = int(n.max()) if n.size else 0
    p, q = p0, p1
    for k in range(1, top):
        r = step(k, x, q, p)
        out = np.where(n == k + 1, r, out)
        p, q = q, r
    return out


def _cheb_step(x):
    return lambda k, xx, q, p: (x + x) * q - p


def _make(name, body, doc):
    def op(input, n, *, out=None):
        if out is not None:
            from .._out import out_call
            return out_call(name, op, (input, n), {}, out)
        x, ni, dt = _operands(name, input, n)
        with _quiet():      # overflow to inf and inf - inf are silent, as there
            r = body(x, ni)
            if dt == np.float32:
                # PyTorch's float32 kernels run in float32: where the float64 result leaves
                # float32's range, the float32 recurrence's inf (or inf - inf = nan) is
                # the result; elsewhere float64 (NumPy's float32 sin / cos / arccos are a
                # few ulps off the C library's, which (n + 1) acos(x) magnifies)
                far = ~(np.abs(r) <= np.finfo(np.float32).max)
                if far.any():
                    r = np.where(far, body(x.astype(np.float32), ni), r)
            r = np.asarray(np.where(ni < 0, 0.0, r)).astype(dt)
        return Tensor._make_plain(r)
    op.__name__ = op.__qualname__ = "special_" + name
    op.__doc__ = doc
    defop("special_" + name, op, function=False, method=False, inplace=False, out=True,
          family="special")
    globals()["special_" + name] = op      # public in this family (the op table's coverage)
    return op


def _ends(x, n, at_plus, at_minus):
    return np.where(x > 0, at_plus, at_minus)


def _cheb(x, n, kind):
    """Chebyshev T/U/V/W of x, with PyTorch's end values and trigonometric switch."""
    one = np.ones_like(x)
    odd = (n % 2) == 1
    nf = n.astype(x.dtype)
    t = np.arccos(np.clip(x, -1, 1))
    inside = np.abs(x) < 1
    if kind == "t":
        p1, big = x, n > 6
        trig = np.cos(nf * t)
        end = np.where((x > 0) | ~odd, 1.0, -1.0)
    elif kind == "u":
        p1, big = x + x, n > 8
        s = np.sin(t)
        trig = np.where(s != 0, np.sin((nf + 1) * t) / np.where(s != 0, s, 1),
                        (nf + 1) * np.cos((nf + 1) * t) / x)
        end = np.where((x > 0) | ~odd, nf + 1, -(nf + 1))
    elif kind == "v":
        p1, big = x + x - 1, n > 8
        c = np.cos(t / 2)
        trig = np.where(np.sin(t / 2) != 1, np.cos((nf + 0.5) * t) / np.where(c != 0, c, 1),
                        np.where(~odd, nf + nf + 1, -(nf + nf + 1)))
        end = np.where(x > 0, 1.0, np.where(~odd, nf + nf + 1, -(nf + nf + 1)))
    else:
        p1, big = x + x + 1, n > 8
        s = np.sin(t / 2)
        trig = np.where(np.cos(t / 2) != 1, np.sin((nf + 0.5) * t) / np.where(s != 0, s, 1),
                        np.where(x > 0, nf + nf + 1, np.where(~odd, 1.0, -1.0)))
        end = np.where(x > 0, nf + nf + 1, np.where(~odd, 1.0, -1.0))
    rec = _recurrence(x, np.where(big & inside, 0, n), one, p1, _cheb_step(x))
    r = np.where(big & inside, trig, rec)
    return np.where(np.abs(x) == 1, end, r)


for _kind in "tuvw":
    _make("chebyshev_polynomial_" + _kind, lambda x, n, k=_kind: _cheb(x, n, k),
          "Chebyshev polynomial of the %s kind %s_n(x) (torch.special.chebyshev_polynomial_"
          "%s): the recurrence P_{k+1} = 2x P_k - P_{k-1}. No gradient." % (
              {"t": "first", "u": "second", "v": "third", "w": "fourth"}[_kind],
              _kind.upper(), _kind))
    _make("shifted_chebyshev_polynomial_" + _kind,
          lambda x, n, k=_kind: _cheb(x + x - 1, n, k),
          "Shifted Chebyshev polynomial %s*_n(x) = %s_n(2x - 1) on [0, 1] "
          "(torch.special.shifted_chebyshev_polynomial_%s). No gradient." % (
              _kind.upper(), _kind.upper(), _kind))


def _hermite_h(x, n):
    return _recurrence(x, n, np.ones_like(x), x + x,
                       lambda k, xx, q, p: (xx + xx) * q - (k + k) * p)


def _hermite_he(x, n):
    return _recurrence(x, n, np.ones_like(x), x.copy(), lambda k, xx, q, p: xx * q - k * p)


def _laguerre(x, n):
    r = _recurrence(x, n, np.ones_like(x), 1 - x,
                    lambda k, xx, q, p: ((k + k + 1 - xx) * q - k * p) / (k + 1))
    return np.where(x == 0, 1.0, r)


def _legendre(x, n):
    r = _recurrence(x, n, np.ones_like(x), x.copy(),
                    lambda k, xx, q, p: ((k + k + 1) * xx * q - k * p) / (k + 1))
    odd = (n % 2) == 1
    return np.where(np.abs(x) == 1, np.where((x > 0) | ~odd, 1.0, -1.0), r)


_make("hermite_polynomial_h", _hermite_h,
      "Physicists' Hermite polynomial H_n(x): H_{k+1} = 2x H_k - 2k H_{k-1}. No gradient.")
_make("hermite_polynomial_he", _hermite_he,
      "Probabilists' Hermite polynomial He_n(x): He_{k+1} = x He_k - k He_{k-1}. No gradient.")
_make("laguerre_polynomial_l", _laguerre,
      "Laguerre polynomial L_n(x): (k+1) L_{k+1} = (2k+1-x) L_k - k L_{k-1}. No gradient.")
_make("legendre_polynomial_p", _legendre,
      "Legendre polynomial P_n(x): (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}. No gradient.")
