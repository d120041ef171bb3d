"""Matrix products: matmul (1-D, 2-D, batched), mm, mv, dot, bmm, outer, addmm, linear,
bilinear, kron, tensordot, cdist, trace.

For C = A @ B the vector-Jacobian products are dA = G @ B^T and dB = A^T @ G
(PyTorch's ``mm_mat1_backward``/``mm_mat2_backward``); 1-D operands are
treated as a row or column and squeezed back; broadcast batch dims are
summed by the engine. Products are only computed for inputs that need them.
"""

import numpy as np

from ..._core import errors as _errors
from ..._core.quiet import quiet as _quiet
from ..._tensor.tensor import Tensor
from ...autograd.grad_mode import mode as _grad_mode
from ...autograd.graph import Node
from .._dispatch import _fw_level, record, to_tensor
from .._named import grad_fn_named, _named
from .._out import out_call, with_out
from .._registry import defop, node
from .._trace import tape as _tape
from .._select import select
from ._linear_record import record_linear
from math import prod as _prod


def _matmul_grads(ctx, g):
    a, b = ctx._checked_saved
    na, nb = ctx.needs_input_grad
    ga = gb = None
    ad, bd = a._data.ndim, b._data.ndim
    if ad == 1 and bd == 1:
        ga = g * b if na else None
        gb = g * a if nb else None
    elif ad == 1:                        # (k) @ (..., k, n) -> (..., n)
        if na:
            # plain matrix-vector product when b is a matrix: one op, not four
            ga = b @ g if bd == 2 else (g.unsqueeze(-2) @ b.mT).squeeze(-2)
        if nb:
            gb = a.unsqueeze(-1) * g.unsqueeze(-2)
    elif bd == 1:                        # (..., m, k) @ (k) -> (..., m)
        if na:
            ga = g.unsqueeze(-1) * b
        if nb:
            gb = g @ a if ad == 2 else (a.mT @ g.unsqueeze(-1)).squeeze(-1)
    else:
        if na:
            ga = g @ b.mT
        if nb:
            gb = a.mT @ g
    return ga, gb


def _matmul_np(ctx, g):
    a, b = ctx.saved_arrays()
    na, nb = ctx.needs_input_grad
    ga = gb = None
    if a.ndim == 1 and b.ndim == 1:
        ga = g * b if na else None
        gb = g * a if nb else None
    elif a.ndim == 1:
        if na:
            ga = b @ g if b.ndim == 2 else (g[..., None, :] @ np.swapaxes(b, -1, -2))[..., 0, :]
        if nb:
            gb = a[:, None] * g[..., None, :]
    elif b.ndim == 1:
        if na:
            ga = g[..., :, None] * b
        if nb:
            gb = g @ a if a.ndim == 2 else (np.swapaxes(a, -1, -2) @ g[..., :, None])[..., 0]
    else:
        if na:
            ga = g @ np.swapaxes(b, -1, -2)
        if nb:
            gb = np.swapaxes(a, -1, -2) @ g
    return ga, gb


MmBackward0, MvBackward0, DotBackward0, BmmBackward0, UnsafeViewBackward0 = (
    node(n, _matmul_grads, saves=True, np_backward=_matmul_np)
    for n in ("MmBackward0", "MvBackward0", "DotBackward0", "BmmBackward0", "UnsafeViewBackward0"))
MatmulBackward = {(2, 2): MmBackward0, (2, 1): MvBackward0, (1, 1): DotBackward0}


def _shape_error(a, b):
    sa, sb = a.shape, b.shape
    if len(sa) == 1 and len(sb) == 1:
        return _errors.ShapeError(
            "inconsistent tensor size, expected tensor [%d] and src [%d] to have the same number "
            "of elements, but got %d and %d elements respectively: a dot product needs vectors "
            "of equal length." % (sa[0], sb[0], sa[0], sb[0]))
    ma = "x".join(map(str, sa if len(sa) > 1 else (1,) + sa))
    mb = "x".join(map(str, sb if len(sb) > 1 else sb + (1,)))
    k1 = sa[-1]
    k2 = sb[-2] if len(sb) > 1 else sb[0]
    return _errors.ShapeError(
        "mat1 and mat2 shapes cannot be multiplied (%s and %s): the inner dimensions differ "
        "(%d vs %d). For A @ B, A's last dimension must equal B's first (for matrices) or "
        "second-to-last (for batches). Fix: transpose one operand (.T / .mT) or check the layer "
        "sizes." % (ma, mb, k1, k2))


