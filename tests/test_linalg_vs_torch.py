"""torch.linalg (inv, det, solve, svdvals, vector_norm, matrix_norm, norm) against real
PyTorch, in float64: values, the output's grad_fn, first and second derivatives,
and the exception class of each misuse.

The hypothesis rows in op_table.py cover random shapes; these cases are the
fixed points where a convention matters: singular matrices, batches, vector
right-hand sides, ``left=False``, every matrix-norm order and dim layout.
"""
import warnings

import numpy as np
import pytest
import torch as real_torch

import leafgrad
from _outcome import builtin_name

F64 = "float64"


def _t(T, rows):
    return T.tensor(rows, dtype=T.float64, requires_grad=True)


def _A(T):
    return _t(T, [[2.0, 1.0, 0.5], [1.0, 3.0, -1.0], [0.2, 0.1, 4.0]])


def _Ab(T):
    return _t(T, [[[2.0, 1.0], [1.0, 3.0]], [[1.0, -2.0], [0.5, 4.0]]])


def _full_rank_slices(T):
    return _t(T, [[[2.0, 1.0], [1.0, 3.0]], [[1.0, -2.0], [0.7, 4.0]]])


def _singular(T):
    return _t(T, [[1.0, 2.0], [2.0, 4.0]])


def _R(T):
    return _t(T, [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])


def _b(T):
    return _t(T, [1.0, -2.0, 0.5])


def _B(T):
    return _t(T, [[1.0, 0.0], [-2.0, 1.0], [0.5, 3.0]])


def _derivs(T, f, *xs, second=False):
    """(output, its grad_fn name, first derivatives[, second derivatives]) of a
    weighted sum of the output."""
    out = f(*xs)
    w = T.arange(out.numel(), dtype=out.dtype).reshape(out.shape) + 1
    gs = T.autograd.grad((out * w).sum(), xs, create_graph=second)
    res = [out.detach(), type(out.grad_fn).__name__] + [g.detach() for g in gs]
    if second:
        g2 = T.autograd.grad(sum((g * g).sum() for g in gs), xs, allow_unused=True)
        res += [None if g is None else g.detach() for g in g2]
    return res


def _det_grad_create_graph(T, a):
    return [g.detach() for g in T.autograd.grad(T.linalg.det(a), a, create_graph=True)]


