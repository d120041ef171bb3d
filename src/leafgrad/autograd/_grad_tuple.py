"""The tuple ``autograd.grad`` returns: a plain tuple to every use PyTorch's
has (indexing, unpacking, ``len``, concatenation, ``isinstance(g, tuple)``,
printing as ``(tensor(...),)``), but used as a number (``0.1 * g``,
``b - 0.1 * g``, ``float(g)``, ``g.item()``) it raises the same TypeError /
AttributeError Python raises for a tuple, with the fix: index it first."""
from .._core import errors as _errors

__all__ = ["GradTuple"]


def _refuse(symbol, swap=False):
    def op(self, other):
        if not swap and isinstance(other, tuple) and symbol in ("+", "*") or (
                symbol == "*" and type(other) is int):
            return getattr(tuple, {"+": "__add__", "*": "__mul__"}[symbol])(self, other)
        left, right = ("tuple", type(other).__name__)[::-1 if swap else 1]
        raise TypeError("unsupported operand type(s) for %s: '%s' and '%s': %s"
                        % (symbol, left, right, _errors.grad_tuple_hint()))
    return op


def _refuse_unary(what):
    def op(self, *args):
        raise TypeError("%s of a tuple: %s" % (what, _errors.grad_tuple_hint()))
    return op


class GradTuple(tuple):
    """``autograd.grad``'s result (see the module docstring). Reports itself as
    ``tuple`` (``type(g).__name__``) and pickles and copies as a plain tuple."""

    __slots__ = ()

    __neg__ = _refuse_unary("unary -")
    __abs__ = _refuse_unary("abs()")
    __float__ = _refuse_unary("float()")
    __int__ = _refuse_unary("int()")

    def __radd__(self, other):      # tuple + g concatenates (a plain tuple on the left)
        if isinstance(other, tuple):
            return tuple(other) + tuple(self)
        raise TypeError("unsupported operand type(s) for +: '%s' and 'tuple': %s"
                        % (type(other).__name__, _errors.grad_tuple_hint()))

    def __format__(self, spec):
        if spec:
            raise TypeError("unsupported format string passed to tuple.__format__: %s"
                            % _errors.grad_tuple_hint())
        return tuple.__format__(self, spec)

    def __getattr__(self, name):
        from .._tensor.tensor import Tensor
        if not name.startswith("__") and hasattr(Tensor, name):
            raise AttributeError("'tuple' object has no attribute '%s': %s"
                                 % (name, _errors.grad_tuple_hint()))
        raise AttributeError("'tuple' object has no attribute '%s'" % name)

    def __reduce__(self):
        return (tuple, (tuple(self),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        import copy
        return GradTuple(copy.deepcopy(tuple(self), memo))


for _sym, _name in (("+", "add"), ("*", "mul"), ("-", "sub"), ("/", "truediv"),
                   ("//", "floordiv"), ("**", "pow"), ("@", "matmul")):
    setattr(GradTuple, "__%s__" % _name, _refuse(_sym))
    if _name != "add":          # __radd__ above: a plain tuple on the left concatenates
        setattr(GradTuple, "__r%s__" % _name, _refuse(_sym, swap=True))
del _sym, _name

# type(g) shows as PyTorch's <class 'tuple'>; pickling and copying give plain tuples
GradTuple.__name__ = GradTuple.__qualname__ = "tuple"
GradTuple.__module__ = "builtins"
