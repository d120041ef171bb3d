"""``torch.einsum`` as PyTorch computes it: a composite of recorded ops (diagonal,
unsqueeze, permute, sum, bmm, view), so the graph, its grad_fn names, second order and
float rounding follow PyTorch's.

The algorithm (PyTorch's aten/src/ATen/native/Linear.cpp, ``einsum`` and
``sumproduct_pair``; written anew here): every label gets a position in one aligned
order (output labels first, in output order, then the contracted ones); each operand
takes the diagonal of repeated labels, gains size-1 dims for the labels it lacks and is
permuted to that order; operands are then contracted left to right, two at a time, by
``sumproduct_pair`` (dims only one side has are summed first; the rest become one bmm
of (shared, left-only, summed) x (shared, summed, right-only), viewed and permuted back),
and the contracted dims are dropped at the end with a view (a sum for one operand).
PyTorch picks the pairing order with opt_einsum when it is installed; without it (as in
a plain install) it goes left to right, as here.
"""
from ..._core import errors as _errors


def _labels(lhs, n_ops):
    """Each operand's labels: letters, or '.' for an ellipsis."""
    out, cur, i = [[]], 0, 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if "." in out[cur]:
                raise RuntimeError("einsum(): found '.' for operand %d for which an ellipsis "
                                   "was already found" % cur)
            if lhs[i:i + 3] != "...":
                raise RuntimeError("einsum(): found '.' for operand %d that is not part of any "
                                   "ellipsis" % cur)
            out[cur].append(".")
            i += 2
        elif c == ",":
            cur += 1
            if cur >= n_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
            out.append([])
        elif c.isascii() and c.isalpha():
            out[cur].append(c)
        else:
            raise RuntimeError("einsum(): invalid subscript given at index %d in the equation "
                               "string, subscripts must be in [a-zA-Z]" % i)
        i += 1
    if cur != n_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    return out


def _order(c):
    # PyTorch numbers labels A-Z then a-z: the contracted labels go in that order
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + 26


def einsum(equation, ops):
    """The einsum of ``ops`` (tensors) under ``equation`` (PyTorch's rules and errors)."""
    if not ops:
        raise RuntimeError("einsum(): must provide at least one operand")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _labels(lhs, len(ops))
    count, ell_nd = _count_labels(ops, op_labels)
    pos, out_nd, ell_index, n_dims = _positions(equation, arrow, lhs, count, ell_nd)
    aligned, dim_counts = _align(ops, op_labels, pos, ell_nd, ell_index, n_dims)
    res = _contract(aligned, dim_counts, out_nd, n_dims)
    if n_dims - out_nd > 0:
        if len(ops) > 1:
            return res.view(res.shape[:out_nd])
        return res.sum(list(range(out_nd, n_dims)))
    return res


def _count_labels(ops, op_labels):
    """label -> how many operands name it, and the ellipsis's dims (the most any
    operand's covers); checks each operand's label count against its dims."""
    count = {}
    ell_nd = 0
    for i, (t, labels) in enumerate(zip(ops, op_labels)):
        n = len([c for c in labels if c != "."])
        has_ell = "." in labels
        if has_ell:
            ell_nd = max(ell_nd, t.dim() - n)
        for c in labels:
            if c != ".":
                count[c] = count.get(c, 0) + 1
        if (n > t.dim()) if has_ell else (n != t.dim()):
            raise RuntimeError(
                "einsum(): the number of subscripts in the equation (%d) %s (%d) for operand %d%s"
                % (n, "is more than the number of dimensions" if has_ell else
                   "does not match the number of dimensions", t.dim(), i,
                   "" if has_ell else " and no ellipsis was given"))
    return count, ell_nd


