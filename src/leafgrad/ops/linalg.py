"""Matrix products: matmul (1-D, 2-D, batched), mm, mv, dot, bmm, outer, addmm, linear.

For C = A @ B the vector-Jacobian products are dA = G @ B^T and dB = A^T @ G
(PyTorch's ``mm_mat1_backward``/``mm_mat2_backward``); 1-D operands are
treated as a row or column and squeezed back; broadcast batch dims are
summed by the engine. Products are only computed for inputs that need them.
"""
import numpy as np

from .. import _errors
from ..autograd.graph import Node, next_seq as _next_seq
from .._quiet import quiet as _quiet
from ._dispatch import _anomaly_hook, record, to_tensor
from .shape import TBackward0


def _matmul_grads(ctx, g):
    a, b = ctx.saved_tensors
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


def _node(name):
    return type(name, (Node,), {"__slots__": (), "saves": True, "backward": _matmul_grads,
                                "np_backward": _matmul_np})


MmBackward0 = _node("MmBackward0")
MvBackward0 = _node("MvBackward0")
DotBackward0 = _node("DotBackward0")
BmmBackward0 = _node("BmmBackward0")
UnsafeViewBackward0 = _node("UnsafeViewBackward0")
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


def matmul(input, other):
    """Matrix product with NumPy/PyTorch semantics (1-D, 2-D, batched and broadcast).

    Shapes: (n)@(n) -> (); (m,k)@(k) -> (m); (k)@(k,n) -> (n); (m,k)@(k,n)
    -> (m,n); (..., m, k)@(..., k, n) -> (..., m, n).

    Raises:
        RuntimeError: for 0-d operands or mismatched inner dims (both shapes named).
    """
    a, b, xa, xb = _promote(input, other)
    if xa.ndim == 0 or xb.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are %dD "
                           "and %dD" % (xa.ndim, xb.ndim))
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


def mm(input, mat2):
    """2-D matrix product. Raises RuntimeError unless both are matrices."""
    for name, t in (("self", input), ("mat2", mat2)):
        if t.dim() != 2:
            raise RuntimeError("%s must be a matrix (got a %d-D tensor). Fix: use torch.matmul "
                               "(or @) for vectors and batches." % (name, t.dim()))
    return matmul(input, mat2)


def mv(input, vec):
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError("vector + matrix @ vector expected, got %d, %d, %d"
                           % (1, input.dim(), vec.dim()))
    return matmul(input, vec)


def dot(input, other):
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError("1D tensors expected, but got %dD and %dD tensors"
                           % (input.dim(), other.dim()))
    return matmul(input, other)


vdot = inner = dot


def bmm(input, mat2):
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


def outer(input, vec2):
    return input.unsqueeze(-1) * vec2


ger = outer


def _addmm_backward(ctx, g):
    x, w = ctx.saved_tensors
    nb, nx, nw = ctx.needs_input_grad
    return (g if nb else None,
            (g @ w.t()) if nx else None,       # w is stored as (in, out)
            (x.t() @ g) if nw else None)


AddmmBackward0 = type("AddmmBackward0", (Node,), {"__slots__": (), "saves": True,
                                                  "backward": _addmm_backward})


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    if beta != 1 or alpha != 1:
        return input * beta + matmul(mat1, mat2) * alpha
    a, b, xa, xb = _promote(mat1, mat2)
    if xa.ndim != 2 or xb.ndim != 2:
        raise RuntimeError("mat1 must be a matrix, got %d-D tensor" % xa.ndim)
    if xa.shape[1] != xb.shape[0]:
        raise _shape_error(xa, xb)
    bias = to_tensor(input)
    with _quiet():
        out = np.matmul(xa, xb)
        out += bias._data
    return record(AddmmBackward0, out, (bias, a, b), saved=(a, b))


_add_reduce = np.add.reduce     # g.sum(0) without ndarray.sum's Python wrapper


