"""``torch.testing.assert_close``: closeness of tensors, numbers, and sequences / mappings of
them, with PyTorch 2.13's default tolerances per dtype and its messages word for word.

Behaviour (PyTorch's ``torch/testing/_comparison.py``, re-implemented here):

* Sequences (not ``str``) are compared item by item, after their lengths; mappings by their
  keys, then value by value; a failure inside names its place: ``The failure occurred for
  item [1]['a']``.
* Leaves: two ``None``; two bools (``Booleans mismatch``); two numbers (``int`` / ``float`` /
  ``complex`` / NumPy scalars: tolerances of int64 / float64 / complex128); two tensor-likes
  of directly related types (a Tensor and its subclass unless ``allow_subclasses=False``, two
  ndarrays). Anything else: ``TypeError: No comparison pair was able to handle inputs ...``.
* Tensors: shape, then layout / stride (``check_stride``) / dtype (``check_dtype``) must
  match, then ``isclose(actual, expected, rtol, atol, equal_nan)`` everywhere, where
  ``rtol, atol`` default to the loosest of the two dtypes' (``_DTYPE_PRECISIONS``; 0 and 0,
  i.e. equality, for integers and bool). Give both ``rtol`` and ``atol`` or neither
  (ValueError otherwise).
* ``msg``: a string replaces the message of a value or attribute mismatch; a callable gets
  the generated message and returns the one to raise.

Errors: AssertionError for a mismatch, TypeError for inputs it cannot compare, ValueError
for a lone ``rtol`` / ``atol``.
"""
import cmath
import collections.abc

import numpy as np

from .._core import dtype as _dtype
from .._tensor.tensor import Tensor

# {dtype: (rtol, atol)}: PyTorch's table (torch/testing/_comparison.py)
_DTYPE_PRECISIONS = {
    _dtype.float16: (0.001, 1e-5),
    _dtype.bfloat16: (0.016, 1e-5),
    _dtype.float32: (1.3e-6, 1e-5),
    _dtype.float64: (1e-7, 1e-7),
    _dtype.complex64: (1.3e-6, 1e-5),
    _dtype.complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: _dtype.int64, float: _dtype.float64, complex: _dtype.complex128}


class _Mismatch(Exception):
    """A failed comparison: the exception class to raise, its message, the item's path."""

    def __init__(self, kind, msg, id=()):
        super().__init__(msg)
        self.kind, self.msg, self.id = kind, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += "\n\nThe failure occurred for item %s" % "".join(
                    str([item]) for item in self.id)
            msg = msg(generated) if callable(msg) else generated
        return self.kind(msg)


def _tolerances(dtypes, rtol, atol, id):
    if (rtol is None) != (atol is None):
        raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or "
                        "omitted, but got no %s." % ("rtol" if rtol is None else "atol"), id)
    if rtol is not None:
        return rtol, atol
    pairs = [_DTYPE_PRECISIONS.get(dt, (0.0, 0.0)) for dt in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _mismatch_msg(kind, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0
    lines = ["%s are not %s!\n" % (kind, "equal" if equality else "close"), extra.strip()]
    for name, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol),
                                 ("relative", rel_diff, rel_idx, rtol)):
        line = ("%s difference: %s" % (name.title(), diff) if idx is None else
                "Greatest %s difference: %s at index %s" % (name, diff, idx))
        lines.append(line if equality else line + " (up to %s allowed)" % tol)
    return "\n".join(lines).strip()


def _scalar_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", "Expected %s but got %s." % (expected, actual), abs_diff,
                         None, atol, rel_diff, None, rtol)


def _tensor_msg(actual, expected, matches, rtol, atol):
    """PyTorch's statistics: the count of mismatches, the greatest absolute and relative
    differences among them (in the tensors' dtype; integers through int64, their relative
    difference in float32 as torch's true division gives) and their indices."""
    a, e, m = actual._data.reshape(-1), expected._data.reshape(-1), matches._data.reshape(-1)
    n = m.size
    bad = n - int(m.sum())
    extra = "Mismatched elements: %d / %d (%.1f%%)" % (bad, n, 100.0 * bad / n)
    if a.dtype.kind in "biu":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[m] = 0
        rel_diff = abs_diff / np.abs(e)
        if a.dtype.kind == "i":
            rel_diff = rel_diff.astype(np.float32)
        rel_diff[m] = 0

    def greatest(d):
        # torch.max(d, 0): a nan wins, else the first of the largest
        i = int(np.argmax(np.isnan(d))) if np.isnan(d).any() else int(np.argmax(d))
        return d[i].item(), (tuple(int(k) for k in np.unravel_index(i, matches.shape))
                             if matches.shape else ())

    (ad, ai), (rd, ri) = greatest(abs_diff), greatest(rel_diff)
    return _mismatch_msg("Tensor-likes", extra, ad, ai, atol, rd, ri, rtol)


def _unsupported(actual, expected, id):
    return _Mismatch(TypeError, "No comparison pair was able to handle inputs of type %s and "
                     "%s." % (type(actual), type(expected)), id)