def _promote(a, b):
    a, b = to_tensor(a), to_tensor(b)
    xa, xb = a._data, b._data
    if xa.dtype != xb.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: %s != %s. Fix: convert one "
            "operand, e.g. b.to(a.dtype)." % (_tn(xa.dtype), _tn(xb.dtype)))
    return a, b, xa, xb


def _tn(npd):
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int"}.get(
        np.dtype(npd).name, str(npd))


@defop("matmul", out=True, numbers="none")
def matmul(input, other, *, out=None):
    """Matrix product with NumPy/PyTorch semantics (1-D, 2-D, batched and broadcast).

    Shapes: (n)@(n) -> (); (m,k)@(k) -> (m); (k)@(k,n) -> (n); (m,k)@(k,n)
    -> (m,n); (..., m, k)@(..., k, n) -> (..., m, n).

    Raises:
        RuntimeError: for 0-d operands or mismatched inner dims (both shapes named).
    """
    if out is not None:
        return out_call("matmul", matmul, (input, other), {}, out)
    if not (isinstance(input, Tensor) and isinstance(other, Tensor)):
        # PyTorch's rule (numbers="none"), checked here: no wrapper on this hot path
        raise _errors.not_tensor("matmul", *(("input", 1, input) if not isinstance(
            input, Tensor) else ("other", 2, other)))
    a, b, xa, xb = _promote(input, other)
    if xa.ndim == 0 or xb.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are %dD "
                           "and %dD" % (xa.ndim, xb.ndim))
    if xa.ndim == 1 and xb.ndim == 2 and xa.shape[0] == xb.shape[0]:
        # PyTorch's graph: unsqueeze(0), mm, squeeze_(0) (SqueezeBackward4 on top)
        return matmul(a.unsqueeze(0), b).squeeze_(0)
    try:
        with _quiet():
            out = np.matmul(xa, xb)
    except ValueError:
        if xa.ndim > 2 or xb.ndim > 2:
            k1 = xa.shape[-1]
            k2 = xb.shape[-2] if xb.ndim > 1 else xb.shape[0]
            if k1 == k2:
                raise _errors.ShapeError(
                    "The size of tensor a must match the size of tensor b at a non-singleton "
                    "batch dimension: batch shapes %s and %s cannot be broadcast."
                    % (xa.shape[:-2], xb.shape[:-2])) from None
        raise _shape_error(xa, xb) from None
    cls = MatmulBackward.get((xa.ndim, xb.ndim), UnsafeViewBackward0)
    return record(cls, out, (a, b), saved=(a, b))


matmul.checks_numbers = True


@defop("mm", out=True)
def mm(input, mat2, *, out=None):
    """2-D matrix product. Raises RuntimeError unless both are matrices."""
    if out is not None:
        return out_call("mm", mm, (input, mat2), {}, out)
    for name, t in (("self", input), ("mat2", mat2)):
        if t.dim() != 2:
            raise RuntimeError("%s must be a matrix (got a %d-D tensor). Fix: use torch.matmul "
                               "(or @) for vectors and batches." % (name, t.dim()))
    return matmul(input, mat2)


@defop("mv", out=True)
def mv(input, vec, *, out=None):
    if out is not None:
        return out_call("mv", mv, (input, vec), {}, out)
    if input.dim() == 0:        # PyTorch reads the 0-d input's dim 0 first
        raise IndexError("Dimension specified as 0 but tensor has no dimensions: mv takes a "
                         "matrix and a vector. Fix: x.reshape(1, -1) for a one-row matrix")
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError("vector + matrix @ vector expected, got %d, %d, %d"
                           % (1, input.dim(), vec.dim()))
    return matmul(input, vec)


@defop("dot", out=True, numbers="none")
def dot(input, other, *, out=None):
    if out is not None:
        return out_call("dot", dot, (input, other), {}, out)
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError("1D tensors expected, but got %dD and %dD tensors"
                           % (input.dim(), other.dim()))
    return matmul(input, other)


@defop("vdot", out=True, numbers="none")
def vdot(input, other, *, out=None):
    """``Σ conj(input) · other`` of two 1-D tensors (the first conjugated: differs from
    ``dot`` for complex inputs).

    Raises:
        RuntimeError: inputs that are not 1-D.
    """
    if out is not None:
        return out_call("vdot", vdot, (input, other), {}, out)
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError("1D tensors expected, but got %dD and %dD tensors"
                           % (input.dim(), other.dim()))
    return _named(matmul(input.conj() if input.is_complex() else input, other),
                  "VdotBackward0")