class _LinearNode(Node):
    """y = x W^T (+ b) in one node, with PyTorch's edges: (bias, input, W^T)
    (``AddmmBackward0``) or (input, W^T) (``MmBackward0``), where W^T is a
    ``TBackward0`` node in front of the weight. The rule returns the gradient of
    W^T, computed as dW = g^T x (the weight's layout) and handed over transposed,
    which TBackward0 turns back without a copy."""

    __slots__ = ()
    saves = True

    def backward(ctx, g):
        x, w = ctx.saved_tensors
        need = ctx.needs_input_grad
        nx, nw = need[-2:]
        g2, x2 = (g, x) if g.dim() == 2 else (g.reshape(-1, g.shape[-1]),
                                              x.reshape(-1, x.shape[-1]))
        grads = ((g @ w) if nx else None, (x2.mT @ g2) if nw else None)
        return ((g2.sum(0) if need[0] else None,) + grads) if len(need) == 3 else grads

    def np_backward(ctx, g):
        x, w = ctx.saved_arrays()
        need = ctx.needs_input_grad
        nx, nw = need[-2:]
        g2 = g if g.ndim == 2 else g.reshape(-1, g.shape[-1])
        grads = ((g @ w) if nx else None,
                 (g2.T @ (x if x.ndim == 2 else x.reshape(-1, x.shape[-1]))).T if nw else None)
        return ((_add_reduce(g2, 0) if need[0] else None,) + grads) if len(need) == 3 else grads


LinearAddmm = type("AddmmBackward0", (_LinearNode,), {"__slots__": ()})
LinearMm = type("MmBackward0", (_LinearNode,), {"__slots__": ()})
LinearView = type("ViewBackward0", (_LinearNode,), {"__slots__": ()})
LinearUnsafeView = type("UnsafeViewBackward0", (_LinearNode,), {"__slots__": ()})
LinearSqueeze = type("SqueezeBackward4", (_LinearNode,), {"__slots__": ()})


_new = object.__new__


def _weight_edge(weight):
    """The (TBackward0 node, 0) edge for a weight that requires grad (the node
    ``weight.t()`` would record; made directly, the transpose itself is not needed)."""
    tn = _new(TBackward0)
    fn = weight._grad_fn
    tn.next_functions = ((fn, weight._output_nr) if fn is not None
                         else (weight._grad_accumulator(), 0),)
    tn.needs_input_grad = (True,)
    tn._metas = (None,)
    tn._released = False
    tn._extra = tn.args = tn._saved = tn._out = None
    tn._seq = _next_seq()
    if _anomaly_hook[0] is not None:
        _anomaly_hook[0](tn)
    return (tn, 0)


def linear(input, weight, bias=None):
    """y = x W^T + b (``torch.nn.functional.linear``), fused in one node.

    Shapes: input (*, in), weight (out, in), bias (out,) -> (*, out).

    Raises:
        RuntimeError: when input's last dim is not ``in`` (both shapes named).
    """
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
    with _quiet():
        out = np.matmul(x, w.T)
        if bias is not None:
            out += bias._data
    if bias is not None:
        cls = LinearAddmm if x.ndim == 2 else LinearView        # PyTorch's node names
    else:
        cls = LinearMm if x.ndim == 2 else LinearSqueeze if x.ndim == 1 else LinearUnsafeView
    res = record(cls, out, (input, weight) if bias is None else (bias, input, weight),
                 saved=(input, weight))
    if weight._requires_grad and res._grad_fn is not None:
        # the weight's edge goes through a TBackward0 node, as in PyTorch
        node = res._grad_fn
        node.next_functions = node.next_functions[:-1] + (_weight_edge(weight),)
        node._metas = node._metas[:-1] + (None,)
    return res


