"""Edge values for every op-table row, in every run (issue 25, item 6).

Beside the random programs of test_fuzz_vs_torch.py, each row of tests/op_table.py
(with the nn / reduce / complex / FFT rows) runs once per dtype (float64, float32) on
inputs built deterministically from the edge values: +-0, +-inf, nan, the smallest
subnormal, the largest finite, +-1, +-0.5, 2.5, +-100 and the row's own poles and
branch points (``POLES``). Compared with real PyTorch: the exception class of a call
that raises, every output's dtype and shape, nan / inf at the same places (inf with its
sign), the sign bit of zeros, finite values within float tolerances, and the gradients
of a fixed weighted sum of the outputs (the same comparisons, or the exception class).

Inputs: an elementwise row (its inputs and outputs all 1-D of one length when given
1-D inputs) gets the meshgrid of the edge values over its inputs (every pair / triple
of edge values in one call). Any other row gets the shapes and parameters of one of its
own strategy's draws (seeded: the same on every run), filled with distinct ordinary
values of its domain with a few edge values placed among them, one group per call
(nan with +-0, +-inf, the largest finite with each sign), so that no two edge values
decide the result together in an order-dependent way.

Where PyTorch's own CPU kernels disagree (vectorized loop vs scalar tail, FMA vs not:
checked by running PyTorch with ATEN_CPU_CAPABILITY=default), the comparison means
nothing: ``MASKED`` leaves out only those elements of an elementwise row (a gradient at
nan), ``EXCUSED`` whole rows, ``FINITE_ONLY`` the nan / inf groups, ``UNSIGNED_ZEROS`` the
sign of zero parts of complex results; each with its reason. ``FOUND``: differences
found and not fixed yet, each an xfail(strict=True): the test turns red when it is fixed.
The random rows (rrelu_:training, gumbel_softmax) are compared too: each call starts
both libraries' global generators from manual_seed(0), and leafgrad's draws PyTorch's
numbers.
"""
import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, Phase, given, seed, settings

import leafgrad
from _outcome import builtin_name
from _program import FRAGILE, _flat, _gen, _kw_as
from op_rows_complex import ROWS as _COMPLEX_ROWS
from op_rows_fft import ROWS as _FFT_ROWS
from op_table import DOMAINS, ROWS

DTYPES = (np.float64, np.float32)
TOL = {np.float64: (1e-7, 1e-9), np.float32: (2e-4, 2e-5)}


def edge_values(dtype):
    fi = np.finfo(dtype)
    sub = float(fi.smallest_subnormal)
    big = float(fi.max)
    return [0.0, -0.0, math.inf, -math.inf, math.nan, sub, -sub, big, -big,
            1.0, -1.0, 0.5, -0.5, 2.5, 100.0, -100.0]


# poles and branch points of the rows' functions, beyond the edge values above
POLES = {
    "tan": [math.pi / 2, -math.pi / 2],
    "lgamma": [-2.0, -1.5, -3.0], "lgamma:negative": [-2.0, -1.5, -3.0],
    "digamma": [-2.0, -1.5, -3.0], "digamma:negative": [-2.0, -1.5, -3.0],
    "polygamma": [-2.0, -1.5], "polygamma:method": [-2.0, -1.5],
    "lgamma_": [-2.0, -1.5], "polygamma_": [-2.0, -1.5],
    "mvlgamma": [1.5, 0.75, 1.25],
    "erfinv": [0.9999999], "erfinv_": [0.9999999],
    "acosh": [1.0000001], "logit:eps": [1e-6, 0.999999],
    "special_zeta": [1.0000001, 2.0],
    "igamma": [2.0, 1e-3], "igamma:input_grad": [2.0, 1e-3],
    "round": [1.5, -1.5, -2.5], "trunc": [-1.5], "frac": [-1.5], "floor": [-1.5],
    "ceil": [-1.5], "fix": [-1.5],
    "sinc": [1e-30, 2.0, -3.0],
}

# rows whose comparison means nothing here, with the reason (keep it short)
_FMA = ("PyTorch's vectorized kernel fuses a * b + c (FMA), so where a product overflows "
        "(inf + 2.5 x -1.8e308) it gives inf and its default (non-FMA) kernel nan, as "
        "leafgrad; zeros' signs (0 + 5e-324 x -5e-324) differ the same way")