def _leaf(actual, expected, id, allow_subclasses, rtol, atol, equal_nan, check_dtype,
          check_stride, **_):
    """Compare two non-container inputs; raise _Mismatch on a difference."""
    if actual is None or expected is None:
        if not (actual is None and expected is None):
            raise _Mismatch(AssertionError, "None mismatch: %s is not %s" % (actual, expected), id)
        return
    bools = (bool, np.bool_)
    if isinstance(actual, bools) and isinstance(expected, bools):
        if bool(actual) is not bool(expected):
            raise _Mismatch(AssertionError, "Booleans mismatch: %s is not %s"
                            % (bool(actual), bool(expected)), id)
        return
    numbers = (int, float, complex, np.number)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        return _numbers(actual, expected, id, rtol, atol, equal_nan, check_dtype)
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not related or (not allow_subclasses and type(actual) is not type(expected)):
        raise _unsupported(actual, expected, id)
    if not isinstance(actual, Tensor):
        from .._tensor.creation import as_tensor
        try:
            actual, expected = as_tensor(actual), as_tensor(expected)
        except Exception:                  # noqa: BLE001 - not a tensor-like: unsupported
            raise _unsupported(actual, expected, id) from None
    return _tensors(actual.detach(), expected.detach(), id, rtol, atol, equal_nan, check_dtype,
                    check_stride)


def _numbers(actual, expected, id, rtol, atol, equal_nan, check_dtype):
    actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    try:
        dtypes = [_NUMBER_DTYPES[type(x)] for x in (actual, expected)]
    except KeyError:
        raise _unsupported(actual, expected, id) from None
    rtol, atol = _tolerances(dtypes, rtol, atol, id)
    if check_dtype and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, "The (d)types do not match: %s != %s."
                        % (type(actual), type(expected)), id)
    if actual == expected:
        return
    if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_msg(actual, expected, rtol, atol), id)


def _tensors(actual, expected, id, rtol, atol, equal_nan, check_dtype, check_stride):
    from ..ops.elementwise.comparison import isclose
    from .._core.dtype import promote_types

    rtol, atol = _tolerances((actual.dtype, expected.dtype), rtol, atol, id)

    def attribute(name, a, e):
        raise _Mismatch(AssertionError, "The values for attribute '%s' do not match: %s != %s."
                        % (name, a, e), id)

    if actual.shape != expected.shape:
        attribute("shape", actual.shape, expected.shape)
    if check_stride and actual.stride() != expected.stride():
        attribute("stride()", actual.stride(), expected.stride())
    if check_dtype and actual.dtype != expected.dtype:
        attribute("dtype", actual.dtype, expected.dtype)
    if actual.dtype != expected.dtype:
        common = promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    matches = isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(matches._data.all()):
        return
    if actual.shape == ():
        raise _Mismatch(AssertionError, _scalar_msg(actual.item(), expected.item(), rtol, atol),
                        id)
    raise _Mismatch(AssertionError, _tensor_msg(actual, expected, matches, rtol, atol), id)


def _walk(actual, expected, id, out):
    """Pair the leaves of two nested sequences / mappings (PyTorch's ``originate_pairs``)."""
    seq, mapping = collections.abc.Sequence, collections.abc.Mapping
    if (isinstance(actual, seq) and not isinstance(actual, str)
            and isinstance(expected, seq) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, "The length of the sequences mismatch: %d != %d"
                            % (len(actual), len(expected)), id)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _walk(a, e, id + (i,), out)
    elif isinstance(actual, mapping) and isinstance(expected, mapping):
        have, want = set(actual.keys()), set(expected.keys())
        if have != want:
            msg = "The keys of the mappings do not match:\n"
            if want - have:
                msg += "Missing keys in the actual mapping: %s\n" % sorted(want - have)
            if have - want:
                msg += "Additional keys in the actual mapping: %s\n" % sorted(have - want)
            raise _Mismatch(AssertionError, msg.strip(), id)
        keys = list(have)
        try:
            keys = sorted(keys)
        except TypeError:
            pass
        for k in keys:
            _walk(actual[k], expected[k], id + (k,), out)
    else:
        out.append((actual, expected, id))
    return out


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Assert that ``actual`` and ``expected`` are close (``torch.testing.assert_close``).

    Tensors are close where ``|actual - expected| <= atol + rtol * |expected|`` elementwise
    (``isclose``) and their shape (and dtype, with ``check_dtype``) match; numbers likewise.
    Default ``(rtol, atol)`` by dtype: float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5),
    float32 / complex64 (1.3e-6, 1e-5), float64 / complex128 (1e-7, 1e-7), others (0, 0).

    Raises:
        AssertionError: a mismatch, with PyTorch's message (``msg`` overrides it).
        TypeError: inputs no comparison handles (a tensor against a number, two strings).
        ValueError: only one of ``rtol`` / ``atol`` given.
    """
    __tracebackhide__ = True
    try:
        leaves = _walk(actual, expected, (), [])
    except _Mismatch as mismatch:
        raise mismatch.to_error() from None
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol,
                   equal_nan=equal_nan, check_dtype=check_dtype, check_stride=check_stride)
    # as PyTorch: inputs it cannot compare anywhere fail before any value mismatch
    found = []
    for a, e, id in leaves:
        try:
            _leaf(a, e, id, **options)
        except _Mismatch as mismatch:
            if mismatch.kind is not AssertionError:
                raise mismatch.to_error() from None
            found.append(mismatch)
    if found:
        raise found[0].to_error(msg) from None