def einsum(equation, *operands):
    """Einstein summation over two or fewer operands, via matmul-friendly ops."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    ops = [to_tensor(o) for o in operands]
    out = np.einsum(equation, *[o._data for o in ops])

    lhs, _, rhs = equation.replace(" ", "").partition("->")
    ins = lhs.split(",")

    class EinsumBackward(Node):
        __slots__ = ()
        saves = True

        def backward(ctx, g):
            saved = ctx.saved_tensors
            res = []
            for i, need in enumerate(ctx.needs_input_grad):
                if not need:
                    res.append(None)
                    continue
                others = [saved[j] for j in range(len(saved)) if j != i]
                spec = ",".join([rhs] + [ins[j] for j in range(len(saved)) if j != i])
                sub = ins[i]
                # letters of this operand that appear nowhere else: broadcast back
                present = set(rhs) | set("".join(ins[j] for j in range(len(saved)) if j != i))
                keep = "".join(c for c in sub if c in present)
                r = einsum(spec + "->" + keep, g, *others)
                if keep != sub:
                    shape = saved[i].shape
                    idx = [slice(None) if c in present else None for c in sub]
                    r = r[tuple(idx)].expand(shape)
                res.append(r)
            return tuple(res)
    EinsumBackward.__name__ = "EinsumBackward"
    if not rhs and "->" not in equation:
        raise NotImplementedError("einsum needs an explicit '->' output in leafgrad")
    return record(EinsumBackward, np.asarray(out), tuple(ops), saved=tuple(ops))



# ------------------------------------------------------------ torch.linalg
# Derivative rules from PyTorch's tools/autograd/derivatives.yaml (real inputs):
#   inv:    A: -inv^T @ grad @ inv^T           (linalg_inv_ex)
#   det:    A: grad * det * A^{-T}, the cofactor matrix (linalg_det_backward)
#   solve:  B: solve(A^T, grad); A: -gB @ X^T  (linalg_solve_backward)
#   svdvals: A: U diag(grad) Vh                 (svd_backward with gU = gVh = 0)
def _float_matrices(A, name, square=True):
    """A's array, after PyTorch's checks of linalg inputs."""
    x = A._data
    if x.dtype.kind not in "fc":
        raise RuntimeError("%s: Expected a floating point or complex tensor as input. Got %s. "
                           "Fix: convert it first, e.g. A.float()"
                           % (name, _errors.type_name(A.dtype)))
    if x.ndim < 2:
        raise RuntimeError("%s: The input tensor A must have at least 2 dimensions." % name)
    if square and x.shape[-1] != x.shape[-2]:
        raise RuntimeError("%s: A must be batches of square matrices, but they are %d by %d "
                           "matrices" % (name, x.shape[-2], x.shape[-1]))
    return x


def _singular(name, x, what):
    # which matrix of the batch (PyTorch names it for batches)
    flat = x.reshape((-1,) + x.shape[-2:])
    bad = next((i for i, m in enumerate(flat) if np.linalg.matrix_rank(m) < m.shape[-1]), 0)
    where = " (Batch element %d)" % bad if x.ndim > 2 else ""
    return _errors.LinAlgError(
        "%s%s: %s because the input matrix is singular. Fix: check the matrix (a zero row or "
        "column, linearly dependent rows), or regularise it, e.g. A + eps * torch.eye(n)."
        % (name, where, what))


def _swap(a):
    return np.swapaxes(a, -1, -2)


class LinalgInvExBackward0(Node):
    __slots__ = ()
    saves = True

    def backward(ctx, g):
        r = ctx.result.mT
        return (-(r @ (g @ r)),)

    def np_backward(ctx, g):
        r = _swap(ctx.result_array())
        return (-(r @ (g @ r)),)


def inv(A, *, out=None):
    """Inverse of a square matrix (or of each in a batch). Shapes: (*, n, n) -> (*, n, n).

    Gradient: -A^{-T} grad A^{-T} (derivatives.yaml, linalg_inv_ex), differentiable again.

    Raises:
        torch.linalg.LinAlgError (a RuntimeError): a singular matrix.
        RuntimeError: an integer input, fewer than 2 dims, non-square matrices.
    """
    x = _float_matrices(A, "linalg.inv")
    try:
        with _quiet():
            res = np.linalg.inv(x) if x.size else x.copy()
    except np.linalg.LinAlgError:
        raise _singular("linalg.inv", x, "the inversion could not be completed") from None
    return record(LinalgInvExBackward0, res, (A,), save_result=True)


def _cofactor(a):
    """d det(a) / da for every matrix of the batch ``a`` (n, k, k), singular ones
    included: det(U) det(Vh) U diag(prod of the other singular values) Vh."""
    u, s, vh = np.linalg.svd(a)
    k = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(k)], -1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return sign[:, None, None] * ((u * others[:, None, :]) @ vh)


def _det_slope(a, d, cofactor):
    """d det / dA as an array: det A^{-T} where det != 0; at singular matrices the
    cofactor matrix (``cofactor``) or 0 (PyTorch's two answers there)."""
    n = a.shape[-1]
    singular = (d == 0)[..., None, None]
    with _quiet():
        res = d[..., None, None] * _swap(np.linalg.inv(np.where(singular, np.eye(n, dtype=a.dtype),
                                                                a)))
    if cofactor and singular.any():
        res = np.where(singular, _cofactor(a.reshape(-1, n, n)).reshape(a.shape), res)
    return np.where(singular & (not cofactor), 0, res).astype(a.dtype)


class LinalgDetBackward0(Node):
    # PyTorch's linalg_det_backward: g det A^{-T}. At an exactly singular matrix it
    # gives 0 when the backward is not recorded (det times the solve), and the
    # cofactor matrix (through the SVD) under create_graph.
    __slots__ = ()
    saves = True

    def backward(ctx, g):
        (A,) = ctx.saved_tensors
        d = ctx.result
        if not (d._data == 0).any():
            return ((g * d).unsqueeze(-1).unsqueeze(-1) * inv(A).mT,)
        # a singular matrix in the batch: a constant slope (its own dependence on A
        # is not recorded)
        from .._tensor import Tensor
        slope = _det_slope(A._data, d._data, cofactor=True)
        return (g.unsqueeze(-1).unsqueeze(-1) * Tensor._make_plain(slope),)

    def np_backward(ctx, g):
        (a,) = ctx.saved_arrays()
        return (g[..., None, None] * _det_slope(a, ctx.result_array(), cofactor=False),)


def det(A, *, out=None):
    """Determinant of a square matrix (or of each in a batch). Shapes: (*, n, n) -> (*).

    Gradient (PyTorch's linalg_det_backward): grad det(A) A^{-T}, the cofactor
    matrix. At an exactly singular matrix it is 0 without create_graph and the
    cofactor matrix (through the SVD) with it, as in PyTorch; there leafgrad does
    not differentiate it again (elsewhere it is twice differentiable).

    Raises:
        RuntimeError: an integer input, fewer than 2 dims, non-square matrices.
    """
    x = _float_matrices(A, "linalg.det")
    with _quiet():
        res = np.linalg.det(x) if x.shape[-1] else np.ones(x.shape[:-2], x.dtype)
    return record(LinalgDetBackward0, np.asarray(res, x.dtype), (A,), saved=(A,),
                  save_result=True)


class LinalgSolveExBackward0(Node):
    __slots__ = ()
    saves = True

    def backward(ctx, g):
        # PyTorch's linalg_solve_backward: gB = A^{-T} gX (left) or gX A^{-T} (right);
        # gA = -gB X^T (left) or -X^T gB (right); vectors as columns
        (A,) = ctx.saved_tensors
        x = ctx.result
        vector, left = ctx.args
        na, nb = ctx.needs_input_grad
        gb = solve(A.mT, g, left=left)
        if not na:
            return None, gb
        if vector:
            ga = -(gb.unsqueeze(-1) * x.unsqueeze(-2))
        else:
            ga = -(gb @ x.mT) if left else -(x.mT @ gb)
        return ga, (gb if nb else None)


def solve(A, B, *, left=True, out=None):
    """X with A X = B (``left=False``: X A = B), for a square A (or a batch).

    Shapes: A (*, n, n); B (*, n, k), or a vector (n,) / (*, n) when B's shape is
    A's without the last dim; batch dims broadcast. Gradients (derivatives.yaml,
    linalg_solve_ex): gB = solve(A^T, grad), gA = -gB X^T.

    Raises:
        torch.linalg.LinAlgError (a RuntimeError): a singular A.
        RuntimeError: shapes that do not fit, dtypes that differ, integer inputs.
    """
    a = _float_matrices(A, "linalg.solve")
    B = to_tensor(B)
    b = B._data
    if b.dtype != a.dtype:
        raise RuntimeError("linalg.solve: Expected A and B to have the same dtype, but found A "
                           "of type %s and B of type %s instead. Fix: B.to(A.dtype)"
                           % (_errors.type_name(A.dtype), _errors.type_name(B.dtype)))
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    bm = b[..., None] if vector else b
    if not left:
        if vector or bm.shape[-1] != a.shape[-1]:
            raise RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation "
                               "XA = B (%dx%d and %s)" % (a.shape[-2], a.shape[-1],
                                                          "x".join(map(str, b.shape[-2:]))))
    elif bm.shape[-2] != a.shape[-1]:
        raise RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           "(%dx%d and %dx%d)" % (a.shape[-2], a.shape[-1], bm.shape[-2],
                                                  bm.shape[-1]))
    try:
        with _quiet():
            # X A = B is A^T X^T = B^T
            res = np.linalg.solve(a, bm) if left else _swap(np.linalg.solve(_swap(a), _swap(bm)))
    except np.linalg.LinAlgError:
        raise _singular("torch.linalg.solve", a, "The solver failed") from None
    except ValueError:
        raise _errors.ShapeError("linalg.solve: the batch dimensions of A %s and B %s cannot be "
                                 "broadcast together" % (list(a.shape[:-2]),
                                                         list(bm.shape[:-2]))) from None
    return record(LinalgSolveExBackward0, res[..., 0] if vector else res, (A, B), saved=(A,),
                  save_result=True, args=(vector, left))