EXCUSED = {
    **{n: _FMA for n in ("add:alpha", "addcmul", "addcmul_", "lerp:tensor_weight", "lerp_",
                         "addr_")},
    **{n: "PyTorch's normalisation kernels (vectorized two-pass / Welford statistics) give "
          "other nan / inf and zero signs at inf and 1.8e308 inputs on its AVX2 and default "
          "kernels" for n in ("batch_norm", "group_norm")},
    **{n: "complex arithmetic at inf / 1.8e308: PyTorch's vectorized complex kernels and "
          "its scalar (C99) ones give other inf / nan" for n in ("polar", "view_as_complex")},
}


def _any_nan(xs):
    return np.any([np.isnan(x) for x in xs], axis=0)


def _quotient_overflows(xs):
    with np.errstate(all="ignore"):
        return ~np.isfinite(xs[0] / xs[1]) & np.isfinite(xs[0])


def _logit_poles(xs):
    return (xs[0] == 0) | (xs[0] == 1) | np.isnan(xs[0])


# elements of elementwise rows that are not compared, where PyTorch's own CPU kernels
# disagree: its vectorized loop gives one value and its scalar tail another (where the
# tail starts depends on the CPU's vector width; tests/fuzz/known_mismatches.py).
# name: (reason, mask of the inputs, gradients only)
_NAN_GRAD = {
    "hardtanh": "hardtanh_backward at a nan input: 0 vectorized, g in the scalar tail",
    "elu": "elu_backward (float64) at a nan input: nan vectorized, g in the scalar tail",
    "hardswish": "hardswish_backward at a nan input: nan vectorized, g in the scalar tail",
}
_FMOD = ("fmod at a / b beyond the largest float (1 / 5e-324, 1.8e308 / 0.5): PyTorch's "
         "vectorized fmod gives nan, its scalar std::fmod (and leafgrad) the exact remainder")
MASKED = {
    **{n: (_NAN_GRAD["hardtanh"], _any_nan, True) for n in ("hardtanh", "hardtanh_", "relu6")},
    **{n: (_NAN_GRAD["elu"], _any_nan, True) for n in (
        "elu", "elu_", "selu", "selu_", "selu_:torch", "celu", "celu_", "celu_:torch")},
    "hardswish": (_NAN_GRAD["hardswish"], _any_nan, True),
    **{n: ("logit_backward at x = +-0, 1 and (with eps) nan: its scalar loop (tensors "
               "under 2 x the vector width) gives dy * inf / nan, its vectorized loop dy / (x (1 "
               "- x)) / 0 (leafgrad)", _logit_poles, True) for n in ("logit", "logit:eps",
                                                                     "logit_")},
    "fmod": (_FMOD, _quotient_overflows, False),
    "remainder": (_FMOD, _quotient_overflows, False),
}

# rows through complex values (their real outputs are real / imaginary parts): the sign
# of a zero part is not compared, PyTorch's own vectorized and scalar complex kernels give
# other signs (neg of a complex -0.0 - 0.0j is 0.0 on AVX2, -0.0 on the default kernel)
UNSIGNED_ZEROS = {r.name for r in _COMPLEX_ROWS + _FFT_ROWS}
# and the rows whose zero sign PyTorch's kernel choice decides: clamp with tensor bounds
# min(max(0.0, 0.0), -0.0) is 0.0 in its scalar loop (fewer than 8 / 16 elements) and
# -0.0 in its vector loop (the SIMD min returns the second operand on ties)
UNSIGNED_ZEROS |= {"clamp:tensor_bounds"}

# rows given the finite groups only (no nan / inf), with the reason
FINITE_ONLY = {
    "svdvals": "at an inf input PyTorch's singular vectors (so svdvals' gradient) are what its "
               "LAPACK left in a non-converged gesdd (permutations); leafgrad gives nan singular "
               "values with identity vectors, and the values are compared in "
               "tests/test_svd_nonfinite_vs_torch.py",
}