def _cases(T):
    L = T.linalg
    inf = float("inf")
    return {
        "inv": lambda: _derivs(T, L.inv, _A(T), second=True),
        "inv:batch": lambda: _derivs(T, L.inv, _Ab(T), second=True),
        "inverse": lambda: _derivs(T, T.inverse, _A(T)),
        "Tensor.inverse": lambda: _derivs(T, lambda a: a.inverse(), _A(T)),
        "det": lambda: _derivs(T, L.det, _A(T), second=True),
        "det:batch": lambda: _derivs(T, L.det, _Ab(T), second=True),
        # exactly singular: 0 without create_graph, the cofactor matrix with it
        "det:singular": lambda: _derivs(T, L.det, _singular(T)),
        "det:singular_create_graph": lambda: _det_grad_create_graph(T, _singular(T)),
        "det:torch": lambda: _derivs(T, T.det, _A(T)),
        "det:empty": lambda: [L.det(T.ones(0, 0))],
        "det:float32": lambda: [L.det(T.tensor([[2.0, 1.0], [1.0, 3.0]]))],
        "solve:vector": lambda: _derivs(T, L.solve, _A(T), _b(T), second=True),
        "solve:matrix": lambda: _derivs(T, L.solve, _A(T), _B(T), second=True),
        "solve:batch_of_vectors": lambda: _derivs(T, L.solve, _Ab(T),
                                                  _t(T, [[1.0, 2.0], [3.0, -1.0]])),
        "solve:broadcast_vector": lambda: _derivs(T, L.solve, _Ab(T), _t(T, [1.0, 2.0])),
        "solve:left_false": lambda: _derivs(T, lambda a, bb: L.solve(a, bb, left=False),
                                            _A(T), _R(T), second=True),
        "solve:3d_rhs": lambda: [L.solve(T.eye(2), T.ones(2, 2, 3))],
        "svdvals": lambda: _derivs(T, L.svdvals, _R(T)),
        "vector_norm": lambda: _derivs(T, L.vector_norm, _A(T), second=True),
        "vector_norm:1_dim": lambda: _derivs(T, lambda a: L.vector_norm(a, 1, dim=0), _A(T)),
        "vector_norm:inf_keepdim": lambda: _derivs(
            T, lambda a: L.vector_norm(a, inf, dim=(0, 1), keepdim=True), _A(T)),
        "vector_norm:3": lambda: _derivs(T, lambda a: L.vector_norm(a, 3, dim=-1), _A(T),
                                         second=True),
        "vector_norm:dtype": lambda: [L.vector_norm(T.tensor([3.0, 4.0]), dtype=T.float64)],
        "matrix_norm:fro": lambda: _derivs(T, L.matrix_norm, _Ab(T), second=True),
        "matrix_norm:-1": lambda: _derivs(T, lambda a: L.matrix_norm(a, -1), _Ab(T)),
        "matrix_norm:inf": lambda: _derivs(T, lambda a: L.matrix_norm(a, inf), _Ab(T)),
        "matrix_norm:-inf_keepdim": lambda: _derivs(
            T, lambda a: L.matrix_norm(a, -inf, keepdim=True), _Ab(T)),
        "matrix_norm:1_dims": lambda: _derivs(T, lambda a: L.matrix_norm(a, 1, dim=(0, 2)),
                                              _Ab(T)),
        "matrix_norm:inf_reversed_dims": lambda: _derivs(
            T, lambda a: L.matrix_norm(a, inf, dim=(2, 0), keepdim=True), _Ab(T)),
        "matrix_norm:2": lambda: _derivs(T, lambda a: L.matrix_norm(a, 2), _A(T)),
        "matrix_norm:-2": lambda: _derivs(T, lambda a: L.matrix_norm(a, -2), _R(T)),
        "matrix_norm:nuc": lambda: _derivs(T, lambda a: L.matrix_norm(a, "nuc"), _Ab(T)),
        "norm:default": lambda: _derivs(T, L.norm, _Ab(T)),
        "norm:2_of_matrix": lambda: _derivs(T, lambda a: L.norm(a, 2), _A(T)),
        "norm:2_of_vector": lambda: _derivs(T, lambda a: L.norm(a, 2), _b(T)),
        "norm:dim": lambda: _derivs(T, lambda a: L.norm(a, dim=1), _A(T)),
        "norm:1_dims": lambda: _derivs(T, lambda a: L.norm(a, 1, dim=(1, 2)), _Ab(T)),
        "norm:fro": lambda: _derivs(T, lambda a: L.norm(a, "fro"), _A(T)),
        # every (dim 0, dim 1) slice full rank with distinct singular values: the nuclear
        # norm's gradient U V^T is unique there (at a rank-deficient slice, as _Ab's
        # [:, :, 0], it is any subgradient LAPACK happens to give)
        "norm:nuc_dims": lambda: _derivs(T, lambda a: L.norm(a, "nuc", dim=(0, 1)), _full_rank_slices(T)),
        "norm:none_dims": lambda: _derivs(T, lambda a: L.norm(a, dim=(0, 1)), _Ab(T)),
        "norm:inf_vector": lambda: _derivs(T, lambda a: L.norm(a, inf), _b(T)),
        "norm:keepdim": lambda: _derivs(T, lambda a: L.norm(a, keepdim=True), _A(T)),
        "norm:zero": lambda: _derivs(T, L.norm, T.zeros(2, 2, dtype=T.float64,
                                                        requires_grad=True)),
        # misuse
        "inv:singular": lambda: L.inv(T.zeros(2, 2)),
        "inv:batch_singular": lambda: L.inv(T.stack([T.eye(2), T.zeros(2, 2)])),
        "inv:non_square": lambda: L.inv(T.zeros(2, 3)),
        "inv:int": lambda: L.inv(T.ones(2, 2, dtype=T.long)),
        "inv:0d": lambda: L.inv(T.tensor(2.0)),
        "det:non_square": lambda: L.det(T.zeros(2, 3)),
        "solve:singular": lambda: L.solve(T.zeros(2, 2), T.ones(2)),
        "solve:shapes": lambda: L.solve(T.eye(2), T.ones(3)),
        "solve:dtypes": lambda: L.solve(T.eye(2), T.ones(2, dtype=T.float64)),
        "solve:left_false_shapes": lambda: L.solve(T.eye(2), T.ones(2, 3), left=False),
        "norm:ord_without_dim_3d": lambda: L.norm(T.ones(2, 2, 2), 2),
        "norm:fro_of_vector": lambda: L.norm(T.ones(3), "fro"),
        "norm:nuc_with_one_dim": lambda: L.norm(T.ones(2, 3), ord="nuc", dim=1),
        "matrix_norm:vector": lambda: L.matrix_norm(T.ones(3)),
        "matrix_norm:ord_3": lambda: L.matrix_norm(T.ones(2, 2), ord=3),
        "vector_norm:long": lambda: L.vector_norm(T.ones(2, dtype=T.long)),
        "vector_norm:str_ord": lambda: L.vector_norm(T.ones(2, 3), ord="fro"),
    }


def _outcome(T, name):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _cases(T)[name]()
    except Exception as e:  # noqa: BLE001
        return ("error", builtin_name(type(e)))


@pytest.mark.parametrize("name", sorted(_cases(real_torch)))
def test_linalg_matches_torch(name):
    want, got = _outcome(real_torch, name), _outcome(leafgrad, name)
    if isinstance(want, tuple):
        assert got == want
        return
    assert isinstance(got, list) and len(got) == len(want), got
    for i, (a, b) in enumerate(zip(got, want)):
        if isinstance(b, str) or b is None:
            assert a == b, "item %d" % i
            continue
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape), "item %d" % i
        np.testing.assert_allclose(np.array(a.tolist(), dtype=float),
                                   np.array(b.tolist(), dtype=float), rtol=1e-9, atol=1e-6,
                                   err_msg="%s item %d" % (name, i))


def test_linalg_error_class():
    assert issubclass(leafgrad.linalg.LinAlgError, RuntimeError)
    with pytest.raises(leafgrad.linalg.LinAlgError, match="singular.*Fix"):
        leafgrad.linalg.inv(leafgrad.zeros(2, 2))


def test_second_derivative_of_singular_values_says_so():
    a = leafgrad.tensor([[2.0, 1.0], [0.0, 3.0]], requires_grad=True)
    (g,) = leafgrad.autograd.grad(leafgrad.linalg.matrix_norm(a, 2), a, create_graph=False)
    assert g.shape == (2, 2)
    with pytest.raises(NotImplementedError, match="ord='fro'"):
        leafgrad.autograd.grad(leafgrad.linalg.matrix_norm(a, 2), a, create_graph=True)