class LinalgSvdBackward0(Node):
    __slots__ = ()

    def backward(ctx, g):
        u, vh, needs_graph = ctx.args
        from ..autograd.grad_mode import mode
        if mode.enabled and needs_graph:
            raise NotImplementedError(
                "leafgrad does not differentiate singular values twice (svdvals, and "
                "matrix_norm / linalg.norm with ord=2, -2 or 'nuc'). Fix: use ord='fro' for "
                "a twice-differentiable matrix norm.")
        from .._tensor import Tensor
        return ((Tensor._make_plain(u) * g.unsqueeze(-2)) @ Tensor._make_plain(vh),)

    def np_backward(ctx, g):
        u, vh, _ = ctx.args
        return ((u * g[..., None, :]) @ vh,)


def svdvals(A, *, driver=None, out=None):
    """Singular values of a matrix (or of each in a batch), in descending order.

    Shapes: (*, m, n) -> (*, min(m, n)). Gradient: U diag(grad) Vh (PyTorch's
    svd_backward without U/V gradients); not differentiable twice here.
    """
    x = _float_matrices(A, "linalg.svdvals", square=False)
    with _quiet():
        u, s, vh = np.linalg.svd(x, full_matrices=False)
    return record(LinalgSvdBackward0, s.astype(x.dtype, copy=False), (A,),
                  args=(u, vh, A._requires_grad))


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The ord-norm of ``x`` viewed as a vector (flattened when ``dim`` is None, else
    over ``dim``): ord 2 (default), 1, inf, -inf, 0 or any real.

    Gradient (derivatives.yaml, linalg_vector_norm_backward): x / ||x|| for ord 2
    (0 at a zero vector), sign(x) for ord 1, split among the ties for +-inf.

    Raises:
        TypeError: a string ord (use matrix_norm for 'fro'/'nuc').
        RuntimeError: an integer input.
    """
    from . import reduction
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' must be Number, not str. Fix: "
                        "torch.linalg.matrix_norm(A, ord=%r) for a matrix norm." % ord)
    if dtype is not None:
        x = x.to(dtype)
    return reduction.norm(x, ord, dim, keepdim)


_MATRIX_ORDS = ("fro", "nuc", 2, -2, 1, -1, float("inf"), float("-inf"))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dims ``dim``: 'fro' (default), 'nuc' (sum of the
    singular values), 2 / -2 (largest / smallest singular value), 1 / -1 (max / min
    column sum of |a|), inf / -inf (max / min row sum of |a|).

    Built as PyTorch builds it (vector_norm, amax/amin, svdvals), so the
    gradients and grad_fn are PyTorch's.

    Raises:
        RuntimeError: fewer than 2 dims, a dim that is not a 2-tuple, another ord.
    """
    from . import reduction
    if dtype is not None:
        A = A.to(dtype)
    nd = A.dim()
    if nd < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got %s"
                           % (" ".join(map(str, dim)) if isinstance(dim, (tuple, list))
                              else dim))
    if ord not in _MATRIX_ORDS:
        raise RuntimeError("linalg.matrix_norm: Order %s not supported." % (ord,))
    from .._tensor import _wrap_dim
    d0, d1 = (_wrap_dim(d, nd) for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        s = svdvals(A.movedim((d0, d1), (-2, -1)))
        res = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        for d in sorted((d0, d1)) if keepdim else ():
            res = res.unsqueeze(d)
        return res
    if abs(ord) == float("inf"):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = vector_norm(A, 1, d0, keepdim)
    return (reduction.amax if ord > 0 else reduction.amin)(sums, d1, keepdim)


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """``torch.linalg.norm``: a vector norm (``dim`` an int, or a 1-D input) or a
    matrix norm (``dim`` a 2-tuple, or a 2-D input with ``ord`` given); with
    neither ``ord`` nor ``dim``, the 2-norm of the flattened input.

    Raises:
        RuntimeError: ``ord`` without ``dim`` on an input that is not 1-D or 2-D.
    """
    if isinstance(dim, int):
        dim = (dim,)
    if isinstance(ord, str):
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           "Got %s" % list(dim))
    if dim is None and ord is not None and A.dim() not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                           "1D or 2D. Got %dD." % A.dim())
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2)):
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