# differences found and not fixed yet: xfail(strict=True). Each: the first difference the
# test reports (dtype, inputs, which output or gradient, at which input values, leafgrad's
# value vs torch's); a diagnosis where there is one.
FOUND = {
    'real': 'float64, meshgrid: output 0: 16 of 256 differ, e.g. (inputs 1.8e308, 1.8e308): -inf '
            'vs torch nan; (1.8e308, -1.8e308): inf vs torch nan (complex arithmetic of the row at'
            ' the largest finite parts)',
    'conj': 'float64, big [(4, 2, 3), (4, 2, 3)]: output 0: 2 of 48 differ, e.g. (0, 0, 0, 0): '
            '-1.4161e+290 vs torch 0.0; (0, 1, 0, 0): inf vs torch nan',
    'special_ndtri': 'float64, meshgrid: output 0: 2 of 16 differ, e.g. (5,) (inputs 5e-324): '
                     '-38.4630 vs torch -38.4674; (11,) (inputs 0.5): -0.0 vs torch 0.0',
    'special_log_ndtr': 'float32, meshgrid: grad of input 0: 1 of 16 differ, e.g. (15,) (inputs '
                        '-100.0): 1687.8991 vs torch 1674.7641',
    'special_i1': "PyTorch's value at nan looks uninitialized (as for the polynomial rows in "
                  'known_mismatches.py). float64, meshgrid: grad of input 0: 1 of 16 differ, e.g. '
                  '(4,) (inputs nan): nan vs torch 2.6265',
    'special_i1e': 'float64, meshgrid: grad of input 0: 3 of 16 differ, e.g. (4,) (inputs nan): '
                   'nan vs torch 2.6265; (5,) (inputs 5e-324): -inf vs torch 2.8255; (6,) (inputs '
                   '-5e-324): -inf vs torch 2.2132',
    'igamma:input_grad': 'float64, meshgrid: output 0: 5 of 324 differ, e.g. (95,) (inputs 5e-324,'
                         ' 5e-324): inf vs torch 0.0; (99,) (inputs 5e-324, 1.0): 1.0 vs torch '
                         '0.0; (101,) (inputs 5e-324, 0.5): inf vs torch 0.0; (107,) (inputs '
                         '5e-324, 0.001): inf vs torch 0.0',
    'special_zeta': 'zeta(s, inf) is 0 in leafgrad, nan in PyTorch. float64, inf [(4, 2, 3)], '
                    'output 0: 1 of 24 differ, e.g. (0, 0, 0) (inputs inf): 0.0 vs torch nan',
    'inv': "LAPACK: PyTorch's inverse of a matrix holding nan is nan everywhere, NumPy's (OpenBLAS"
           ' getrf / getri) leaves entries finite. float64, nan [(4, 4)]: output 0: 12 of 16 '
           'differ, e.g. (1, 0) (inputs -1.6234): 0.1448 vs torch nan; (1, 1) (inputs 0.0): 0.3432'
           ' vs torch nan; (1, 2) (inputs -0.0837): -0.0145 vs torch nan; (1, 3) (inputs -1.3610):'
           ' 0.0304 vs torch nan',
    'inv:method': 'as inv. float64, nan [(4, 4)]: output 0: 12 of 16 differ, e.g. (1, 0) (inputs '
                  '0.0512): -0.0059 vs torch nan; (1, 1) (inputs 0.0): 0.6772 vs torch nan; (1, 2)'
                  ' (inputs 0.7561): -0.0344 vs torch nan; (1, 3) (inputs 1.3669): -0.0696 vs '
                  'torch nan',
    'det': "LAPACK: a matrix holding inf: PyTorch's LU gives det nan, NumPy's inf. float64, inf "
           '[(4, 4)]: output 0: 1 of 1 differ, e.g. (): inf vs torch nan',
    'det:method': 'as det. float64, inf [(4, 4)]: output 0: 1 of 1 differ, e.g. (): inf vs torch '
                  'nan',
    'glu': 'float64, big [(4, 2, 6)]: grad of input 0: 1 of 48 differ, e.g. (0, 0, 3) (inputs '
           '0.3286): inf vs torch 4.9742e+307',
    'addcdiv': 'float64, meshgrid: output 0: 194 of 4096 differ, e.g. (114,) (inputs 0.0, 1.8e308,'
               ' inf): 0.0 vs torch nan; (115,) (inputs 0.0, 1.8e308, -inf): 0.0 vs torch nan; '
               '(119,) (inputs 0.0, 1.8e308, 1.8e308): -2.0 vs torch -inf; (120,) (inputs 0.0, '
               '1.8e308, -1.8',
    'addcdiv_': 'float64, meshgrid: grad of input 2: 115 of 4096 differ, e.g. (114,) (inputs 0.0, '
                '1.8e308, inf): nan vs torch -0.0; (115,) (inputs 0.0, 1.8e308, -inf): nan vs '
                'torch -0.0; (126,) (inputs 0.0, 1.8e308, 100.0): -inf vs torch -2.4954e+304; '
                '(130,) (inputs 0.0',
    'median:ties': 'float64, inf [(4, 2, 3)]: output 0: 1 of 1 differ, e.g. (): -0.0 vs torch 0.0',
    'mode': "float64, nan [(4, 2, 3)], kw={'dim': 2, 'keepdim': True}: output 0: 1 of 8 differ, "
            'e.g. (0, 0, 0): 0.0453 vs torch nan',
    'addr': "float64, big [(4, 3), (4,), (3,)], kw={'beta': 1, 'alpha': 2.0}: output 0: 1 of 12 "
            'differ, e.g. (3, 1) (inputs 1.6088): 1.8e308 vs torch inf',
    'addbmm_': "float64, big [(3, 2), (4, 3, 3), (4, 3, 2)], kw={'beta': -2, 'alpha': -0.5}: "
               'output 0: 1 of 6 differ, e.g. (1, 1) (inputs -1.0991): -inf vs torch -1.2481e+308',
    'bilinear': 'float64, big [(2, 2, 4), (2, 2, 3), (4, 4, 3), (4,)]: grad of input 0: 4 of 16 '
                'differ, e.g. (0, 1, 0) (inputs 1.4795): nan vs torch inf; (0, 1, 1) (inputs 0.5):'
                ' nan vs torch -inf; (0, 1, 2) (inputs -0.2484): nan vs torch inf; (1, 0, 2) '
                '(inputs -1.0): -9',
    'bilinear:nobias': 'float64, big [(2, 2, 4), (2, 2, 3), (4, 4, 3), (4,)]: grad of input 0: 4 '
                       'of 16 differ, e.g. (0, 0, 2) (inputs -0.6223): -9.0129e+307 vs torch -inf;'
                       ' (0, 1, 0) (inputs 0.2863): nan vs torch -inf; (0, 1, 1) (inputs 0.5): nan'
                       ' vs torch -inf; (1, 0, 2) (input',
    'angle': 'float64, meshgrid: output 0: 18 of 256 differ, e.g. (86,) (inputs 5e-324, -5e-324): '
             '3.1415 vs torch 0.0; (101,) (inputs -5e-324, 5e-324): 3.1415 vs torch 0.0; (119,) '
             '(inputs 1.8e308, 1.8e308): 2.3561 vs torch nan; (120,) (inputs 1.8e308, -1.8e308): '
             '0.78',
    'add:complex': "PyTorch's add with a 0-d complex operand multiplies the other by alpha = 1+0j "
                   '(C99 complex multiplication: inf - 0.97j becomes inf + nanj); NumPy adds '
                   'without it. float64, inf [(), (), (3, 4, 3), (3, 4, 3)]: output 0: 4 of 72 '
                   'differ, e.g. (0, 2, 0, 1): inf vs torch nan; (0, 3, 0, 0): inf vs torch nan; '
                   '(1, 1, 0, 1): inf vs torch nan; (1, 2, 0, 0): inf vs torch nan',
    'sub:complex': 'as add:complex (alpha = 1+0j multiplies the other operand). float64, inf [(), '
                   '(), (3, 4, 3), (3, 4, 3)]: output 0: 4 of 72 differ, e.g. (0, 2, 0, 1): inf vs'
                   ' torch nan; (0, 3, 0, 0): inf vs torch nan; (1, 1, 0, 1): inf vs torch nan; '
                   '(1, 2, 0, 0): inf vs torch nan',
    'mul:complex': 'float64, big [(), (), (3, 4, 3), (3, 4, 3)]: output 0: 14 of 72 differ, e.g. '
                   '(0, 0, 1, 1): -1.6910e+308 vs torch -inf; (0, 0, 2, 0): -inf vs torch nan; (0,'
                   ' 1, 0, 0): inf vs torch nan; (0, 1, 2, 0): -8.9442e+307 vs torch -inf',
    'abs:complex': 'float64, inf [(4, 2, 3), (4, 2, 3)]: grad of input 0: 4 of 24 differ, e.g. (0,'
                   ' 0, 0) (inputs inf, 0.4876): 1.1369 vs torch nan; (0, 1, 0) (inputs -1.6184, '
                   'inf): 0.0 vs torch nan; (1, 0, 0) (inputs -inf, 1.7226): -1.3574 vs torch nan;'
                   ' (1, 1, 0) (inputs -',
    'reshape:complex': 'float64, inf [(4, 2, 3), (4, 2, 3)]: grad of input 0: 4 of 24 differ, e.g.'
                       ' (0, 0, 0) (inputs inf, 1.0569): inf vs torch nan; (0, 1, 0) (inputs '
                       '-1.8206, inf): inf vs torch nan; (1, 0, 0) (inputs -inf, -0.9658): -inf vs'
                       ' torch nan; (1, 1, 0) (inputs 1.9037',
    'cat:complex': 'float64, inf [(4, 2, 3), (4, 2, 3)]: grad of input 0: 4 of 24 differ, e.g. (0,'
                   ' 0, 0) (inputs inf, -0.5869): inf vs torch nan; (0, 1, 0) (inputs -1.8852, '
                   'inf): inf vs torch nan; (1, 0, 0) (inputs -inf, -0.1317): -inf vs torch nan; '
                   '(1, 1, 0) (inputs 0.487',
    'stack:complex': 'float64, inf [(4, 2, 3), (4, 2, 3)]: grad of input 0: 1 of 24 differ, e.g. '
                     '(0, 0, 0) (inputs inf, 0.9486): inf vs torch nan',
    'matmul:complex': 'float64, inf [(3, 3), (3, 3), (3, 3), (3, 3)]: output 0: 4 of 18 differ, '
                      'e.g. (2, 0, 0): nan vs torch -inf; (2, 0, 1): nan vs torch inf; (2, 2, 0): '
                      'nan vs torch inf; (2, 2, 1): nan vs torch -inf',
}


