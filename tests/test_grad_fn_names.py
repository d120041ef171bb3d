"""grad_fn names of composite ops (leafgrad builds them from smaller ones) are PyTorch's:
``type(y.grad_fn).__name__`` and ``y.grad_fn.name()`` against torch, and the gradient is
unchanged by the naming (the named node passes it through)."""
import numpy as np
import pytest
import torch

import leafgrad


def _inputs(T):
    rng = np.random.default_rng(0)
    a = T.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    b = T.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    sq = T.tensor(rng.standard_normal((3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32),
                  requires_grad=True)
    return a, b, sq


CASES = {
    "dist": lambda T, a, b, sq: T.dist(a, b),
    "dist p1": lambda T, a, b, sq: T.dist(a, b, 1),
    "rot90": lambda T, a, b, sq: T.rot90(a),
    "rot90 k0": lambda T, a, b, sq: T.rot90(a, 0),
    "rot90 k2": lambda T, a, b, sq: T.rot90(a, 2, (1, 0)),
    "quantile": lambda T, a, b, sq: T.quantile(a, 0.3),
    "quantile dim": lambda T, a, b, sq: T.quantile(a, 0.3, dim=1, keepdim=True),
    "nanquantile": lambda T, a, b, sq: T.nanquantile(a, T.tensor([0.2, 0.7]), dim=0),
    "kron": lambda T, a, b, sq: T.kron(a, b),
    "pdist": lambda T, a, b, sq: T.pdist(a),
    "combinations": lambda T, a, b, sq: T.combinations(a[0], 2),
    "glu": lambda T, a, b, sq: T.nn.functional.glu(a),
    "pairwise_distance": lambda T, a, b, sq: T.nn.functional.pairwise_distance(a, b),
    "masked_select": lambda T, a, b, sq: T.masked_select(a, a > 0),
    "group_norm": lambda T, a, b, sq: T.nn.functional.group_norm(a.reshape(1, 3, 4), 3),
    "std_mean": lambda T, a, b, sq: T.std_mean(a, 0),
    "var_mean": lambda T, a, b, sq: T.var_mean(a),
    "aminmax": lambda T, a, b, sq: tuple(T.aminmax(a, dim=1)),
    "nansum": lambda T, a, b, sq: T.nansum(a, 1),
    "addmm beta alpha": lambda T, a, b, sq: T.addmm(sq, sq, sq, beta=0.5, alpha=2),
    "linalg.cross": lambda T, a, b, sq: T.linalg.cross(a[:, :3], b[:, :3]),
    "cross": lambda T, a, b, sq: T.cross(a[:, :3], b[:, :3], dim=1),
    "renorm": lambda T, a, b, sq: T.renorm(a, 2, 0, 1.0),
    "block_diag": lambda T, a, b, sq: T.block_diag(a, b),
    "pinv": lambda T, a, b, sq: T.linalg.pinv(a),
    "linalg.lu": lambda T, a, b, sq: tuple(T.linalg.lu(sq))[1:],
    "lu_solve": lambda T, a, b, sq: T.linalg.lu_solve(*T.linalg.lu_factor(sq), b[:, :3]),
    "inner": lambda T, a, b, sq: T.inner(a, b),
    "inner vec": lambda T, a, b, sq: T.inner(a[0], b[1]),
    "vdot": lambda T, a, b, sq: T.vdot(a[0], b[1]),
    "unique_consecutive": lambda T, a, b, sq: T.unique_consecutive(a.detach().round()
                                                                   .requires_grad_()),
    "cov": lambda T, a, b, sq: T.cov(a),
    "column_stack": lambda T, a, b, sq: T.column_stack([a, b]),
    "trapezoid": lambda T, a, b, sq: T.trapezoid(a),
    "trapezoid dx": lambda T, a, b, sq: T.trapezoid(a, dx=0.5),
    "trapezoid x": lambda T, a, b, sq: T.trapezoid(a, a),
    "cumulative_trapezoid": lambda T, a, b, sq: T.cumulative_trapezoid(a, dx=2.0),
    "cumulative_trapezoid x": lambda T, a, b, sq: T.cumulative_trapezoid(a, a),
    # issue 13's list: composites recorded as PyTorch records them
    "einsum mm": lambda T, a, b, sq: T.einsum("ij,kj->ik", a, b),
    "einsum diag": lambda T, a, b, sq: T.einsum("ii->i", sq),
    "einsum trace": lambda T, a, b, sq: T.einsum("ii", sq),
    "einsum dot": lambda T, a, b, sq: T.einsum("ij,ij->", a, b),
    "einsum outer": lambda T, a, b, sq: T.einsum("i,j->ij", a[0], b[1]),
    "einsum mul": lambda T, a, b, sq: T.einsum("ij,ij->ij", a, b),
    "einsum transpose": lambda T, a, b, sq: T.einsum("ij->ji", a),
    "einsum sum": lambda T, a, b, sq: T.einsum("ij->", a),
    "einsum implicit": lambda T, a, b, sq: T.einsum("ij,jk", a, b.T),
    "einsum ellipsis": lambda T, a, b, sq: T.einsum("...j,...j->...", a, b),
    "einsum three": lambda T, a, b, sq: T.einsum("ij,jk,kl->il", a, b.T, sq),
    "einsum list": lambda T, a, b, sq: T.einsum("bi,bj->bij", [a, b]),
    "logdet": lambda T, a, b, sq: T.logdet(sq),
    "logdet negative": lambda T, a, b, sq: T.logdet(-sq),
    "multi_dot": lambda T, a, b, sq: T.linalg.multi_dot([a, b.T, sq]),
    "multi_dot two": lambda T, a, b, sq: T.linalg.multi_dot([a, b.T]),
    "multi_dot vectors": lambda T, a, b, sq: T.linalg.multi_dot([a[0], b.T, sq[0]]),
    "multi_dot four": lambda T, a, b, sq: T.linalg.multi_dot([sq, a, b.T, sq]),
    "cond": lambda T, a, b, sq: T.linalg.cond(sq),
    "cond -2": lambda T, a, b, sq: T.linalg.cond(a, -2),
    "cond fro": lambda T, a, b, sq: T.linalg.cond(sq, "fro"),
    "cond nuc": lambda T, a, b, sq: T.linalg.cond(sq, "nuc"),
    "cond 1": lambda T, a, b, sq: T.linalg.cond(sq, 1),
    "householder_product": lambda T, a, b, sq: T.linalg.householder_product(a.T, b[0, :3]),
    "orgqr": lambda T, a, b, sq: T.orgqr(a.T, b[0, :3]),
    "matmul vec-mat": lambda T, a, b, sq: T.matmul(a[:, 0], b),
    "matmul mat-vec": lambda T, a, b, sq: T.matmul(a, b[0]),
    "matmul batch-vec": lambda T, a, b, sq: T.matmul(a.reshape(3, 2, 2), b[0, :2]),
    "reshape after t": lambda T, a, b, sq: a.t().reshape(12),
    "reshape after t viewable": lambda T, a, b, sq: a.t().reshape(4, 3, 1),
    "reshape contiguous": lambda T, a, b, sq: a.reshape(2, 6),
    "flatten after t": lambda T, a, b, sq: a.t().flatten(),
    "view after t": lambda T, a, b, sq: a.t().view(4, 3),
    "clamp_min": lambda T, a, b, sq: T.clamp_min(a, 0.1),
    "clamp_max": lambda T, a, b, sq: a.clamp_max(0.1),
    "clamp_min tensor": lambda T, a, b, sq: T.clamp_min(a, b),
    "clamp_max tensor": lambda T, a, b, sq: T.clamp_max(a, b),
    "clamp_min_": lambda T, a, b, sq: a.clone().clamp_min_(0.0),
    "clamp": lambda T, a, b, sq: a.clamp(-0.1, 0.1),
    "fmod number": lambda T, a, b, sq: T.fmod(a, 1.5),
    "fmod tensor": lambda T, a, b, sq: T.fmod(a, b),
    "remainder number": lambda T, a, b, sq: a % 1.5,
    "remainder tensor": lambda T, a, b, sq: T.remainder(a, b),
    "copysign number": lambda T, a, b, sq: T.copysign(a, -1.0),
    "copysign tensor": lambda T, a, b, sq: T.copysign(a, b),
    "fill_ number": lambda T, a, b, sq: a.clone().fill_(2.0),
    "fill_ tensor": lambda T, a, b, sq: a.clone().fill_(b[0, 0]),
    "masked_fill tensor": lambda T, a, b, sq: a.masked_fill(b > 0, sq[0, 0]),
    "masked_fill number": lambda T, a, b, sq: a.masked_fill(b > 0, 1.0),
    "masked_fill_ tensor": lambda T, a, b, sq: a.clone().masked_fill_(b > 0, sq[0, 0]),
    "nll_loss 2d": lambda T, a, b, sq: T.nn.functional.nll_loss(
        a.reshape(1, 3, 2, 2), T.zeros(1, 2, 2, dtype=T.long)),
    "nll_loss 2d none": lambda T, a, b, sq: T.nn.functional.nll_loss(
        a.reshape(1, 3, 2, 2), T.ones(1, 2, 2, dtype=T.long), reduction="none"),
    "nll_loss 3d": lambda T, a, b, sq: T.nn.functional.nll_loss(
        a.reshape(1, 3, 4), T.zeros(1, 4, dtype=T.long)),
    "nll_loss 3d none": lambda T, a, b, sq: T.nn.functional.nll_loss(
        a.reshape(1, 3, 4), T.zeros(1, 4, dtype=T.long), reduction="none"),
    "nll_loss 1d": lambda T, a, b, sq: T.nn.functional.nll_loss(a, T.zeros(3, dtype=T.long)),
    "cross_entropy 2d": lambda T, a, b, sq: T.nn.functional.cross_entropy(
        a.reshape(1, 3, 2, 2), T.zeros(1, 2, 2, dtype=T.long)),
    "kl_div": lambda T, a, b, sq: T.nn.functional.kl_div(a, b, reduction="batchmean"),
    "kl_div log_target": lambda T, a, b, sq: T.nn.functional.kl_div(a, b, log_target=True,
                                                                    reduction="sum"),
    "cummin": lambda T, a, b, sq: tuple(T.cummin(a, 1))[:1],
    "sum_to_size": lambda T, a, b, sq: a.sum_to_size(1, 4),
    "broadcast_tensors": lambda T, a, b, sq: tuple(T.broadcast_tensors(a[:1], b[:, :1])),
    "special_ndtr": lambda T, a, b, sq: T.special.ndtr(a),
}


def _names(res):
    res = res if isinstance(res, tuple) else (res,)
    return [(type(r.grad_fn).__name__, r.grad_fn.name()) for r in res]


@pytest.mark.parametrize("case", sorted(CASES))
def test_grad_fn_name_as_torch(case):
    f = CASES[case]
    assert _names(f(leafgrad, *_inputs(leafgrad))) == _names(f(torch, *_inputs(torch)))


@pytest.mark.parametrize("case", ["dist", "rot90", "glu", "std_mean", "addmm beta alpha",
                                  "inner", "block_diag", "pdist", "quantile dim",
                                  "trapezoid x", "cumulative_trapezoid x",
                                  "einsum mm", "einsum diag", "einsum trace", "einsum three",
                                  "einsum ellipsis", "einsum outer", "logdet", "multi_dot",
                                  "multi_dot vectors", "multi_dot four", "cond", "cond -2",
                                  "cond nuc", "householder_product",
                                  "matmul vec-mat", "reshape after t", "clamp_min tensor",
                                  "fmod number", "fmod tensor", "copysign number",
                                  "fill_ tensor", "masked_fill tensor", "nll_loss 2d",
                                  "nll_loss 2d none", "nll_loss 3d none", "cross_entropy 2d",
                                  "special_ndtr"])
def test_gradient_through_the_named_node_as_torch(case):
    f = CASES[case]
    grads = []
    for T in (torch, leafgrad):
        xs = _inputs(T)
        res = f(T, *xs)
        res = res if isinstance(res, tuple) else (res,)
        total = sum((r * (i + 1)).sum() for i, r in enumerate(res))
        g = T.autograd.grad(total, xs, allow_unused=True)
        grads.append([None if v is None else v.detach().numpy() for v in g])
    for u, v in zip(*grads):
        assert (u is None) == (v is None)
        if u is not None:
            np.testing.assert_allclose(u, v, rtol=1e-4, atol=1e-5)


def test_broadcast_tensors_returns_an_unexpanded_input_itself():
    for T in (torch, leafgrad):
        a, b, _ = _inputs(T)
        assert T.broadcast_tensors(a[:1], b)[1] is b


def test_cond_fro_has_a_gradient_where_torch_raises():
    # PyTorch's cond(A, 'fro' / 1 / inf) fills the saved inverse in place and its backward
    # raises; leafgrad's gives the gradient of the same formula (checked here numerically)
    A = leafgrad.tensor(np.array([[2.0, 1.0], [0.5, 3.0]]), requires_grad=True)
    g, = leafgrad.autograd.grad(leafgrad.linalg.cond(A, "fro"), A)
    eps, num = 1e-6, np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            d = np.zeros((2, 2))
            d[i, j] = eps
            num[i, j] = (np.linalg.cond(A.detach().numpy() + d, "fro")
                         - np.linalg.cond(A.detach().numpy() - d, "fro")) / (2 * eps)
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-6, atol=1e-8)


