"""Differential harness: run one case function with real PyTorch and with leafgrad.

A case is ``def case_name(torch, R)``: it uses only the module it is given
(``torch.autograd.grad``, ``torch.autograd.functional.jacobian`` ...) and
records what it observes with ``R(name, value)`` and
``R.error(name, fn)``. Both runs must record the same names in the same
order; values compare as in ``shared/compat`` (same kind, tensors same shape,
dtype and allclose), errors by the nearest built-in exception class, and the
warning categories seen while the case ran must match.
"""
import warnings

import numpy as np

try:
    import torch as real_torch
except ImportError:  # pragma: no cover - the venv has torch
    real_torch = None

import leafgrad
from _outcome import builtin_name

# Warnings PyTorch gives only once per process (TORCH_WARN_ONCE): the order
# in which cases run decides whether they show, so they are checked apart.
_ONCE = ("Using backward() with create_graph=True",)


class Recorder:
    def __init__(self):
        self.records = []

    def __call__(self, name, value):
        self.records.append((name, encode(value)))

    def error(self, name, fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            self.records.append((name, ("error", builtin_name(type(e)), str(e))))
            return e
        self.records.append((name, ("error", None, "no error")))
        return None


def _is_tensor(v):
    return hasattr(v, "shape") and hasattr(v, "dtype") and hasattr(v, "tolist") \
        and not isinstance(v, (np.ndarray, np.generic))


def encode(v):
    if v is None or isinstance(v, (bool, str)):
        return ("val", v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        return ("num", type(v) is int, float(v))
    if _is_tensor(v):
        return ("tensor", tuple(int(s) for s in v.shape), str(v.dtype).rsplit(".", 1)[-1],
                np.array(v.detach().tolist(), dtype=np.complex128 if v.is_complex()
                         else np.float64))
    if isinstance(v, np.ndarray):
        return ("ndarray", v.shape, v.dtype.name, v.astype(np.float64))
    if isinstance(v, dict):
        return ("dict", tuple((str(k), encode(x)) for k, x in v.items()))
    if isinstance(v, (tuple, list)):
        return ("tuple" if isinstance(v, tuple) else "list", tuple(encode(x) for x in v))
    if type(v).__name__ == "dtype":
        return ("dtype", str(v).rsplit(".", 1)[-1])
    return ("other", type(v).__name__)


def same(a, b):
    """True when two encoded values agree (compat rules)."""
    if a[0] != b[0]:
        return False
    kind = a[0]
    if kind == "tensor":
        return a[1] == b[1] and a[2] == b[2] and np.allclose(a[3], b[3], rtol=1e-4, atol=1e-5,
                                                             equal_nan=True)
    if kind == "ndarray":
        return a[1] == b[1] and np.allclose(a[3], b[3], rtol=1e-4, atol=1e-5, equal_nan=True)
    if kind == "num":
        return a[1] == b[1] and np.isclose(a[2], b[2], rtol=1e-4, atol=1e-5, equal_nan=True)
    if kind == "error":
        return a[1] == b[1]
    if kind == "dict":
        return [k for k, _ in a[1]] == [k for k, _ in b[1]] and all(
            same(x, y) for (_, x), (_, y) in zip(a[1], b[1]))
    if kind in ("tuple", "list"):
        return len(a[1]) == len(b[1]) and all(same(x, y) for x, y in zip(a[1], b[1]))
    return a == b


def run(case, module):
    """Run ``case`` with ``module`` as torch: (records, warning categories, error)."""
    R = Recorder()
    err = None
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            case(module, R)
        except Exception as e:  # noqa: BLE001
            err = e
    cats = sorted({builtin_name(w.category) for w in ws
                   if not any(str(w.message).startswith(o) for o in _ONCE)
                   and not issubclass(w.category, (DeprecationWarning, FutureWarning))})
    return R.records, cats, err


def compare(case):
    """Assert ``case`` behaves the same with real torch and with leafgrad."""
    exp, exp_w, exp_err = run(case, real_torch)
    assert exp_err is None, "the case itself fails under torch: %r" % (exp_err,)
    got, got_w, got_err = run(case, leafgrad)
    problems = []
    for i, (name, e) in enumerate(exp):
        if i >= len(got):
            problems.append("%s: not reached (%r)" % (name, got_err))
            break
        gname, g = got[i]
        if gname != name:
            problems.append("record %d: expected %s, got %s" % (i, name, gname))
            break
        if not same(e, g):
            problems.append("%s: expected %s\n   got %s" % (name, _show(e), _show(g)))
    if len(got) > len(exp):
        problems.append("extra records: %s" % [n for n, _ in got[len(exp):]])
    if got_err is not None and not problems:
        problems.append("leafgrad raised %r" % (got_err,))
    if exp_w != got_w:
        problems.append("warnings: torch %s, leafgrad %s" % (exp_w, got_w))
    assert not problems, "\n".join(problems)
    return got


def _show(e):
    if e[0] == "tensor":
        return "tensor%s %s %s" % (e[1], e[2], e[3].tolist())
    if e[0] == "error":
        return "%s: %s" % (e[1], e[2][:300])
    return repr(e)