# ------------------------------------------------------ kron, tensordot, cdist
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


def tensordot(a, b, dims=2, out=None):
    """Contract the last ``dims`` dims of ``a`` with the first ``dims`` of ``b`` (an int),
    or the listed dims (a pair of lists/tuples, or a 2-row tensor). Shape: a's free dims
    then b's free dims. Composed of permute, reshape and mm (grad_fn ViewBackward0, as
    PyTorch).

    Raises:
        RuntimeError: contracted dims of different sizes, or a negative ``dims``.
    """
    from .._tensor import Tensor as _T
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


def _cdist_backward(ctx, g):
    x1, x2 = ctx.saved_tensors
    p = ctx.args
    r = ctx.result
    n1, n2 = ctx.needs_input_grad
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)          # (..., P, R, M)
    dd = r.unsqueeze(-1)
    from .elementwise import where
    if p == 1:
        w = diff.sign() * g.unsqueeze(-1)
    elif p == 2:
        w = where(dd == 0, 0.0, diff * (g.unsqueeze(-1) / dd))
    else:
        w = where(dd == 0, 0.0, diff * diff.abs() ** (p - 2) * (g.unsqueeze(-1)
                                                                   / dd ** (p - 1)))
    g1 = w.sum(-2) if n1 else None
    g2 = -w.sum(-3) if n2 else None
    return g1, g2


