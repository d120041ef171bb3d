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
                                  "trapezoid x", "cumulative_trapezoid x"])
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


def test_out_form_returns_out_itself():
    a, b, _ = _inputs(leafgrad)
    o = leafgrad.empty(())
    assert leafgrad.nansum(a.detach(), out=o) is o
    o2 = leafgrad.empty(3, 3)
    assert leafgrad.inner(a.detach(), b.detach(), out=o2) is o2
