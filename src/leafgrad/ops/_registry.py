"""One declaration per op: the table everything public is derived from.

Each op is declared once, next to its rule in its family file (``unary.py``,
``binary.py``, ``reduction.py``, ...), either by the family's factory (``unary(...)``,
``binary(...)``: PyTorch's name, the NumPy forward, the ``grad_fn`` name, one
vector-Jacobian product per input written with leafgrad ops, an optional NumPy
fast-path rule, what the node saves) or, for a hand-written op, with the
:func:`defop` decorator over its function. The declaration also states the
forms the op appears as and PyTorch's argument rules:

``function``  ``torch.X``            (True: the op itself; a function: that one)
``method``    ``Tensor.X``           (True: the op itself, bound directly: no wrapper)
``inplace``   ``Tensor.X_``          (True: derived through ``ops.inplace.arithmetic.apply``, so the
                                      version bump and the leaf/view checks are the shared
                                      ones; ``"view"``: a shape op's in-place form, which
                                      changes the tensor's shape; a function: that one)
``functional`` ``nn.functional.X``
``aliases``   other PyTorch names with the same forms (``clip`` for ``clamp``)
``numbers``   which operands may be Python numbers: ``"both"``, ``"other"`` (the
              first must be a tensor) or ``"none"`` (``torch.atan2(t, 1.5)`` raises
              TypeError in PyTorch); None for ops that are not binary
``out``       the op accepts ``out=`` (PyTorch's rules: see ``ops._out``)

From the table, ``leafgrad._api.functions`` builds ``torch.X``, ``leafgrad._api.methods``
the Tensor methods and in-place variants, ``nn.functional`` its functional forms,
and ``tests/gen_ops_doc.py`` writes ``docs/ops.md``. This module imports nothing
from leafgrad but the graph's ``Node``: the family files import it.
"""
from ..autograd.graph import Node

OPS = {}        # PyTorch name -> OpDef, in declaration order
_TAKEN = set()  # every declared name and alias (the "declared twice" check, O(1) per name)


class OpDef:
    """The declaration of one op (see the module docstring for the fields)."""

    __slots__ = ("name", "fn", "family", "function", "method", "inplace", "functional",
                 "aliases", "numbers", "grad_fn", "out")

    def __init__(self, name, fn, family, function, method, inplace, functional, aliases,
                 numbers, grad_fn, out):
        self.name, self.fn, self.family = name, fn, family
        self.function, self.method, self.inplace = function, method, inplace
        self.functional, self.aliases, self.numbers = functional, tuple(aliases), numbers
        self.grad_fn, self.out = grad_fn, out

    def form(self, kind):
        """The callable of form ``kind`` ('function', 'method', 'functional'), or None."""
        f = getattr(self, kind)
        return self.fn if f is True else (f or None)

    def names(self):
        return (self.name,) + self.aliases

    def __repr__(self):
        return "OpDef(%r, family=%r)" % (self.name, self.family)


_NUMBERS = (None, "both", "other", "none")


def defop(name, fn=None, *, function=True, method=True, inplace=False, functional=False,
          aliases=(), numbers=None, grad_fn=None, out=False, family=None):
    """Declare op ``name`` (PyTorch's name); as a decorator (``@defop("clamp", ...)``)
    or called with the function. Returns the function unchanged (no wrapper).

    Raises:
        ValueError: a name declared twice, or an unknown ``numbers`` rule.
    """
    if numbers not in _NUMBERS:
        raise ValueError("numbers=%r: one of %s" % (numbers, _NUMBERS))

    def register(f):
        names = (name,) + tuple(aliases)
        for n in names:
            if n in _TAKEN:
                raise ValueError("op %r declared twice" % n)
        fam = family or f.__module__.rsplit(".", 1)[-1]
        gf = grad_fn if grad_fn is not None else getattr(getattr(f, "node", None),
                                                         "__name__", None)
        OPS[name] = OpDef(name, f, fam, function, method, inplace, functional, aliases,
                          numbers, gf, out)
        _TAKEN.update(names)
        if getattr(f, "__name__", "op") in ("op", "<lambda>"):
            f.__name__ = f.__qualname__ = name
        return f
    return register if fn is None else register(fn)


def functional_ops(namespace, names, **forms):
    """Declare ``names`` (functions in ``namespace``, a family module's globals()) as
    ``nn.functional`` ops; ``forms`` as for :func:`defop` (default: functional only)."""
    forms = dict({"function": False, "method": False, "functional": True}, **forms)
    for n in names:
        defop(n, namespace[n], **forms)


def add_form(name, **forms):
    """Give the declared op ``name`` another form (``functional=F.relu`` for ``relu``,
    declared with the elementwise ops)."""
    d = OPS[name]
    for kind, f in forms.items():
        if kind not in ("function", "method", "inplace", "functional"):
            raise ValueError("unknown form %r" % kind)
        setattr(d, kind, f)


_NO_DERIVATIVE = {}


def no_derivative(aten, fix="detach() the input first, or compute without autograd"):
    """The node of an op PyTorch records without a derivative (``grad_fn=<NotImplemented>``:
    the result requires grad, backward raises): floor_divide, histogram, ... One class
    per (aten name, fix).

    Its backward raises RuntimeError("derivative for aten::<aten> is not implemented")."""
    cls = _NO_DERIVATIVE.get((aten, fix))
    if cls is None:
        def backward(ctx, g):
            raise RuntimeError("derivative for aten::%s is not implemented. Fix: %s"
                               % (aten, fix))
        cls = _NO_DERIVATIVE[(aten, fix)] = node("NotImplemented", backward, saves=False)
    return cls


def node(name, backward, *, saves, np_backward=None, slots=(), **attrs):
    """The one node factory: a ``Node`` subclass called ``name`` (PyTorch's grad_fn name).

    Args:
        backward: ``backward(ctx, g)`` -> one gradient (or None) per input, written
            with leafgrad ops so that it differentiates again.
        saves: required. True when ``backward`` reads saved tensors or the saved
            result (``record(saved=...)``, ``save_result=True``): the engine frees them
            after a backward without ``retain_graph`` only for such nodes, and a second
            backward through the node then raises.
        np_backward: the same rule on ndarrays, used when the backward pass is not
            recorded (the fast path).
        slots: extra ``__slots__`` for rules that keep state on the node.
    """
    body = {"__slots__": tuple(slots), "saves": bool(saves), "backward": backward}
    if np_backward is not None:
        body["np_backward"] = np_backward
    body.update(attrs)
    return type(name, (Node,), body)
