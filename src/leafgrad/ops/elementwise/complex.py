"""Complex numbers: real/imag parts (views), the conjugate (with PyTorch's conjugate
bit), angle, polar form, ``torch.complex``, ``view_as_real``/``view_as_complex``,
``isreal``.

Every rule here is written in PyTorch's complex convention (derivatives.yaml's
complex formulas; the nodes are listed in ``ops/_complex_rules.PYTORCH_CONVENTION``,
so the conjugating wrap that the holomorphic rules get is not applied to them).

PyTorch's ``conj()`` is lazy: it sets a conjugate bit on a view. NumPy has no such
view, so here ``conj()`` returns the conjugated values in new memory, marked
``is_conj()`` True (``resolve_conj`` clears the mark): values, dtypes, gradients and
the bit agree with PyTorch; an in-place write into ``x.conj()`` does not reach ``x``.
"""
import weakref

import numpy as np

from ..._core import dtype as _dtype, errors as _errors
from ..._tensor import meta as _meta
from ..._tensor.tensor import Tensor
from .._dispatch import mark_view, record
from .._registry import defop, node

_C = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128),
      np.dtype(np.float16): np.dtype(np.complex64)}
_CONJ = weakref.WeakValueDictionary()   # id -> tensor, for tensors whose conjugate bit is set


def _has_bit(t):
    return _CONJ.get(id(t)) is t


def _is_c(x):
    return x.dtype.kind == "c"


def _as_complex(g, like):
    """A real gradient as the complex input's gradient (imaginary part 0)."""
    return g.to(like) if not g.is_complex() else g


# -- real / imag (views) -------------------------------------------------------
RealBackward0 = node("RealBackward0", lambda ctx, g: (g + 0j,), saves=False)
ImagBackward0 = node("ImagBackward0", lambda ctx, g: (g * 1j,), saves=False)


@defop("real", method=False)
def real(input):
    """The real part of a complex tensor: a view (writes reach ``input``), float dtype
    of the same precision; a real tensor itself. Gradient: ``grad + 0j``
    (derivatives.yaml, real)."""
    x = input._data
    if not _is_c(x):
        return input
    return mark_view(record(RealBackward0, x.real, (input,)), input)


@defop("imag", method=False)
def imag(input):
    """The imaginary part of a complex tensor: a view (writes reach ``input``).
    Gradient: ``grad * 1j`` (derivatives.yaml, imag).

    Raises:
        RuntimeError: for a real tensor, as PyTorch.
    """
    x = input._data
    if not _is_c(x):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes. "
                           "Fix: only complex tensors have an imaginary part (it is 0 here)")
    return mark_view(record(ImagBackward0, x.imag, (input,)), input)


# -- conjugate -------------------------------------------------------------------
ConjBackward0 = node("ConjBackward0", lambda ctx, g: (g.conj(),), saves=False)
ConjPhysicalBackward0 = node("ConjPhysicalBackward0", lambda ctx, g: (g.conj_physical(),),
                             saves=False)


@defop("conj")
def conj(input):
    """The complex conjugate, with the conjugate bit set (``is_conj()`` True); a real
    tensor itself. Gradient: ``grad.conj()`` (derivatives.yaml, conj). See the module
    docstring for how the bit is kept."""
    x = input._data
    if not _is_c(x):
        return input
    res = record(ConjBackward0, np.conj(x), (input,))
    if not _has_bit(input):     # conj of conj: the bit flips back
        _CONJ[id(res)] = res
    return res


@defop("is_conj", inplace=False)
def is_conj(input):
    """True when ``input``'s conjugate bit is set (a result of ``conj()``)."""
    return _has_bit(input)


@defop("resolve_conj")
def resolve_conj(input):
    """``input`` with its conjugate bit cleared: the same values in a new tensor when
    the bit is set (differentiable, gradient passes through), else ``input`` itself."""
    if not _has_bit(input):
        return input
    return input.clone()


@defop("conj_physical", inplace=True, out=True)
def conj_physical(input):
    """The complex conjugate in new memory (no conjugate bit); real tensors are
    returned unchanged. Gradient: ``grad.conj_physical()`` (derivatives.yaml)."""
    x = input._data
    if not _is_c(x):
        return input
    return record(ConjPhysicalBackward0, np.conj(x), (input,))


# -- angle, polar, complex -------------------------------------------------------
def _angle_backward(ctx, g):
    # derivatives.yaml angle_backward: 0 where z == 0, else grad * z / |z|^2 * 1j
    z = ctx._checked_saved[0]
    if not z.is_complex():
        return (g * 0,)
    r = g * z / (z.abs() ** 2) * 1j
    return (r.masked_fill(z == 0, 0),)


AngleBackward0 = node("AngleBackward0", _angle_backward, saves=True)


@defop("angle", out=True)
def angle(input):
    """The argument of each element, in (-pi, pi]: float of the same precision for
    complex, 0 or pi for real (integers give the default float dtype). Gradient:
    derivatives.yaml angle_backward (0 for real inputs)."""
    x = input._data
    if _is_c(x):
        out = np.angle(x)
    else:
        dt = x.dtype if x.dtype.kind == "f" else _dtype.get_default_dtype().np
        out = np.where(x < 0, np.pi, 0.0).astype(dt)
        out[np.isnan(x)] = np.nan
    return record(AngleBackward0, out, (input,), saved=(input,))