def test_fill_with_a_tensor_value_passes_its_gradient_as_torch():
    grads = []
    for T in (torch, leafgrad):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = T.tensor(2.0, requires_grad=True)
        y = x.clone()
        y[1:].fill_(v)
        z = x.clone().fill_(v)
        ((y + z) * T.tensor([1.0, 2.0, 3.0])).sum().backward()
        grads.append((x.grad.tolist(), v.grad.item()))
    assert grads[0] == grads[1]


EINSUMS = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
           ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("i,i->", [(3,), (3,)]),
           ("i,j->ij", [(2,), (3,)]), ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
           ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("iij->j", [(3, 3, 2)]),
           ("ij,ij->ij", [(2, 3), (2, 3)]), ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
           ("ij->", [(2, 3)]), ("i,i,i->i", [(4,), (4,), (4,)]), ("ab,b->a", [(3, 1), (4,)])]


@pytest.mark.parametrize("eq,shapes", EINSUMS)
def test_einsum_values_grads_second_order_and_graph_as_torch(eq, shapes):
    rng = np.random.default_rng(0)
    data = [rng.standard_normal(s) for s in shapes]
    res = []
    for T in (torch, leafgrad):
        xs = [T.tensor(d, requires_grad=True) for d in data]
        y = T.einsum(eq, *xs)
        gs = T.autograd.grad((y * y).sum(), xs, create_graph=True)
        ggs = T.autograd.grad(sum((g * g).sum() for g in gs), xs)
        res.append((y.detach().numpy(), [g.detach().numpy() for g in gs],
                    [g.numpy() for g in ggs], y.grad_fn.name()))
    (y1, g1, gg1, n1), (y2, g2, gg2, n2) = res
    assert n1 == n2
    np.testing.assert_allclose(y2, y1, rtol=1e-12, atol=1e-12)
    for u, v in zip(g1 + gg1, g2 + gg2):
        np.testing.assert_allclose(v, u, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("call", [
    lambda T, x: T.einsum("ij,jk->ik", x, x[:2]),
    lambda T, x: T.einsum("ij,jk", x),
    lambda T, x: T.einsum("ij->ik", x),
    lambda T, x: T.einsum("ij->ii", x),
    lambda T, x: T.einsum("i1->i", x),
    lambda T, x: T.einsum("ijk->i", x),
    lambda T, x: T.einsum("ii->i", x[:2]),
])
def test_einsum_errors_as_torch(call):
    msgs = []
    for T in (torch, leafgrad):
        try:
            call(T, T.ones(3, 3))
        except Exception as e:   # noqa: BLE001
            msgs.append((type(e).__mro__[-3].__name__ if type(e) is not RuntimeError else
                         "RuntimeError", str(e).split(". Fix:")[0]))
        else:
            msgs.append(None)
    assert msgs[0] == msgs[1] and msgs[0] is not None


def test_out_form_returns_out_itself():
    a, b, _ = _inputs(leafgrad)
    o = leafgrad.empty(())
    assert leafgrad.nansum(a.detach(), out=o) is o
    o2 = leafgrad.empty(3, 3)
    assert leafgrad.inner(a.detach(), b.detach(), out=o2) is o2