# ------------------------------------------------------------------ inputs
_BIGGEST = 120     # elements per input, at most, of a drawn (non-elementwise) example


def drawn_example(row):
    """The largest of the first 8 draws of the row's strategy (seeded, so the same on
    every run and machine): ``(shapes, kw)``."""
    out = []

    @seed(20251202)
    @settings(max_examples=8, phases=[Phase.generate], database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(_gen(row))
    def draws(ex):
        out.append(ex)
    draws()

    def size(ex):
        n = sum(int(np.prod(s)) for s in ex[0])
        return n if max((int(np.prod(s)) for s in ex[0]), default=0) <= _BIGGEST else -1
    return max(out, key=size)


def meshgrid_inputs(row, dtype, n_inputs):
    e = edge_values(dtype) + POLES.get(row.name, [])
    grids = np.meshgrid(*([np.array(e)] * n_inputs), indexing="ij")
    return [g.ravel() for g in grids]


def _groups(dtype, fragile):
    fi = np.finfo(dtype)
    sub, big = float(fi.smallest_subnormal), float(fi.max)
    zeros = [0.0] if fragile else [0.0, -0.0]    # +0 and -0 tie: which one wins is a choice
    return {"nan": [math.nan] + zeros + [sub], "inf": [math.inf, -math.inf, -sub, 1.0],
            "big": [big, 0.5, -1.0], "-big": [-big, 1.0, 0.5]}


def placed_inputs(row, shapes, dtype, group):
    """Distinct ordinary values of each input's domain with the group's edge values
    placed among them (spread out; another offset per input)."""
    rng = np.random.default_rng(len(row.name))
    vals = _groups(dtype, row.name in FRAGILE)[group]
    out = []
    for j, (s, dom) in enumerate(zip(shapes, row.domains_for(len(shapes)))):
        n = int(np.prod(s))
        a = np.asarray(DOMAINS[dom](rng, (n,)), dtype=np.float64)
        k = min(n, len(vals))
        if k:
            stride = max(1, n // len(vals))
            pos = [(j * 3 + i * stride) % n for i in range(k)]
            a[pos] = vals[:k]
        out.append(a.reshape(s))
    return out


# ------------------------------------------------------------------ running
class Result:
    def __init__(self, T, row, arrays, kw, dtype):
        self.error = self.grad_error = None
        self.outs, self.grads = [], []
        T.manual_seed(0)        # random rows draw the same numbers in both libraries
        self.xs = [T.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
        try:
            outs = _flat(row.fn(T, *self.xs, **_kw_as(dict(kw), dtype)))
        except Exception as e:      # noqa: BLE001 - compared with the other library
            self.error = e
            return
        self.outs = [o for o in outs if isinstance(o, T.Tensor)]
        loss = None
        for i, o in enumerate(self.outs):
            if not o.requires_grad:
                continue
            w = np.random.default_rng(i).uniform(0.5, 1.5, tuple(o.shape))
            if o.is_complex():
                w = w + 0.25j
            term = (o * T.tensor(w, dtype=o.dtype)).sum()
            if term.is_complex():
                term = term.real
            loss = term if loss is None else loss + term
        if loss is None:
            return
        try:
            self.grads = list(T.autograd.grad(loss, self.xs, allow_unused=True))
        except Exception as e:      # noqa: BLE001
            self.grad_error = e


def _np(t):
    if t is None:
        return None
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().resolve_neg().numpy(force=True).copy()
    return np.asarray(t.detach().numpy()).copy()


def close(a, b, dtype, what, signed_zeros=True, skip=None, inputs=()):
    """leafgrad's array ``a`` against torch's ``b``: "" when they agree, else why (the
    sign of a zero counts with ``signed_zeros``: values, not gradients, whose zeros' signs
    depend on the order a backward formula adds its terms). ``skip``: a mask of elements
    not compared; ``inputs``: arrays of the same shape, shown at the first differences."""
    if a is None and b is None:
        return ""
    a = np.zeros_like(b) if a is None else a
    b = np.zeros_like(a) if b is None else b
    if a.shape != b.shape:
        return "%s: shape %s, torch %s" % (what, a.shape, b.shape)
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        return (close(a.real, b.real, dtype, what + " (real part)", signed_zeros, skip, inputs)
                or close(a.imag, b.imag, dtype, what + " (imaginary part)", signed_zeros,
                         skip, inputs))
    if a.dtype.kind not in "f" or b.dtype.kind not in "f":
        return "" if np.array_equal(a, b) else "%s: %s, torch %s" % (what, a, b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bad = np.isnan(a64) != np.isnan(b64)
    bad |= np.isposinf(a64) != np.isposinf(b64)
    bad |= np.isneginf(a64) != np.isneginf(b64)
    if signed_zeros:
        bad |= (a64 == 0) & (b64 == 0) & (np.signbit(a64) != np.signbit(b64))
    rtol, atol = TOL[dtype]
    fin = np.isfinite(a64) & np.isfinite(b64)
    a0, b0 = np.where(fin, a64, 0.0), np.where(fin, b64, 0.0)
    bad |= fin & ~(np.abs(a0 - b0) <= atol + rtol * np.abs(b0))
    if skip is not None and skip.shape == bad.shape:
        bad &= ~skip
    if not bad.any():
        return ""
    shown = []
    for i in np.argwhere(bad)[:4]:
        i = tuple(int(v) for v in i)
        at = ", ".join(repr(float(x[i])) for x in inputs if x.shape == bad.shape)
        shown.append("%s%s: %r vs torch %r" % (i, " (inputs %s)" % at if at else "",
                                               a[i].item(), b[i].item()))
    return "%s: %d of %d differ, e.g. %s" % (what, int(bad.sum()), bad.size, "; ".join(shown))


def _same_error(le, te, what):
    if te is None and le is None:
        return ""
    if te is None:
        return "%s: leafgrad raised %s: %s; torch did not" % (what, type(le).__name__, le)
    if le is None:
        return "%s: torch raised %s: %s; leafgrad did not" % (what, type(te).__name__, te)
    if builtin_name(type(le)) != builtin_name(type(te)):
        return "%s: leafgrad raised %s, torch %s: %s" % (what, type(le).__name__,
                                                         type(te).__name__, te)
    return ""


def compare(row, arrays, kw, dtype):
    """The differences between leafgrad and torch on one call (a list of strings)."""
    skip = vskip = None
    if row.name in MASKED and all(x.shape == arrays[0].shape for x in arrays):
        _, mask, grads_only = MASKED[row.name]
        skip = mask([x.astype(dtype) for x in arrays])
        vskip = None if grads_only else skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = Result(torch, row, arrays, kw, dtype)
        lg = Result(leafgrad, row, arrays, kw, dtype)
    msg = _same_error(lg.error, t.error, "call")
    if msg or t.error is not None:
        return [msg] if msg else []
    if len(lg.outs) != len(t.outs):
        return ["%d outputs, torch %d" % (len(lg.outs), len(t.outs))]
    diffs = []
    for k, (a, b) in enumerate(zip(lg.outs, t.outs)):
        if str(a.dtype) != str(b.dtype):
            diffs.append("output %d: dtype %s, torch %s" % (k, a.dtype, b.dtype))
            continue
        diffs.append(close(_np(a), _np(b), dtype, "output %d" % k,
                           row.name not in UNSIGNED_ZEROS, vskip, arrays))
    diffs.append(_same_error(lg.grad_error, t.grad_error, "backward"))
    if t.grad_error is None and lg.grad_error is None:
        for k, (a, b) in enumerate(zip(lg.grads or [None] * len(t.grads), t.grads)):
            diffs.append(close(_np(a), _np(b), dtype, "grad of input %d" % k, False, skip,
                               arrays))
    return [d for d in diffs if d]


def elementwise(row, dtype):
    """The meshgrid inputs and the parameters when ``row`` is elementwise on them (torch
    runs it on 1-D inputs and gives 1-D outputs of their length), else None."""
    kw = {} if row.gen is None else drawn_example(row)[1]
    n_inputs = row.arity
    if n_inputs > 4:
        return None
    arrays = meshgrid_inputs(row, dtype, n_inputs)
    m = arrays[0].size
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = _flat(row.fn(torch, *[torch.tensor(a.astype(dtype), requires_grad=True)
                                         for a in arrays], **_kw_as(dict(kw), dtype)))
    except Exception:       # noqa: BLE001 - not elementwise on these inputs
        return None
    outs = [o for o in outs if isinstance(o, torch.Tensor)]
    if outs and all(tuple(o.shape) == (m,) for o in outs):
        return arrays, kw
    return None


def cases(row, dtype):
    """(label, input arrays, kw) of the calls made for ``row`` in ``dtype``."""
    ew = elementwise(row, dtype)
    if ew is not None:
        return [("meshgrid", ew[0], ew[1])]
    shapes, kw = drawn_example(row)
    return [("%s %s" % (g, list(shapes)), placed_inputs(row, shapes, dtype, g), kw)
            for g in ("nan", "inf", "big", "-big")
            if row.name not in FINITE_ONLY or g in ("big", "-big")]


def row_differences(row):
    out = []
    for dtype in DTYPES:
        for label, arrays, kw in cases(row, dtype):
            for d in compare(row, arrays, kw, dtype):
                out.append("%s, %s, kw=%s: %s" % (np.dtype(dtype).name, label, kw, d))
    return out


def _params():
    out = []
    for r in ROWS:
        marks = []
        if r.name in FOUND:
            marks = [pytest.mark.xfail(strict=True, reason=FOUND[r.name])]
        out.append(pytest.param(r, id=r.name, marks=marks))
    return out


@pytest.mark.parametrize("row", _params())
def test_edge_values_match_torch(row):
    if row.name in EXCUSED:
        pytest.skip(EXCUSED[row.name])
    diffs = row_differences(row)
    assert not diffs, "%s differs from torch at edge values:\n%s" % (
        row.name, "\n".join(diffs[:8]))
