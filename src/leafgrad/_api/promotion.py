"""``torch.result_type`` and ``torch.can_cast``: PyTorch's type promotion asked directly.

``result_type(a, b)`` (two tensors and/or Python numbers) is the dtype ``a + b`` would have
(``_dtype.result_type``: tensors with dims over 0-d tensors over numbers, a higher category
only from a lower-priority operand). ``can_cast(from_, to)`` is c10's ``canCast``: no
complex -> real, no floating -> integral, no non-bool -> bool.
Errors: TypeError for other arguments (PyTorch's class).
"""
import numbers

from .._core import dtype as _dtype
from .._tensor.tensor import Tensor


def _operand(x):
    return isinstance(x, Tensor) or (isinstance(x, numbers.Number) and not isinstance(x, Tensor))


def result_type(tensor, other):
    """The dtype of an op over ``tensor`` and ``other`` (Tensors or Python numbers)."""
    if not (_operand(tensor) and _operand(other)):
        raise TypeError("result_type() received an invalid combination of arguments - got (%s, "
                        "%s). Fix: pass two tensors, or a tensor and a number, or two numbers"
                        % (type(tensor).__name__, type(other).__name__))
    return _dtype.result_type(tensor, other)


def can_cast(from_, to):
    """Whether PyTorch's casting rules allow an in-place op to write ``from_`` into ``to``."""
    for pos, (name, d) in enumerate((("from_", from_), ("to", to)), 1):
        if not isinstance(d, _dtype.dtype):
            raise TypeError("can_cast(): argument '%s' (position %d) must be torch.dtype, not %s. "
                            "Fix: pass dtypes (a tensor's .dtype)" % (name, pos, type(d).__name__))
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    return not (from_ is not _dtype.bool_ and to is _dtype.bool_)