def _positions(equation, arrow, lhs, count, ell_nd):
    """Every label's place in the aligned order (output labels first, then the
    contracted ones A-Z, a-z). Returns (label -> place, the output's dims, the
    ellipsis's first place, the number of aligned dims)."""
    pos = {}            # label -> its place in the aligned order
    perm_index = 0
    ell_index = 0
    ell_out = False
    if arrow < 0:       # implicit output: the ellipsis, then the labels seen once
        perm_index = ell_nd
        ell_out = True
        for c in sorted(count, key=_order):
            if count[c] == 1:
                pos[c] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2:]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if ell_out:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) "
                                       "was already found")
                if rhs[i:i + 3] != "...":
                    raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                       "ellipsis (...)")
                ell_index, ell_out = perm_index, True
                perm_index += ell_nd
                i += 2
            elif c != " ":
                if not (c.isascii() and c.isalpha()):
                    raise RuntimeError("einsum(): invalid subscript given at index %d in the "
                                       "equation string, subscripts must be in [a-zA-Z]"
                                       % (len(lhs) + 2 + i))
                if c not in count or c in pos:
                    raise RuntimeError("einsum(): output subscript %s %s" % (
                        c, "appears more than once in the output" if c in pos else
                        "does not appear in the equation for any input operand"))
                pos[c] = perm_index
                perm_index += 1
            i += 1
    out_nd = perm_index
    if not ell_out:
        ell_index = perm_index
        perm_index += ell_nd
    for c in sorted(count, key=_order):
        if c not in pos:
            pos[c] = perm_index
            perm_index += 1
    return pos, out_nd, ell_index, perm_index


def _align(ops, op_labels, pos, ell_nd, ell_index, perm_index):
    """Each operand aligned to the common order: diagonals of repeated labels,
    unsqueezes for the labels it lacks, one permute. Returns the aligned
    operands and, per aligned dim, how many operands have it with size > 1."""
    label_size = {}
    ell_sizes = [1] * ell_nd
    dim_counts = [0] * perm_index
    aligned = []
    for i, (op, labels) in enumerate(zip(ops, op_labels)):
        perm = [-1] * perm_index
        dim = 0
        for c in labels:
            if c == ".":
                nd = ops[i].dim() - (len(labels) - 1)
                for j in range(ell_nd - nd, ell_nd):
                    s = op.shape[dim]
                    if s != 1:
                        if ell_sizes[j] not in (1, s):
                            raise RuntimeError(
                                "einsum(): dimension %d covered by ellipsis in operand %dhas "
                                "size %d which does not broadcast with previously seen "
                                "ellipsis with size %d for the respective dimension"
                                % (dim, i, s, ell_sizes[j]))
                        ell_sizes[j] = s
                        dim_counts[ell_index + j] += 1
                    perm[ell_index + j] = dim
                    dim += 1
            elif perm[pos[c]] == -1:
                s = op.shape[dim]
                if s != 1:
                    if label_size.get(c, 1) not in (1, s):
                        raise RuntimeError(
                            "einsum(): subscript %s has size %d for operand %d which does not "
                            "broadcast with previously seen size %d" % (c, s, i, label_size[c]))
                    label_size[c] = s
                    dim_counts[pos[c]] += 1
                perm[pos[c]] = dim
                dim += 1
            else:       # a repeated label: its diagonal
                prev = perm[pos[c]]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(
                        "einsum(): subscript %s is repeated for operand %d but the sizes don't "
                        "match, %d != %d" % (c, i, op.shape[dim], op.shape[prev]))
                op = op.diagonal(0, prev, dim).movedim(-1, prev)
        for k, v in enumerate(perm):
            if v == -1:
                op = op.unsqueeze(dim)
                perm[k] = dim
                dim += 1
        aligned.append(op.permute(perm))
    return aligned, dim_counts


def _contract(aligned, dim_counts, out_nd, perm_index):
    """The aligned operands contracted left to right, two at a time: a dim that
    only one side still has is summed first, one both have and no later operand
    has is summed by the pair's bmm."""
    while len(aligned) > 1:
        a, b = aligned.pop(0), aligned.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_nd, perm_index):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = a.sum(a_sum, True)
        if b_sum:
            b = b.sum(b_sum, True)
        aligned.insert(0, _sumproduct_pair(a, b, sum_dims))
    return aligned[0]


def _sumproduct_pair(left, right, sum_dims):
    """sum over ``sum_dims`` of left * right (same rank, broadcasting size-1 dims), as one
    bmm; the summed dims stay, with size 1 (PyTorch's keepdim=True)."""
    if not sum_dims:
        return left * right
    summed = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left.dim()):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = ([left.shape[d] for d in lro] + [left.shape[d] for d in lo]
                + [1] * len(sum_dims) + [right.shape[d] for d in ro])
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    lm = left.permute(lperm).reshape(lro_size, lo_size, sum_size)
    rm = right.permute(rperm).reshape(lro_size, sum_size, ro_size)
    return lm.bmm(rm).view(out_size).permute(operm)


del _errors
