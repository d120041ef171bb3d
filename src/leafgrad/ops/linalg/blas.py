"""BLAS-style fused products: addmv, addr, baddbmm, addbmm (and their in-place forms).

Each is ``beta * input + alpha * P(a, b)`` with ``P`` a matrix-vector product, an outer
product, a batched matrix product, or the sum over the batch of matrix products.
``input`` broadcasts to P's shape; with ``beta == 0`` it is ignored (its NaN and inf do
not propagate), as PyTorch documents; with ``alpha == 0`` addmm, addmv and addbmm
ignore the product too (PyTorch's BLAS call does not read it), addr and baddbmm do not. Integer tensors take ``int(alpha)``,
``int(beta)`` (PyTorch's integer kernels do). Gradients (PyTorch's derivatives.yaml):
``input: g * beta``; the factors get ``alpha`` times the matching product of ``g`` with
the other factor (e.g. addmv: ``mat: alpha * outer(g, vec)``, ``vec: alpha * mat^T g``),
written with leafgrad ops so they differentiate again.
"""
import numpy as np

from ..._core import dtype as _dtype, errors as _errors
from ..._core.quiet import quiet as _quiet
from .._dispatch import record, to_tensor
from .._out import out_call
from .._registry import defop, node


def _scales(dt, beta, alpha):
    if dt.kind in "iu":
        return int(beta), int(alpha)
    return beta, alpha


def _combine(x, p, beta, alpha, gemm=False):
    """beta * x + alpha * p in p's dtype, x broadcast to p's shape (checked). ``gemm``:
    PyTorch computes p by a BLAS gemm/gemv call (addmm, addmv, addbmm), which does not
    read the factors when alpha == 0; addr and baddbmm multiply p by 0 (NaN stays)."""
    if x.dtype == np.bool_ and p.dtype == np.bool_:
        return (p & bool(alpha)) | (np.broadcast_to(x, p.shape) & bool(beta))
    b, a = _scales(p.dtype, beta, alpha)
    with _quiet():
        if a == 0 and gemm:     # the product is not referenced (its NaN, -0.0 do not show)
            out = np.zeros(p.shape, p.dtype)
            if b != 0:
                out[...] = x * b if b != 1 else x
            return out
        out = p * a if a != 1 else p.copy()
        if b != 0:
            out = out + (x * b if b != 1 else x)
    return np.asarray(out, dtype=p.dtype)


def _expand_check(x, shape):
    """PyTorch's expand error when ``input`` does not broadcast to the product's shape."""
    try:
        np.broadcast_to(x, shape)
    except ValueError:
        xs = list(x.shape)
        for i in range(1, min(len(xs), len(shape)) + 1):
            if xs[-i] != 1 and xs[-i] != shape[-i]:
                raise RuntimeError(
                    "The expanded size of the tensor (%d) must match the existing size (%d) at "
                    "non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s. Fix: "
                    "input must broadcast to the product's shape" % (
                        shape[-i], xs[-i], len(shape) - i, list(shape), xs)) from None
        raise RuntimeError("input of shape %s does not broadcast to %s. Fix: input must "
                           "broadcast to the product's shape" % (xs, list(shape))) from None


def _same_dtype(name, *ts):
    dts = [t._data.dtype for t in ts]
    if len(set(dts)) > 1:
        raise RuntimeError("%s input tensors must have the same dtype, but got %s. Fix: "
                           "convert them to one dtype, e.g. .float()" % (
                               name, ", ".join(_errors.type_name(d) for d in dts[:-1])
                               + ", and " + _errors.type_name(dts[-1])))


def _backward(grads):
    def backward(ctx, g):
        a, b = ctx._checked_saved
        beta, alpha = ctx.args
        ni, na, nb = ctx.needs_input_grad
        ga, gb = grads(g, a, b)
        return (g * beta if ni else None, ga(alpha) if na else None, gb(alpha) if nb else None)
    return backward


def _scaled(g, alpha):
    return g if alpha == 1 else g * alpha


AddmvBackward0 = node("AddmvBackward0", _backward(lambda g, m, v: (
    lambda al: _scaled(g.unsqueeze(-1) * v, al), lambda al: _scaled(m.t().mv(g), al))),
    saves=True)
AddmmBackward0 = node("AddmmBackward0", _backward(lambda g, m1, m2: (
    lambda al: _scaled(g.mm(m2.t()), al), lambda al: _scaled(m1.t().mm(g), al))), saves=True)
AddrBackward0 = node("AddrBackward0", _backward(lambda g, v1, v2: (
    lambda al: _scaled(g.mv(v2), al), lambda al: _scaled(g.t().mv(v1), al))), saves=True)
BaddbmmBackward0 = node("BaddbmmBackward0", _backward(lambda g, b1, b2: (
    lambda al: _scaled(g.bmm(b2.transpose(1, 2)), al),
    lambda al: _scaled(b1.transpose(1, 2).bmm(g), al))), saves=True)
AddbmmBackward0 = node("AddbmmBackward0", _backward(lambda g, b1, b2: (
    lambda al: _scaled(g.unsqueeze(0).expand(b1.shape[0], *g.shape).bmm(b2.transpose(1, 2)),
                       al),
    lambda al: _scaled(b1.transpose(1, 2).bmm(g.unsqueeze(0).expand(b1.shape[0], *g.shape)),
                       al))), saves=True)


_GEMM = (AddmvBackward0, AddbmmBackward0, AddmmBackward0)


