"""PyTorch's names for what a built-in node keeps for its backward: ``grad_fn._saved_self``,
``_saved_other``, ``_saved_exponent``, ``_saved_dim``, ``_saved_self_sym_sizes``, ...
(PyTorch generates them from the argument names of tools/autograd/derivatives.yaml).

``TORCH_NAMES``: node class name -> (names of the saved tensors by position, names of the
node's ``args`` by position: a tuple with None for what PyTorch keeps under no name, or
one name for the whole ``args``). ``DERIVED``: names PyTorch saves that leafgrad computes
from what it keeps (a function of the node). ``graph.Node`` turns both into properties of
each node class; ``utils.viz`` shows them. Checked against real torch in
tests/autograd/test_saved_names_vs_torch.py and tests/utils/test_viz_values.py.
"""
import math

__all__ = ["TORCH_NAMES", "DERIVED", "REDUCTION_CODES", "const_value"]

REDUCTION_CODES = {"none": 0, "mean": 1, "sum": 2}     # PyTorch saves the enum's value

_SELF_OTHER = (("self", "other"), ())
TORCH_NAMES = {
    "MulBackward0": _SELF_OTHER,
    "DivBackward0": _SELF_OTHER,
    "PowBackward0": (("self",), ("exponent", None)),
    "PowBackward1": (("self", "exponent"), ()),
    "PowBackward2": (("exponent",), ("self", None)),
    "MmBackward0": (("self", "mat2"), ()),
    "BmmBackward0": (("self", "mat2"), ()),
    "MvBackward0": (("self", "vec"), ()),
    "DotBackward0": (("self", "tensor"), ()),
    "AddmmBackward0": (("mat1", "mat2"), ()),
    "Atan2Backward0": (("self", "other"), ()),
    "BinaryCrossEntropyBackward0": (("self", "target", "weight"), ("reduction", None)),
    "MseLossBackward0": (("self", "target"), ("reduction", None)),
    "SumBackward0": ((), ("self_sym_sizes", None, None)),
    "SumBackward1": ((), ("self_sym_sizes", "dim", "keepdim")),
    "MeanBackward0": ((), ("self_sym_sizes", None, None, "self_sym_numel")),
    "MeanBackward1": ((), ("self_sym_sizes", "dim", "keepdim", None)),   # leafgrad: count
    "SoftmaxBackward0": ((), "dim"),
    "LogSoftmaxBackward0": ((), "dim"),
    "UnsqueezeBackward0": ((), "dim"),
    "LeakyReluBackward0": (("self",), "negative_slope"),
    "ClampBackward1": (("self",), ("min", "max")),
    "LogBackward0": (("self",), ()),
    "MaxBackward1": (("self",), ()),
    "MinBackward1": (("self",), ()),
    "PermuteBackward0": ((), "dims"),
    "TransposeBackward0": ((), ("dim0", "dim1")),
    "ViewBackward0": ((), "self_sym_sizes"),
    "UnsafeViewBackward0": ((), "self_sym_sizes"),
    "ExpandBackward0": ((), "self_sym_sizes"),
    "CatBackward0": ((), ("dim", None)),
    "StackBackward0": ((), "dim"),
    "SqueezeBackward0": ((), "self_sym_sizes"),
    "MaxBackward0": ((), ("self_sym_sizes", "dim", "keepdim", "indices")),
    "MinBackward0": ((), ("self_sym_sizes", "dim", "keepdim", "indices")),
    "AmaxBackward0": (("self",), (None, "dim", "keepdim")),
    "AminBackward0": (("self",), (None, "dim", "keepdim")),
    "LogsumexpBackward0": (("self",), ("dim", "keepdim")),
    "HardtanhBackward0": (("self",), ("min_val", "max_val")),
    "CumsumBackward0": ((), "dim"),
    "FlipBackward0": ((), "dims"),
    "RollBackward0": ((), ("shifts", "dims")),
    "RepeatBackward0": ((), ("self_sym_sizes", "repeats")),
    "UnbindBackward0": ((), "dim"),
    "IndexSelectBackward0": ((), ("self_sym_sizes", "dim", "index")),
    "MaskedFillBackward0": ((), ("mask", None)),
    "WhereBackward0": ((), ("condition",)),
}


def _sizes(attr):
    return lambda node: tuple(getattr(node, "_saved_" + attr).shape)


def _strides(attr):
    return lambda node: tuple(getattr(node, "_saved_" + attr).stride())


def _one(node):
    # leafgrad records add(a, b, alpha=k) as a + (k * b): the add node's own alpha is 1
    return 1


def _scale(i):
    # addmm with beta/alpha keeps (beta, alpha) as args; the plain one keeps none (1, 1)
    return lambda node: node.args[i] if type(node.args) is tuple else 1


def _layouts(*attrs):
    out = {}
    for a in attrs:
        out[a + "_sym_sizes"], out[a + "_sym_strides"] = _sizes(a), _strides(a)
    return out


DERIVED = {
    "MmBackward0": _layouts("self", "mat2"),
    "AddmmBackward0": dict(_layouts("mat1", "mat2"), beta=_scale(0), alpha=_scale(1)),
    "MeanBackward1": {"self_sym_numel": lambda node: math.prod(node.args[0])},
    "AddBackward0": {"alpha": _one},
    "SubBackward0": {"alpha": _one},
    "RsubBackward0": {"alpha": _one},
    "RsubBackward1": {"alpha": _one},
}


def const_value(name, value):
    """An ``args`` entry as PyTorch's attribute gives it: dims and sizes as tuples of
    ints, reductions as their enum value (an ndarray becomes a tensor in graph.py)."""
    if name == "reduction" and isinstance(value, str):
        return REDUCTION_CODES[value]
    if name in ("dim", "dims", "shifts", "repeats", "self_sym_sizes") and \
            isinstance(value, (list, tuple)):
        return tuple(int(v) for v in value)
    return value
