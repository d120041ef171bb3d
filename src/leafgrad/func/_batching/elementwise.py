"""vmap's batching rules for elementwise ops: broadcasting ops of several tensors
(add, mul, where, comparisons, ...) and ops of one tensor with non-tensor options
(activations, clamp, ...). PyTorch: BatchRulesBinaryOps.cpp, BatchRulesUnaryOps.cpp,
BatchRulesActivation.cpp.
"""
from ...autograd._batching_state import Unbatchable
from ..._tensor.tensor import Tensor
from .tensor import BatchedTensor, _pad, _same, _size_of, _tensor_args, _wrap


def _elementwise(fn):
    """An op broadcasting its tensor operands elementwise (numbers pass through)."""
    def rule(*args, **kwargs):
        ts = _tensor_args(args, kwargs)
        size = _size_of(ts)
        if size is None:
            return fn(*args, **kwargs)
        rank = max(t.dim() for t in ts)

        def phys(a):
            return _pad(a._bv, rank) if type(a) is BatchedTensor else a
        return _wrap(fn(*[phys(a) for a in args], **{k: phys(v) for k, v in kwargs.items()}),
                     size)
    return rule


def _unary(fn):
    """An op of one batched tensor and non-tensor options (activations, clamp, ...)."""
    def rule(x, *args, **kwargs):
        if type(x) is not BatchedTensor:
            if _size_of(_tensor_args(args, kwargs)) is not None:
                raise Unbatchable()
            return fn(x, *args, **kwargs)
        if kwargs.get("inplace") or _tensor_args(args, kwargs):
            raise Unbatchable()
        return _wrap(fn(x._bv, *args, **kwargs), x._bb)
    return rule


_BINARY = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
           "__rtruediv__", "__pow__", "__rpow__", "__eq__", "__ne__", "__lt__", "__le__",
           "__gt__", "__ge__", "add", "sub", "mul", "div", "pow", "maximum", "minimum")


_UNARY = ("__neg__", "__abs__", "neg", "abs", "exp", "log", "tanh", "sigmoid", "relu", "sin",
          "cos", "sqrt", "rsqrt", "square", "log1p", "expm1", "reciprocal", "clamp", "clip",
          "float", "double", "softplus")


def install_methods(BatchedTensor):
    for name in _BINARY:
        base = getattr(Tensor, name, None)
        if base is None:
            continue

        def method(self, *args, _base=base, **kwargs):
            return _elementwise(_base)(self, *args, **kwargs)
        method.__name__ = name
        setattr(BatchedTensor, name, method)
    BatchedTensor.__hash__ = Tensor.__hash__    # the __eq__ rule above would unset it
    for name in _UNARY:
        if hasattr(Tensor, name):
            setattr(BatchedTensor, name, _same(name))


def function_rules(L, F):
    """(holder, name, rule factory) for the module-level functions with a rule here."""
    out = []
    for name in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "where"):
        out.append((L, name, _elementwise))
    for name in ("exp", "log", "tanh", "sigmoid", "relu", "sin", "cos", "sqrt", "rsqrt",
                 "square", "log1p", "expm1", "abs", "neg", "clamp", "clip", "reciprocal"):
        out.append((L, name, _unary))
    for name in ("relu", "gelu", "silu", "tanh", "sigmoid", "softplus", "elu", "leaky_relu",
                 "relu6", "hardtanh", "mish", "logsigmoid", "dropout"):
        out.append((F, name, _unary))
    return out
