"""``torch.special``: PyTorch's special-function namespace.

Every name is a declared op (``leafgrad.ops.elementwise.special``, ``ops.elementwise.special_binary`` and the
elementwise / activation / reduction families): the ops PyTorch has only here are
declared as ``special_X`` (ATen's names) and appear below as ``X``; the others are the
same functions as ``torch.X`` under PyTorch's names (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ``psi`` is ``digamma``, ...).
"""
from .ops._forms import function_form as _function_form
from .ops._registry import OPS


def _op(name):
    return _function_form(OPS[name])      # with out= where declared (as torch.special's)


# declared special_X ops, under their torch.special names
for _n, _d in list(OPS.items()):
    if _n.startswith("special_"):
        globals()[_n[len("special_"):]] = _function_form(_d)

# the same functions as torch.X, under torch.special's names (PyTorch's aliases)
_ALIASES = {
    "expit": "sigmoid", "gammaln": "lgamma", "psi": "digamma", "multigammaln": "mvlgamma",
    "gammainc": "igamma", "gammaincc": "igammac",
}
_SAME = ("digamma", "erf", "erfc", "erfinv", "exp2", "expm1", "i0", "log1p", "logit",
         "polygamma", "round", "sinc", "xlogy", "logsumexp")
for _n, _target in _ALIASES.items():
    globals()[_n] = _op(_target)
for _n in _SAME:
    globals()[_n] = _op(_n)


def softmax(input, dim, *, dtype=None):
    """``torch.special.softmax``: :func:`torch.nn.functional.softmax` (dim required)."""
    from .ops.nn.activation import softmax as f
    return f(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """``torch.special.log_softmax``: :func:`torch.nn.functional.log_softmax`."""
    from .ops.nn.activation import log_softmax as f
    return f(input, dim, dtype=dtype)


__all__ = sorted(n for n in dir() if not n.startswith("_") and n != "OPS")
