"""``nn.functional``'s in-place activations: ``elu_``, ``celu_``, ``selu_``,
``leaky_relu_``, ``hardtanh_``, ``threshold_``, ``rrelu_`` (``relu_`` lives with relu).

Each is its activation with ``inplace=True`` (``ops.inplace.arithmetic.apply``: version bump,
refusal on a leaf that requires grad, views see the change); the node is shown under
PyTorch's name for the in-place kernel (``EluBackward1``, ``LeakyReluBackward1``, ...).
PyTorch also has ``torch.celu_``, ``torch.selu_``, ``torch.threshold_``, ``torch.rrelu_``
(the same functions); it has no ``Tensor.X_`` method for these.
"""
from . import activation as A
from .._registry import defop

_RENAMED = {}


def _in_place_name(t, old, new):
    """``t``'s grad_fn shown as ``new`` (PyTorch's in-place node) when it is ``old``."""
    node = t._grad_fn
    if node is not None and type(node).__name__ == old:
        cls = _RENAMED.get((type(node), new))
        if cls is None:
            cls = _RENAMED[type(node), new] = type(new, (type(node),), {"__slots__": ()})
        node.__class__ = cls
    return t


@defop("elu_", function=False, method=False, functional=True)
def elu_(input, alpha=1.0):
    """In-place ``F.elu``: ``input`` becomes ``elu(input, alpha)`` and is returned.

    Raises:
        RuntimeError: on a leaf that requires grad, with grad mode on (as PyTorch)."""
    return _in_place_name(A.elu(input, alpha, inplace=True), "EluBackward0", "EluBackward1")


@defop("celu_", method=False, functional=True)
def celu_(input, alpha=1.0):
    """In-place ``F.celu`` (``torch.celu_`` too). Raises as :func:`elu_`."""
    return _in_place_name(A.celu(input, alpha, inplace=True), "CeluBackward0", "CeluBackward1")


@defop("selu_", method=False, functional=True)
def selu_(input):
    """In-place ``F.selu`` (``torch.selu_`` too; PyTorch's node: ``EluBackward1``).
    Raises as :func:`elu_`."""
    t = A.selu(input, inplace=True)
    return _in_place_name(_in_place_name(t, "SeluBackward0", "EluBackward1"), "EluBackward0",
                          "EluBackward1")


@defop("leaky_relu_", function=False, method=False, functional=True)
def leaky_relu_(input, negative_slope=0.01):
    """In-place ``F.leaky_relu``. Raises as :func:`elu_`."""
    return _in_place_name(A.leaky_relu(input, negative_slope, inplace=True),
                          "LeakyReluBackward0", "LeakyReluBackward1")


@defop("hardtanh_", function=False, method=False, functional=True)
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place ``F.hardtanh`` (PyTorch's node: ``HardtanhBackward0``). Raises as
    :func:`elu_`."""
    return A.hardtanh(input, min_val, max_val, inplace=True)


@defop("threshold_", method=False, functional=True)
def threshold_(input, threshold, value):
    """In-place ``F.threshold`` (``torch.threshold_`` too): ``value`` where
    ``input <= threshold``. Raises as :func:`elu_`."""
    return _in_place_name(A.threshold(input, threshold, value, inplace=True),
                          "ThresholdBackward0", "ThresholdBackward1")


@defop("rrelu_", method=False, functional=True)
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place ``F.rrelu`` (``torch.rrelu_`` too; in training the slopes are drawn from
    the default generator as PyTorch). Raises as :func:`elu_`."""
    from .shrink import rrelu
    return _in_place_name(rrelu(input, lower, upper, training, inplace=True), "MulBackward0",
                          "RreluWithNoiseBackward1")