def _addmm_scaled(input, a, b, p, beta, alpha):
    """``torch.addmm`` with beta or alpha other than 1, from the product ``p`` of the
    matrices ``a`` and ``b`` (checked by the caller): with beta == 0 ``input`` is
    ignored, as for the other ops here."""
    return _finish(AddmmBackward0, input, a, b, p, beta, alpha)


def _finish(cls, input, a, b, p, beta, alpha):
    x = input._data
    _expand_check(x, p.shape)
    out = _combine(x, p, beta, alpha, cls in _GEMM)
    return record(cls, out, (input, a, b), saved=(a, b), args=(beta, alpha))


@defop("addmv", inplace=True, out=True)
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``: mat (n, m), vec (m,), input broadcasting to
    (n,); the result is (n,).

    Raises:
        RuntimeError: mat not 2-D or vec not 1-D, mismatched sizes, or mixed dtypes.
    """
    if out is not None:
        return out_call("addmv", addmv, (input, mat, vec), {"beta": beta, "alpha": alpha}, out)
    input, mat, vec = to_tensor(input), to_tensor(mat), to_tensor(vec)
    m, v = mat._data, vec._data
    if m.ndim != 2 or v.ndim != 1 or input.dim() > 1:
        raise RuntimeError("vector + matrix @ vector expected, got %d, %d, %d. Fix: mat must "
                           "be 2-D and vec, input 1-D" % (input.dim(), m.ndim, v.ndim))
    if m.shape[1] != v.shape[0] or input.shape and input.shape[0] not in (1, m.shape[0]):
        raise RuntimeError("size mismatch, got input (%s), mat (%dx%d), vec (%d). Fix: mat's "
                           "columns must equal vec's length" % (
                               ",".join(map(str, input.shape)), m.shape[0], m.shape[1],
                               v.shape[0]))
    _same_dtype("addmv", input, mat, vec)
    with _quiet():
        p = m @ v
    return _finish(AddmvBackward0, input, mat, vec, p, beta, alpha)


@defop("addr", inplace=True, out=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)``: vec1 (n,), vec2 (m,), input broadcasting
    to (n, m). Dtypes promote as PyTorch's.

    Raises:
        RuntimeError: a vector argument that is not 1-D, or an input that does not broadcast.
    """
    if out is not None:
        return out_call("addr", addr, (input, vec1, vec2), {"beta": beta, "alpha": alpha}, out)
    input, vec1, vec2 = to_tensor(input), to_tensor(vec1), to_tensor(vec2)
    for nm, t in (("vec1", vec1), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError("addr: Expected 1-D argument %s, but got %d-D. Fix: pass a "
                               "vector, e.g. %s.flatten()" % (nm, t.dim(), nm))
    npd = _dtype.result_type(input, vec1, vec2).np
    with _quiet():
        p = np.multiply.outer(vec1._data.astype(npd, copy=False),
                              vec2._data.astype(npd, copy=False))
    return _finish(AddrBackward0, input, vec1, vec2, p.astype(npd, copy=False), beta, alpha)


def _batched(name, cls, input, b1, b2, beta, alpha):
    """baddbmm / addbmm (which sums the products over the batch)."""
    input, b1, b2 = to_tensor(input), to_tensor(b1), to_tensor(b2)
    x1, x2 = b1._data, b2._data
    if x2.ndim < 3:     # PyTorch reads batch2.size(2) first: IndexError
        raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but "
                         "got 2). Fix: %s takes 3-D batches (b, n, m) and (b, m, p)"
                         % (-max(x2.ndim, 1), max(x2.ndim, 1) - 1, name))
    for t in (x1, x2):
        if t.ndim != 3:
            raise RuntimeError("%s: batch1 and batch2 must be 3-D tensors, got %d-D. Fix: "
                               "add a batch dim, e.g. x.unsqueeze(0)" % (name, t.ndim))
    if x2.shape[:2] != (x1.shape[0], x1.shape[2]):
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           "[%d, %d] but got: [%d, %d]. Fix: batch1 (b, n, m) and batch2 "
                           "(b, m, p)" % (x1.shape[0], x1.shape[2], x2.shape[0], x2.shape[1]))
    _same_dtype(name, input, b1, b2)
    with _quiet():
        p = np.matmul(x1, x2)
        if name == "addbmm":
            p = np.asarray(p.sum(axis=0))
    return _finish(cls, input, b1, b2, p, beta, alpha)


@defop("baddbmm", inplace=True, out=True)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (batch1 @ batch2)``: batch1 (b, n, m), batch2 (b, m, p),
    input broadcasting to (b, n, p).

    Raises:
        RuntimeError: non-3-D batches, mismatched sizes, or mixed dtypes. IndexError: a
            batch2 of fewer than 3 dims (as PyTorch).
    """
    if out is not None:
        return out_call("baddbmm", baddbmm, (input, batch1, batch2),
                        {"beta": beta, "alpha": alpha}, out)
    return _batched("baddbmm", BaddbmmBackward0, input, batch1, batch2, beta, alpha)


@defop("addbmm", inplace=True, out=True)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_i batch1[i] @ batch2[i]``: batch1 (b, n, m), batch2
    (b, m, p), input broadcasting to (n, p).

    Raises:
        RuntimeError: non-3-D batches, mismatched sizes, or mixed dtypes. IndexError: a
            batch2 of fewer than 3 dims (as PyTorch).
    """
    if out is not None:
        return out_call("addbmm", addbmm, (input, batch1, batch2),
                        {"beta": beta, "alpha": alpha}, out)
    return _batched("addbmm", AddbmmBackward0, input, batch1, batch2, beta, alpha)