class CdistBackward0(Node):
    __slots__ = ()
    saves = True
    backward = _cdist_backward


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of ``x1`` (..., P, M) and ``x2`` (..., R, M):
    shape (..., P, R), batch dims broadcast. ``p`` > 0 finite (p = inf, 0: not here).

    Gradient (PyTorch's _cdist_backward): ``sum_j g_ij * d|x1_i - x2_j|_p``, zero where
    a distance is 0; it is not differentiable twice (as PyTorch).

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
    if p == 0 or p == float("inf"):
        raise NotImplementedError("leafgrad's cdist supports finite p > 0")
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    with _quiet():
        out = (diff ** p).sum(-1) ** (1.0 / p) if p != 1 else diff.sum(-1)
        if p == 2:
            out = np.sqrt((diff * diff).sum(-1))
    out = np.asarray(out, dtype=np.result_type(a, b))
    return record(CdistBackward0, out, (x1, x2), saved=(x1, x2), save_result=True, args=p)


def _trace_backward(ctx, g):
    shape = ctx.args
    return (g * to_tensor(np.eye(shape[0], shape[1], dtype=g._data.dtype)),)


class TraceBackward0(Node):
    __slots__ = ()
    saves = False
    backward = _trace_backward


def trace(input):
    """Sum of the main diagonal of a 2-D tensor: a 0-d tensor (integer inputs give
    int64). Gradient: ``g * eye`` (PyTorch's trace_backward).

    Raises:
        RuntimeError: for an input that is not 2-D.
    """
    x = input._data
    if x.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim %d" % x.ndim)
    out = np.trace(x)
    if x.dtype.kind in "biu":
        out = np.asarray(out, dtype=np.int64)
    return record(TraceBackward0, np.asarray(out, dtype=out.dtype if x.dtype.kind in "biu"
                                             else x.dtype), (input,), args=x.shape)
