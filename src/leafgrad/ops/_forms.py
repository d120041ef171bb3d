"""The public forms derived from the op declarations (``ops._registry.OPS``).

``functions()`` gives ``torch.X``, ``methods()`` the Tensor methods and in-place
variants, ``functional()`` the ``nn.functional`` names. Each is the declared
callable itself (no wrapper), except the in-place forms declared ``True`` or
``"view"``, made here once per op, and the Tensor methods of hand-written ops whose
function takes ``out=`` (``refusing_out``: PyTorch's methods take no ``out=``).
"""

import functools

from .._core import errors as _errors
from .._tensor.tensor import Tensor
from ..autograd.grad_mode import mode
from ..autograd._fw_state import active as _fw_level
from .inplace import arithmetic as _ip
from ._out import with_out
from ._registry import OPS
# every op family: importing one declares its ops (add a new family file here)
from .nn import (activation, activation_inplace, channel_shuffle, conv, conv_transpose, distance,
                 embedding, embedding_bag, grid_sample, instancenorm, local_response_norm, loss,
                 loss_likelihood, loss_margin, normalization, pixel_shuffle, pooling,
                 pooling_3d as pool3d, pooling_fractional as pool_fractional,
                 pooling_lp_unpool as pool_extra, shrink)
from .elementwise import (binary, comparison, complex as complex_ops, pointwise, special, bessel as special_bessel,
                          special_binary, polynomials as special_poly, unary)
from .linalg import (blas, cholesky as linalg_cholesky, decompositions as linalg_decomp,
                     diagonal as linalg_diagonal, inverse_det, ldl, norms, products as linalg,
                     qr as linalg_qr, solvers as linalg_solvers, vander)
from .fft import spectral as fft_spectral, transforms as fft_transforms
from .reduce import (cumulative, gradient as reduce_gradient, histogram, quantile, reduction,
                     stats, variance)
from . import elementwise
from .shape import (combinations, diagonals, indexed_writes, indexing, joins, rearrange, search,
                    sorting, splits, view_scatters, indexed_reduce, views as shape)
from .inplace import writes as inplace_write


def _doc_inplace(name, fn):
    first = (fn.__doc__ or "").strip().split("\n")[0]
    return ("In-place version of :meth:`Tensor.%s`: writes the result into ``self`` and "
            "returns it.%s\n\nRaises:\n    RuntimeError: on a leaf that requires grad (or a "
            "view of one) with grad mode on, or when the result's dtype cannot be cast to "
            "``self``'s (as PyTorch)." % (name, (" " + first) if first else ""))


def inplace_of(fn, name):
    """``Tensor.<name>`` computing ``fn(self, ...)`` and storing it into ``self`` through
    ``ops.inplace.arithmetic.apply`` (version bump, graph recording, leaf and view checks)."""
    apply = _ip.apply

    def method(self, *args, **kwargs):
        if kwargs:
            # keyword operands travel as positional 'others', so apply sees their
            # requires_grad (clamp_(min=t))
            keys, n = tuple(kwargs), len(args)
            return apply(self, name, lambda a, *o: fn(a, *o[:n], **dict(zip(keys, o[n:]))),
                         *args, *kwargs.values())
        return apply(self, name, fn, *args)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = _doc_inplace(name[:-1], fn)
    return method


# PyTorch's grad_fn names for the in-place forms of shape ops (t_ records TBackward1)
_INPLACE_VIEW_NODES = {"TBackward0": "TBackward1", "TransposeBackward0": "TransposeBackward1",
                       "UnsqueezeBackward0": "UnsqueezeBackward1",
                       "SqueezeBackward0": "SqueezeBackward3", "SqueezeBackward1": "SqueezeBackward4"}
_renamed_nodes = {}


def _inplace_node_class(cls):
    name = _INPLACE_VIEW_NODES.get(cls.__name__)
    if name is None:
        return cls
    sub = _renamed_nodes.get(cls)
    if sub is None:
        sub = _renamed_nodes[cls] = type(name, (cls,), {"__slots__": ()})
    return sub


def view_inplace_of(fn, name):
    """``Tensor.<name>`` of a shape op (``t_``, ``unsqueeze_``): ``self`` takes the shape
    and strides of ``fn(self, ...)`` (same memory); recorded like the op, refused on a
    leaf that requires grad; bumps the version, as PyTorch."""
    def method(self, *args, **kwargs):
        _ip._check_inference(self)
        if mode.enabled and self._requires_grad:
            _ip._check_leaf(self, name)
        new = fn(self, *args, **kwargs)
        self._data = new._data
        if _fw_level[0] is not None:     # forward AD: self takes the new tangent
            _fw_level[0].set(self, _fw_level[0].tangent(new))
        node = new._grad_fn
        if node is not None and self._requires_grad:
            node.__class__ = _inplace_node_class(type(node))
            self._grad_fn, self._output_nr = node, new._output_nr
            if self._base is not None:
                self._vmeta = new._vmeta
        self._bump_version()
        return self
    method.__name__ = method.__qualname__ = name
    method.__doc__ = ("In-place version of :meth:`Tensor.%s`: ``self`` takes the new shape "
                      "(same memory) and is returned.\n\nRaises:\n    RuntimeError: on a leaf "
                      "that requires grad, with grad mode on (as PyTorch)." % name[:-1])
    return method


def _takes_out(fn):
    code = getattr(fn, "__code__", None)
    return code is not None and "out" in code.co_varnames[
        :code.co_argcount + code.co_kwonlyargcount]


def accepts_out(fn):
    """True when ``fn`` or a function it wraps (``__wrapped__``: the out= and NumPy-alias
    wrappers) has an ``out`` parameter."""
    while fn is not None:
        if _takes_out(fn):
            return True
        fn = getattr(fn, "__wrapped__", None)
    return False