def _check_pair(a, b):
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           "%s and %s. Fix: convert them, e.g. .float()"
                           % (_errors.type_name(a.dtype), _errors.type_name(b.dtype)))
    if a.dtype != b.dtype:
        raise RuntimeError("Expected object of scalar type %s but got scalar type %s for "
                           "second argument. Fix: give both the same dtype"
                           % (_errors.type_name(a.dtype), _errors.type_name(b.dtype)))


def _complex_backward(ctx, g):
    return (g.real if ctx.needs_input_grad[0] else None,
            g.imag if ctx.needs_input_grad[1] else None)


ComplexBackward0 = node("ComplexBackward0", _complex_backward, saves=False)


@defop("complex", method=False, out=True)
def complex(real, imag):
    """``real + 1j * imag`` (float32 -> complex64, float64 -> complex128; shapes
    broadcast). Gradient: real and imaginary parts of grad (derivatives.yaml, complex).

    Raises:
        RuntimeError: non-float or different dtypes, as PyTorch.
    """
    a, b = real._data, imag._data
    _check_pair(a, b)
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), _C[a.dtype])
    out.real, out.imag = a, b
    return record(ComplexBackward0, out, (real, imag))


def _polar_backward(ctx, g):
    # derivatives.yaml polar_backward (the result recomputed from the saved inputs, so
    # that a recorded backward differentiates through it)
    r = polar(*ctx._checked_saved)
    gc = g.conj()
    return ((gc * r.sgn()).real if ctx.needs_input_grad[0] else None,
            (gc * (r * 1j)).real if ctx.needs_input_grad[1] else None)


PolarBackward0 = node("PolarBackward0", _polar_backward, saves=True)


@defop("polar", method=False, out=True)
def polar(abs, angle):
    """``abs * (cos(angle) + 1j sin(angle))``, complex of the inputs' precision.
    Gradient: derivatives.yaml polar_backward.

    Raises:
        RuntimeError: non-float or different dtypes, as PyTorch.
    """
    a, t = abs._data, angle._data
    _check_pair(a, t)
    out = np.empty(np.broadcast_shapes(a.shape, t.shape), _C[a.dtype])
    out.real, out.imag = a * np.cos(t), a * np.sin(t)
    return record(PolarBackward0, out, (abs, angle), saved=(abs, angle))


# -- reinterpreting views ------------------------------------------------------------
ViewAsRealBackward0 = node("ViewAsRealBackward0",
                           lambda ctx, g: (view_as_complex(g.contiguous()),), saves=False)
ViewAsComplexBackward0 = node("ViewAsComplexBackward0",
                              lambda ctx, g: (view_as_real(g.resolve_conj()),), saves=False)


@defop("view_as_real", method=False)
def view_as_real(input):
    """A complex tensor's float view of shape ``(*input.shape, 2)`` (real, imag).

    Raises:
        RuntimeError: for a real tensor, or one with its conjugate bit set, as PyTorch.
    """
    x = input._data
    if not _is_c(x):
        raise RuntimeError("view_as_real is only supported for complex tensors. Fix: pass a "
                           "complex tensor, e.g. torch.complex(re, im)")
    if _has_bit(input):
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To "
                           "resolve the conjugate tensor so you can view it as real, use "
                           "self.resolve_conj()")
    fl = x.real.dtype
    if x.__class__ is _meta.MetaArray:
        out = _meta.strided(x, x.shape + (2,), x.strides + (fl.itemsize,), dtype=fl)
    else:
        out = np.lib.stride_tricks.as_strided(
            x.real, x.shape + (2,), x.strides + (fl.itemsize,), writeable=x.flags.writeable)
    return mark_view(record(ViewAsRealBackward0, out, (input,)), input)


@defop("view_as_complex", method=False)
def view_as_complex(input):
    """A float tensor of shape ``(..., 2)`` (last stride 1) seen as complex of shape
    ``(...)``.

    Raises:
        RuntimeError: wrong dtype, last dim not 2 or not of stride 1, as PyTorch.
    """
    x = input._data
    if x.dtype not in (np.float32, np.float64, np.float16):
        raise RuntimeError("view_as_complex is only supported for floating point tensors, "
                           "but got a tensor of scalar type: %s. Fix: convert it, e.g. "
                           ".float()" % _errors.type_name(x.dtype))
    if x.ndim == 0 or x.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if x.strides[-1] != x.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * x.itemsize) for s, n in zip(x.strides[:-1], x.shape[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last "
                           "dimension")
    out = x.view(_C[x.dtype])[..., 0]     # NumPy allows it: the last axis is contiguous
    return mark_view(record(ViewAsComplexBackward0, out, (input,)), input)


@defop("isreal", inplace=False)
def isreal(input):
    """True where the imaginary part is 0 (everywhere for real tensors); bool."""
    x = input._data
    return Tensor._make_plain(x.imag == 0 if _is_c(x) else np.ones(x.shape, bool))