@defop("inner", out=True, numbers="none")
def inner(input, other, *, out=None):
    """The sum of products over the last dims of ``input`` and ``other``: shape
    ``input.shape[:-1] + other.shape[:-1]`` (a 0-d operand multiplies), as PyTorch.

    Raises:
        RuntimeError: last dims of different sizes.
    """
    if out is not None:
        return out_call("inner", inner, (input, other), {}, out)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but "
                           "got shapes %s and %s. Fix: the last dims must have the same size"
                           % (list(input.shape), list(other.shape)))
    res = tensordot(input, other, dims=([-1], [-1]))
    return _named(res, "ViewBackward0") if input.dim() + other.dim() > 2 else res


@defop("bmm", out=True)
def bmm(input, mat2, *, out=None):
    if out is not None:
        return out_call("bmm", bmm, (input, mat2), {}, out)
    if input.dim() != 3 or mat2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    a, b, xa, xb = _promote(input, mat2)
    if xa.shape[0] != xb.shape[0] or xa.shape[2] != xb.shape[1]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           "[%d, %d] but got: [%d, %d]." % (xa.shape[0], xa.shape[2],
                                                            xb.shape[0], xb.shape[1]))
    with _quiet():
        out = np.matmul(xa, xb)
    return record(BmmBackward0, out, (a, b), saved=(a, b))


