"""``torch.return_types``: the named-tuple classes of PyTorch's ops with several results
(``torch.max(x, 0)`` is a ``torch.return_types.max`` with ``values`` and ``indices``).

The ops make theirs with ``ops.reduce.reduction._return_type`` (one class per name); the
same classes are named here, with PyTorch 2.13's fields, for every public name PyTorch's
module has (the ``_out`` classes too: what the ``out=`` forms return in PyTorch).
"""
from .ops.reduce.reduction import _return_type

# fields -> the names of the classes with them (PyTorch 2.13's torch.return_types)
_FIELDS = {
    ('min', 'max'): 'aminmax aminmax_out',
    ('values', 'indices'): 'cummax cummax_out cummin cummin_out kthvalue kthvalue_out max max_out median median_out min min_out mode mode_out nanmedian nanmedian_out sort sort_out topk topk_out',
    ('mantissa', 'exponent'): 'frexp frexp_out',
    ('a', 'tau'): 'geqrf geqrf_out',
    ('hist', 'bin_edges'): 'histogram histogram_out histogramdd',
    ('L', 'info'): 'linalg_cholesky_ex linalg_cholesky_ex_out',
    ('eigenvalues', 'eigenvectors'): 'linalg_eig linalg_eig_out linalg_eigh linalg_eigh_out',
    ('inverse', 'info'): 'linalg_inv_ex linalg_inv_ex_out',
    ('LD', 'pivots'): 'linalg_ldl_factor linalg_ldl_factor_out',
    ('LD', 'pivots', 'info'): 'linalg_ldl_factor_ex linalg_ldl_factor_ex_out',
    ('solution', 'residuals', 'rank', 'singular_values'): 'linalg_lstsq linalg_lstsq_out',
    ('P', 'L', 'U'): 'linalg_lu linalg_lu_out lu_unpack lu_unpack_out',
    ('LU', 'pivots'): 'linalg_lu_factor linalg_lu_factor_out',
    ('LU', 'pivots', 'info'): 'linalg_lu_factor_ex linalg_lu_factor_ex_out',
    ('Q', 'R'): 'linalg_qr linalg_qr_out qr qr_out',
    ('sign', 'logabsdet'): 'linalg_slogdet linalg_slogdet_out slogdet slogdet_out',
    ('result', 'info'): 'linalg_solve_ex linalg_solve_ex_out',
    ('U', 'S', 'Vh'): 'linalg_svd linalg_svd_out',
    ('U', 'S', 'V'): 'svd svd_out',
    ('solution', 'cloned_coefficient'): 'triangular_solve triangular_solve_out',
}

for _fields, _names in _FIELDS.items():
    for _n in _names.split():
        globals()[_n] = _return_type(_n, _fields)
del _fields, _names, _n

__all__ = sorted(n for f, names in _FIELDS.items() for n in names.split())