def refusing_out(fn, name):
    """``Tensor.<name>`` for an op whose function takes ``out=``: PyTorch's Tensor methods
    take no ``out=`` (TypeError), so neither does this one. (The unary and binary
    factories make such methods themselves, without this wrapper.)"""
    def method(self, *args, **kwargs):
        if "out" in kwargs:
            raise TypeError(_errors.method_out(name))
        return fn(self, *args, **kwargs)
    functools.update_wrapper(method, fn)
    return method


def _named_forms(kind):
    out = {}
    for d in OPS.values():
        f = d.form(kind)
        if f is not None:
            for n in d.names():
                out[n] = f
    return out


def functions():
    """``{name: callable}`` for ``leafgrad.X`` (aliases included). An op declared
    ``out=True`` whose function has no ``out`` parameter gets ``out=`` here
    (``ops._out.with_out``), on ``torch.X`` only: its Tensor method takes none, as
    PyTorch's."""
    out = {}
    for d in OPS.values():
        f = d.form("function")
        if f is not None:
            f = function_form(d, f)
            for n in d.names():
                out[n] = f
    return out


def function_form(d, f=None):
    """The declared op ``d``'s function ``f`` (default: its declared one) as a public
    function: with ``out=`` when declared ``out=True`` and ``f`` has no ``out`` itself,
    and with the declared ``numbers`` rule when ``f`` does not check it itself."""
    f = d.fn if f is None else f
    if d.out and not _takes_out(f):
        f = with_out(d.name)(f)
    if d.numbers in ("none", "other") and not getattr(f, "checks_numbers", False):
        f = tensor_operands(f, d.name, d.numbers)
    return f


_MISSING = object()


def tensor_operands(fn, name, numbers):
    """``fn`` refusing Python numbers as operands by PyTorch's rule for ``name``:
    ``numbers`` 'none' (both operands must be tensors: ``torch.kron(t, 2)`` raises
    TypeError there) or 'other' (the first must be). For the ops whose function does
    not check it itself (the binary factory's ops do, ``checks_numbers``)."""
    inner = fn
    while hasattr(inner, "__wrapped__"):
        inner = inner.__wrapped__
    names = inner.__code__.co_varnames[:2]
    second = numbers == "none"

    def op(*args, **kwargs):
        a = args[0] if args else kwargs.get(names[0])
        if not isinstance(a, Tensor):
            raise _errors.not_tensor(name, names[0], 1, a)
        if second:
            b = args[1] if len(args) > 1 else kwargs.get(names[1], _MISSING)
            if b is not _MISSING and not isinstance(b, Tensor):
                raise _errors.not_tensor(name, names[1], 2, b)
        return fn(*args, **kwargs)
    functools.update_wrapper(op, fn)
    op.checks_numbers = True
    return op


def functional():
    """``{name: callable}`` for ``leafgrad.nn.functional.X``."""
    return _named_forms("functional")


def methods():
    """``{name: callable}`` for the Tensor methods and their in-place forms."""
    out = _named_forms("method")
    for n, f in out.items():
        if _takes_out(f) and not getattr(f, "refuses_out", False):
            out[n] = refusing_out(f, n)
    for d in OPS.values():      # t.kron(2) raises TypeError as PyTorch (self is a tensor)
        if d.numbers == "none" and d.form("method") is not None:
            for n in d.names():
                if not getattr(out[n], "checks_numbers", False):
                    out[n] = tensor_operands(out[n], n, "none")
    for d in OPS.values():
        ip = d.inplace
        if not ip:
            continue
        base = d.form("method") or d.fn
        for n in d.names():
            if ip is True:
                out[n + "_"] = inplace_of(base, n + "_")
            elif ip == "view":
                out[n + "_"] = view_inplace_of(base, n + "_")
            else:
                if ip.__doc__ is None:      # help(Tensor.add_) says what it is
                    ip.__doc__ = _doc_inplace(n, base)
                out[n + "_"] = ip
    return out


# PyTorch's top-level in-place functions (``torch.sin_(t)``): it has them for these
# in-place forms only (there is no torch.add_ or torch.mul_); tests/test_op_forms.py
# checks this list against torch
TORCH_INPLACE = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan_", "arctanh_", "as_strided_", "asin_", "asinh_", "atan_", "atanh_", "ceil_",
    "clamp_", "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_",
    "deg2rad_", "detach_",
    "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_",
    "i0_", "index_put_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_",
    "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_",
    "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_",
    "xlogy_")


def inplace_functions(cls=Tensor):
    """``{name: callable}`` for ``torch.X_`` (``TORCH_INPLACE``): the bound ``Tensor.X_``
    itself, called with the tensor first; a non-tensor input raises TypeError as in
    PyTorch (the method would fail on it with an AttributeError)."""
    out = {}
    for name in TORCH_INPLACE:
        out[name] = _tensor_first(cls.__dict__[name], name, cls)
    return out


def _tensor_first(method, name, cls):
    def fn(input, *args, **kwargs):
        if not isinstance(input, cls):
            raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s. Fix: "
                            "pass a tensor (the op changes it in place)"
                            % (name, type(input).__name__))
        return method(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = method.__doc__
    fn.__wrapped__ = method
    return fn


def install_methods(cls=Tensor, explicit=None):
    """Bind the derived methods on ``cls``; ``explicit`` (operators and odd cases)
    wins over a derived method of the same name."""
    ms = methods()
    if explicit:
        ms.update(explicit)
    for name, fn in ms.items():
        setattr(cls, name, fn)
    return ms
