"""LAPACK-backed results have PyTorch's memory layout: each matrix column-major (PyTorch
returns LAPACK's Fortran-ordered buffers), XA = B solves row-major. The layout decides
``stride()``, ``is_contiguous()`` and whether ``view(-1)`` works, so leafgrad must match
it (a fuzzer finding: ``solve(left=False).view(-1)`` failed here and worked in PyTorch)."""
import pytest
import torch

import leafgrad


def _f64(T, *shape):
    return T.randn(*shape, dtype=T.float64)


def _spd(T, *batch):
    a = _f64(T, *batch, 3, 3)
    return a @ a.mT + 3 * T.eye(3, dtype=T.float64)


CASES = {
    "solve": lambda T: T.linalg.solve(_f64(T, 3, 3), _f64(T, 3, 4)),
    "solve_left_false": lambda T: T.linalg.solve(_f64(T, 3, 3), _f64(T, 4, 3), left=False),
    "solve_batched": lambda T: T.linalg.solve(_f64(T, 2, 3, 3), _f64(T, 2, 3, 4)),
    "solve_batched_left_false": lambda T: T.linalg.solve(_f64(T, 2, 2, 3, 3), _f64(T, 2, 3),
                                                         left=False),
    "solve_ex": lambda T: T.linalg.solve_ex(_f64(T, 3, 3), _f64(T, 3, 4)).result,
    "solve_triangular": lambda T: T.linalg.solve_triangular(_f64(T, 3, 3), _f64(T, 3, 4),
                                                            upper=True),
    "solve_triangular_left_false": lambda T: T.linalg.solve_triangular(
        _f64(T, 3, 3), _f64(T, 4, 3), upper=True, left=False),
    "solve_triangular_batched": lambda T: T.linalg.solve_triangular(
        _f64(T, 2, 3, 3), _f64(T, 2, 3, 4), upper=False),
    "inv": lambda T: T.linalg.inv(_f64(T, 3, 3)),
    "inv_batched": lambda T: T.linalg.inv(_f64(T, 2, 3, 3)),
    "inverse": lambda T: T.inverse(_f64(T, 3, 3)),
    "inv_ex": lambda T: T.linalg.inv_ex(_f64(T, 3, 3)).inverse,
    "cholesky": lambda T: T.linalg.cholesky(_spd(T)),
    "cholesky_upper": lambda T: T.linalg.cholesky(_spd(T), upper=True),
    "cholesky_batched": lambda T: T.linalg.cholesky(_spd(T, 2)),
    "cholesky_ex": lambda T: T.linalg.cholesky_ex(_spd(T)).L,
    "qr_q": lambda T: T.linalg.qr(_f64(T, 4, 3)).Q,
    "qr_r": lambda T: T.linalg.qr(_f64(T, 4, 3)).R,
    "qr_complete_q": lambda T: T.linalg.qr(_f64(T, 4, 3), mode="complete").Q,
    "qr_batched_r": lambda T: T.linalg.qr(_f64(T, 2, 4, 3)).R,
    "eigh": lambda T: T.linalg.eigh(_spd(T)).eigenvectors,
    "eigh_batched": lambda T: T.linalg.eigh(_spd(T, 2)).eigenvectors,
    "svd_u": lambda T: T.linalg.svd(_f64(T, 4, 3), full_matrices=False).U,
    "svd_vh": lambda T: T.linalg.svd(_f64(T, 4, 3), full_matrices=False).Vh,
    "svd_full_u": lambda T: T.linalg.svd(_f64(T, 4, 3)).U,
    "svd_batched_u": lambda T: T.linalg.svd(_f64(T, 2, 4, 3), full_matrices=False).U,
    "lstsq": lambda T: T.linalg.lstsq(_f64(T, 4, 3), _f64(T, 4, 2)).solution,
    "lstsq_batched": lambda T: T.linalg.lstsq(_f64(T, 2, 4, 3), _f64(T, 2, 4, 2)).solution,
    "lstsq_wide": lambda T: T.linalg.lstsq(_f64(T, 3, 4), _f64(T, 3, 2)).solution,
    "lu_factor": lambda T: T.linalg.lu_factor(_f64(T, 3, 3)).LU,
    "geqrf": lambda T: T.geqrf(_f64(T, 4, 3))[0],
    "ldl_factor": lambda T: T.linalg.ldl_factor(_spd(T)).LD,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_layout_matches_torch(name):
    torch.manual_seed(0)
    leafgrad.manual_seed(0)
    t, lg = CASES[name](torch), CASES[name](leafgrad)
    assert tuple(lg.shape) == tuple(t.shape)
    assert tuple(lg.stride()) == tuple(t.stride()), name
    assert lg.is_contiguous() == t.is_contiguous()
    flat_ok = t.is_contiguous()
    if flat_ok:
        lg.view(-1)
    else:
        with pytest.raises(RuntimeError):
            lg.view(-1)