@defop("outer", out=True, aliases=("ger",), numbers="none")
def outer(input, vec2):
    """The outer product of two 1-D tensors, (n,) x (m,) -> (n, m).

    Raises:
        RuntimeError: an argument that is not 1-D (as PyTorch).
    """
    for name, t in (("self", input), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError("outer: Expected 1-D argument %s, but got %d-D. Fix: flatten it "
                               "first, or use torch.einsum / broadcasting for higher dims"
                               % (name, t.dim()))
    return input.unsqueeze(-1) * vec2


ger = outer


def _addmm_backward(ctx, g):
    x, w = ctx._checked_saved
    nb, nx, nw = ctx.needs_input_grad
    return (g if nb else None,
            (g @ w.t()) if nx else None,       # w is stored as (in, out)
            (x.t() @ g) if nw else None)


AddmmBackward0 = node("AddmmBackward0", _addmm_backward, saves=True)


@defop("addmm", out=True, inplace=True)
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2); mat1 (n, m), mat2 (m, p), input broadcasting
    to (n, p). With ``beta == 0`` input is ignored (its NaN and inf do not propagate), as
    PyTorch documents.

    Raises:
        RuntimeError: mat1 or mat2 not 2-D, mismatched inner sizes, input not
        broadcastable to (n, p).
    """
    a, b, xa, xb = _promote(mat1, mat2)
    if xa.ndim != 2 or xb.ndim != 2:
        raise RuntimeError("mat1 must be a matrix, got %d-D tensor" % xa.ndim)
    if xa.shape[1] != xb.shape[0]:
        raise _shape_error(xa, xb)
    bias = to_tensor(input)
    if isinstance(mat2, Tensor) and bias.dtype is not mat2.dtype:
        raise RuntimeError("self and mat2 must have the same dtype, but got %s and %s. Fix: "
                           "convert input to the matrices' dtype (input.to(mat2.dtype))"
                           % (_errors.type_name(bias.dtype), _errors.type_name(mat2.dtype)))
    if beta != 1 or alpha != 1:
        from .blas import _addmm_scaled
        with _quiet():
            p = np.matmul(xa, xb)
        return _addmm_scaled(bias, a, b, p, beta, alpha)
    with _quiet():
        out = np.matmul(xa, xb)
        out += bias._data
    return record(AddmmBackward0, out, (bias, a, b), saved=(a, b))


_add_reduce = np.add.reduce     # g.sum(0) without ndarray.sum's Python wrapper


def _rows(a):
    """(*, k) -> (prod(*), k): the leading dims folded (named, not -1: k may be 0)."""
    return a.reshape(_prod(a.shape[:-1]), a.shape[-1])


class _LinearNode(Node):
    """y = x W^T (+ b) in one node, with PyTorch's edges: (bias, input, W^T)
    (``AddmmBackward0``) or (input, W^T) (``MmBackward0``), where W^T is a
    ``TBackward0`` node in front of the weight. The rule returns the gradient of
    W^T, computed as dW = g^T x (the weight's layout) and handed over transposed,
    which TBackward0 turns back without a copy."""

    __slots__ = ()
    saves = True

    def backward(ctx, g):
        x, w = ctx._checked_saved
        need = ctx.needs_input_grad
        nx, nw = need[-2:]
        g2, x2 = (g, x) if g.dim() == 2 else (_rows(g), _rows(x))
        grads = ((g @ w) if nx else None, (x2.mT @ g2) if nw else None)
        return ((g2.sum(0) if need[0] else None,) + grads) if len(need) == 3 else grads

    def np_backward(ctx, g):
        x, w = ctx.saved_arrays()
        need = ctx.needs_input_grad
        nx, nw = need[-2:]
        g2 = g if g.ndim == 2 else _rows(g)
        grads = ((g @ w) if nx else None,
                 (g2.T @ (x if x.ndim == 2 else _rows(x))).T if nw else None)
        return ((_add_reduce(g2, 0) if need[0] else None,) + grads) if len(need) == 3 else grads


def _saved_weight_t(node):
    # PyTorch's node saves W^T, its input; this one keeps W (grad_fn._saved_mat2)
    return node._checked_saved[1].t()


LinearAddmm = type("AddmmBackward0", (_LinearNode,),
                   {"__slots__": (), "_saved_mat2": property(_saved_weight_t)})
LinearMm = type("MmBackward0", (_LinearNode,),
                {"__slots__": (), "_saved_mat2": property(_saved_weight_t)})
LinearView = type("ViewBackward0", (_LinearNode,), {"__slots__": ()})
LinearUnsafeView = type("UnsafeViewBackward0", (_LinearNode,), {"__slots__": ()})
LinearSqueeze = type("SqueezeBackward4", (_LinearNode,), {"__slots__": ()})


@defop("linear", function=False, method=False, functional=True)
def linear(input, weight, bias=None):
    """y = x W^T + b (``torch.nn.functional.linear``), fused in one node.

    Shapes: input (*, in), weight (out, in), bias (out,) -> (*, out).

    Raises:
        RuntimeError: when input's last dim is not ``in`` (both shapes named).
    """
    for pos, (arg, t) in enumerate((("input", input), ("weight", weight), ("bias", bias)), 1):
        if not isinstance(t, Tensor) and (t is not None or arg != "bias"):
            raise _errors.not_a_tensor("linear", arg, pos, t)
    x, w = input._data, weight._data
    if x.ndim == 0 or w.ndim not in (1, 2):
        return matmul(input, weight.t()) + (bias if bias is not None else 0)
    if x.shape[-1] != w.shape[-1]:
        raise _errors.ShapeError(
            "mat1 and mat2 shapes cannot be multiplied (%s and %s): the input has %d features "
            "in its last dimension but the layer expects %d (weight of shape %s). Fix: make the "
            "input's last dimension %d, or build the layer as Linear(%d, ...)."
            % ("x".join(map(str, (int(np.prod(x.shape[:-1])), x.shape[-1]))),
               "x".join(map(str, w.shape[::-1])), x.shape[-1], w.shape[-1], tuple(w.shape),
               w.shape[-1], x.shape[-1]))
    if x.dtype != w.dtype:
        names = {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int"}
        raise RuntimeError(
            "mat1 and mat2 must have the same dtype, but got %s and %s: the input is %s but the "
            "layer's weight is %s. Fix: convert the input, e.g. x.float() (or the layer with "
            "layer.to(x.dtype))." % tuple([names.get(d.name, d.name) for d in (x.dtype, w.dtype)]
                                          + [x.dtype.name, w.dtype.name]))
    if x.ndim > 2 and bias is not None and not x.flags.c_contiguous:
        # PyTorch fuses only a contiguous input: matmul, then the bias added (AddBackward0)
        return matmul(input, weight.t()) + bias
    b = None if bias is None else bias._data
    out = _linear_np(x, w, b)
    if bias is not None:
        cls = LinearAddmm if x.ndim == 2 else LinearView        # PyTorch's node names
    else:
        cls = LinearMm if x.ndim == 2 else LinearSqueeze if x.ndim == 1 else LinearUnsafeView
    if _fw_level[0] is not None:
        # forward AD computes tangents from the recorded inputs: record W^T itself (the
        # edge the fast path below builds by hand)
        wt = weight.t()
        return record(cls, out, (input, wt) if bias is None else (bias, input, wt),
                      saved=(input, weight))
    if weight._requires_grad and _grad_mode.enabled and type(out) is np.ndarray:
        # the weight's edge goes through a TBackward0 node, as in PyTorch
        res = record_linear(cls, out, input, weight, bias)
    else:
        res = record(cls, out, (input, weight) if bias is None else (bias, input, weight),
                     saved=(input, weight))
    if _tape[0] is not None:    # torch.compile's capture (ops/_trace.py)
        _tape[0].op(_linear_np, (x, w, b), res)
    return res


def _linear_np(x, w, b):
    """linear's NumPy kernel: x W^T (+ b), for x (*, in), w (out, in), b (out,) or None."""
    with _quiet():
        if x.ndim > 2 and w.ndim == 2:
            # one GEMM over the folded leading dims (as PyTorch's linear): NumPy's
            # batched matmul with a transposed operand is ~2x slower; same bits
            out = np.matmul(_rows(x), w.T).reshape(x.shape[:-1] + w.shape[:1])
        else:
            out = np.matmul(x, w.T)
        if b is not None:
            out += b
    return out


@defop("einsum", method=False)
def einsum(equation, *operands):
    """Einstein summation (``torch.einsum("ij,jk->ik", a, b)``; operands also as one list):
    PyTorch's algorithm as recorded ops (``ops/linalg/einsum.py``), so grad_fn names, second
    order and rounding are PyTorch's. Implicit output (no '->'), '...' and any number of
    operands, contracted left to right (PyTorch's order without opt_einsum).

    Raises:
        RuntimeError: PyTorch's einsum() errors (subscripts that do not match the operands'
            dimensions, sizes that do not broadcast, bad output subscripts).
    """
    from .einsum import einsum as _einsum
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError("einsum(): the equation must be a string (the sublist format is not "
                        "supported here). Fix: write it as 'ij,jk->ik'")
    return _einsum(equation, [to_tensor(o) for o in operands])



# ------------------------------------------------------ kron, tensordot, cdist
@defop("kron", out=True, numbers="none")
@grad_fn_named("UnsafeViewBackward0")   # PyTorch's (its last step)
def kron(input, other):
    """Kronecker product: for inputs padded with leading 1-dims to the same rank r,
    shape ``(a0*b0, ..., a{r-1}*b{r-1})`` with ``out[i*B + j] = a[i] * b[j]`` per dim.
    Composed of unsqueeze, mul and reshape (PyTorch's own definition; the grad_fn is
    ViewBackward0 where PyTorch shows UnsafeViewBackward0)."""
    a, b = to_tensor(input), to_tensor(other)
    r = max(a._data.ndim, b._data.ndim)
    a = a.reshape((1,) * (r - a._data.ndim) + a._data.shape)
    b = b.reshape((1,) * (r - b._data.ndim) + b._data.shape)
    ae = a.reshape(tuple(s for n in a._data.shape for s in (n, 1)))
    be = b.reshape(tuple(s for n in b._data.shape for s in (1, n)))
    return (ae * be).reshape(tuple(p * q for p, q in zip(a._data.shape, b._data.shape)))


@defop("tensordot", method=False)
@with_out("tensordot")
def tensordot(a, b, dims=2, out=None):
    """Contract the last ``dims`` dims of ``a`` with the first ``dims`` of ``b`` (an int),
    or the listed dims (a pair of lists/tuples, or a 2-row tensor). Shape: a's free dims
    then b's free dims. Composed of permute, reshape and mm (grad_fn ViewBackward0, as
    PyTorch).

    Raises:
        RuntimeError: contracted dims of different sizes, or a negative ``dims``.
    """
    from ..._tensor.tensor import Tensor as _T
    if isinstance(dims, _T):
        dims = dims.tolist()
    na, nb = a._data.ndim, b._data.ndim
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError("tensordot expects dims >= 0, but got dims=%d" % dims)
        da, db = list(range(na - dims, na)), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    da = [d % na if na else d for d in da]
    db = [d % nb if nb else d for d in db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    for i, j in zip(da, db):
        if a._data.shape[i] != b._data.shape[j]:
            raise RuntimeError("contracted dimensions need to match, but first has size %d in "
                               "dim %d and second has size %d in dim %d"
                               % (a._data.shape[i], i, b._data.shape[j], j))
    fa = [i for i in range(na) if i not in da]
    fb = [j for j in range(nb) if j not in db]
    sa = [a._data.shape[i] for i in fa]
    sb = [b._data.shape[j] for j in fb]
    k = int(np.prod([a._data.shape[i] for i in da]))
    am = a.permute(fa + da).reshape(int(np.prod(sa)), k)
    bm = b.permute(db + fb).reshape(k, int(np.prod(sb)))
    return mm(am, bm).reshape(tuple(sa + sb))


def _distance_np(diff, p):
    """``||diff||_p`` over the last dim, in diff's dtype (p = 0: the nonzero count)."""
    diff = np.abs(diff)
    with _quiet():
        if p == 0:
            out = (diff != 0).sum(-1)
        elif p == float("inf"):
            out = diff.max(-1) if diff.shape[-1] else np.zeros(diff.shape[:-1])
        elif p == 2:
            out = np.sqrt((diff * diff).sum(-1))
        else:
            out = (diff ** p).sum(-1) ** (1.0 / p) if p != 1 else diff.sum(-1)
    return np.asarray(out, dtype=diff.dtype)


def _distance_backward_np(diff, dist, g, p):
    """d dist / d x1 times g for ``dist = ||diff||_p`` over the last dim, ``diff = x1 - x2``
    (..., M) and ``dist``, ``g`` (...): PyTorch's CPU distance kernels' backward rules
    (aten/src/ATen/native/cpu/DistanceOpsKernel.cpp: zdist, odist, lttdist, tdist, pdist,
    idist), so a zero coordinate difference or a zero distance gives 0, never nan."""
    dd, gg = dist[..., None], g[..., None]
    sign = np.sign(diff)
    with _quiet():
        if p == 0:
            return np.zeros_like(diff)
        if p == 1:
            return gg * sign
        if p == float("inf"):   # full g to every coordinate that attains the max
            return gg * sign * (1 - np.minimum(1, np.ceil(np.abs(np.abs(diff) - dd))))
        if p < 2:
            w = np.where(dd == 0, 0, sign * np.abs(diff) ** (p - 1) * gg / dd ** (p - 1))
            return np.where((diff == 0) & (p < 1), 0, w).astype(diff.dtype, copy=False)
        if p == 2:
            return np.where(dd == 0, 0, gg * diff / dd).astype(diff.dtype, copy=False)
        return np.where(dd == 0, 0, diff * np.abs(diff) ** (p - 2) * gg / dd ** (p - 1)
                        ).astype(diff.dtype, copy=False)


class _NoDoubleBackward(Node):
    """Under a distance kernel's gradient: PyTorch has no derivative for it."""
    __slots__ = ()
    saves = False

    def backward(ctx, g):
        raise NotImplementedError("the derivative for '%s' is not implemented. Fix: for a "
                                  "second derivative write the distance with differentiable "
                                  "ops, e.g. (x1[:, None] - x2).norm(p, -1)" % ctx.args)


def _no_double_backward(out, inputs, kernel):
    """``out`` (an ndarray) as the gradient of ``inputs``: with create_graph it is
    recorded under a node that refuses to be differentiated, as PyTorch's NotImplemented."""
    return record(_NoDoubleBackward, out, inputs, args=kernel)


def _cdist_backward(ctx, g):
    x1, x2 = ctx._checked_saved
    p = ctx.args
    n1, n2 = ctx.needs_input_grad
    diff = x1._data[..., :, None, :] - x2._data[..., None, :, :]      # (..., P, R, M)
    w = _distance_backward_np(diff, ctx.result_array(), g._data, p)
    g1 = _no_double_backward(w.sum(-2), (g, x1, x2), "_cdist_backward") if n1 else None
    g2 = _no_double_backward(-w.sum(-3), (g, x1, x2), "_cdist_backward") if n2 else None
    return g1, g2


class CdistBackward0(Node):
    __slots__ = ()
    saves = True
    backward = _cdist_backward


@defop("cdist", method=False)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of ``x1`` (..., P, M) and ``x2`` (..., R, M):
    shape (..., P, R), batch dims broadcast; ``p`` >= 0, inf included (p = 0 counts the
    nonzero coordinate differences).

    Gradient (PyTorch's _cdist_backward, ``_distance_backward_np``): zero where a distance
    or (p < 1) a coordinate difference is 0; differentiating it again raises
    NotImplementedError (as PyTorch).

    Raises:
        RuntimeError: non-float inputs, fewer than 2 dims, mismatched last dims, or
            p < 0.
    """
    a, b = x1._data, x2._data
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        raise RuntimeError("cdist only supports floating-point dtypes, X1 got: %s"
                           % x1.dtype)
    if a.ndim < 2 or b.ndim < 2:
        raise RuntimeError("cdist only supports at least 2D tensors, X%d got: %dD"
                           % ((1, a.ndim) if a.ndim < 2 else (2, b.ndim)))
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: %d X2: %d"
                           % (a.shape[-1], b.shape[-1]))
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    out = _distance_np(a[..., :, None, :] - b[..., None, :, :], p)
    return record(CdistBackward0, out, (x1, x2), saved=(x1, x2), save_result=True, args=p)


def _trace_backward(ctx, g):
    # PyTorch's trace_backward puts g on the diagonal of zeros (selects, so an inf or
    # nan g leaves the off-diagonal 0; g * eye would make it nan)
    shape = ctx.args
    return (select(np.eye(shape[0], shape[1], dtype=bool), g.expand(shape)),)


class TraceBackward0(Node):
    __slots__ = ()
    saves = False
    backward = _trace_backward


@defop("trace")
def trace(input):
    """Sum of the main diagonal of a 2-D tensor: a 0-d tensor (integer inputs give
    int64). Gradient: g on the diagonal, 0 elsewhere (PyTorch's trace_backward).

    Raises:
        RuntimeError: for an input that is not 2-D.
    """
    x = input._data
    if x.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim %d" % x.ndim)
    with np.errstate(all="ignore"):     # inf - inf: nan, silently (as PyTorch)
        out = np.trace(x)
    if x.dtype.kind in "biu":
        out = np.asarray(out, dtype=np.int64)
    return record(TraceBackward0, np.asarray(out, dtype=out.dtype if x.dtype.kind in "biu"
                                             else x.dtype), (input,), args=x.shape)


# ------------------------------------------------------------------ bilinear
@defop("bilinear", method=False, functional=True)
def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1^T A_k x2 + b_k`` (PyTorch's ``bilinear``: ``_trilinear`` then the bias).

    Shapes: input1 (*, in1), input2 (*, in2) with the same batch dims, weight
    (out, in1, in2), bias (out,) or None -> (*, out).

    Raises:
        RuntimeError: the inputs' dims or batch sizes differ, or in1/in2/out do not match
            weight's (PyTorch's messages).
    """
    def bad(what):
        raise RuntimeError("bilinear(): %s. Fix: input1 (*, in1), input2 (*, in2), weight "
                           "(out, in1, in2), bias (out,)" % what)
    if input1.dim() != input2.dim():
        bad("input dimensions do not match: got %d and %d" % (input1.dim(), input2.dim()))
    for i, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            bad("input batch dimensions do not match at dim %d: got %d and %d" % (i, a, b))
    if weight.dim() != 3:
        bad("weight must be 3-dimensional, got %d dims" % weight.dim())
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1:
        bad("input1 size does not match weight size: got %d but expected %d"
            % (input1.shape[-1], in1))
    if input2.shape[-1] != in2:
        bad("input2 size does not match weight size: got %d but expected %d"
            % (input2.shape[-1], in2))
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_f):
        bad("bias size does not match weight size: got %d but expected %d"
            % (bias.shape[-1] if bias.dim() else 1, out_f))
    a = input1.reshape(-1, in1)
    b = input2.reshape(-1, in2)
    y = _trilinear(a, weight, b)
    y = _named(y.reshape(tuple(input1.shape[:-1]) + (out_f,)), "ViewBackward0")
    return y if bias is None else y + bias


def _trilinear(a, weight, b):
    # (B, in1) x (out, in1, in2) x (B, in2) -> (B, out): first contract in1, then in2,
    # PyTorch's order (_trilinear: sumproduct_pair(i1, i2) first), which decides inf vs
    # nan when infinities meet
    out_f, in1, in2 = weight.shape
    t = (a @ weight.transpose(0, 1).reshape(in1, out_f * in2)).reshape(-1, out_f, in2)
    return (t * b.unsqueeze(1)).sum(-1)
