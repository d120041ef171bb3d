"""Mismatches with PyTorch that the fuzzer found and that are not fixed yet.

One entry each: the reason, and a reproducer ``repro(T)`` run with ``T`` = torch and
``T`` = leafgrad; ``differs()`` is True while the two results differ (the outcome
of each is its value, or its exception class). test_known_mismatches_still_differ
fails as soon as an entry is fixed, so this list stays true.

``rows``: op-table rows the fuzzer leaves out of its programs because of the entry
(an empty tuple: the entry is a narrower case that the fuzzer's profiles do not hit,
or that it tolerates).
"""
import dataclasses
import re
import warnings
from typing import Callable, Optional, Tuple

import numpy as np

from _outcome import builtin_name


@dataclasses.dataclass
class Known:
    reason: str
    repro: Callable
    rows: Tuple[str, ...] = ()
    mutators: Tuple[str, ...] = ()   # in-place steps of the fuzzer left out (_program.INPLACE)
    fragile: Tuple[str, ...] = ()    # rows given fresh leaves of their own domain only
    tolerate: str = ""               # a regex: a mismatch whose message matches is this one
    at: Tuple[str, ...] = ()         # with tolerate: only when the failing step is one of
    #                                  these rows / in-place ops (_program.INPLACE names)
    when: Optional[Callable] = None  # with at: only when when(inputs) is true (the failing
    #                                  step's input arrays, as torch computed them)
    cpu_dependent: bool = False      # PyTorch's result depends on its CPU kernel (vector
    #                                  width: AVX2 vs AVX-512): on some machines it agrees

    def differs(self):
        import torch

        import leafgrad
        return _outcome(self.repro, torch) != _outcome(self.repro, leafgrad)


def _outcome(repro, T):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = repro(T)
    except Exception as e:   # noqa: BLE001
        return ("raises", builtin_name(type(e)))
    if hasattr(r, "detach"):
        r = r.detach().numpy()
    return ("value", repr(np.round(np.asarray(r, dtype=np.float64), 6).tolist()))


def _view_0d_inplace(T):
    x = T.tensor(2.0, requires_grad=True) * 1
    v = x.unsqueeze(0)
    v.mul_(3.0)
    return x + v.sum()


def _pow_output_modified(T):
    a = T.tensor([1.5, 2.0], requires_grad=True)
    y = a.pow(T.tensor([2.0, 3.0], requires_grad=True))
    y.add_(1)      # torch: pow saved its output for the exponent's gradient
    y.sum().backward()
    return a.grad


def _layer_norm_overflow(T):
    return T.nn.functional.layer_norm(T.tensor([[1e30, 1.0, 2.0, 3.0]]), (4,))


def _copy_from_itself(T):
    y = T.tensor([1.0, float("inf"), -2.0], requires_grad=True) * 1
    y.copy_(y * 0.5 + 1)
    return y


def _expanded_view_inplace(T):
    x = T.zeros(3, requires_grad=True) * 1
    x.expand(2, 3)[0].add_(1.0)       # the view shares no memory within itself
    return x


def _hardtanh_grad_at_nan(T):
    x = T.ones(16)
    x[0] = float("nan")
    x.requires_grad_()
    T.nn.functional.hardtanh(x).sum().backward()
    return x.grad


def _gelu_float32_inf(T):
    return T.nn.functional.gelu(T.tensor([float("inf")] * 16))


def _airy_ai_between_minus_9_and_minus_2(T):
    return T.special.airy_ai(T.tensor([-2.1], dtype=T.float64))


def _hardswish_grad_at_nan(T):
    x = T.full((16,), float("nan"), requires_grad=True)
    T.nn.functional.hardswish(x).backward(T.ones(16))
    return x.grad


def _var_mean_mean_at_inf(T):
    return T.var_mean(T.tensor([[-float("inf"), -1.8], [-1.3, float("inf")]]), 1)[1]


def _elu_grad_at_nan_float64(T):
    x = T.zeros(16, dtype=T.float64)
    x[0] = float("nan")
    x.requires_grad_()
    T.nn.functional.elu(x).sum().backward()
    return x.grad


def _kron_then_inplace(T):
    a = T.tensor([1.5, 3.0], dtype=T.float64, requires_grad=True) * 1
    b = T.tensor([[2.0]], dtype=T.float64, requires_grad=True)
    y = T.kron(a, b)
    a[0].clamp_(-2.0, 2.0)
    y.sum().backward()
    return b.grad


def _logit_grad_small_tensor(T):
    x = T.tensor([-0.0, 0.25, 1.0], requires_grad=True)
    T.logit(x).sum().backward()
    return x.grad


def _sinc_second_order_tiny(T):
    x = T.tensor([1e-30, 0.5], dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(T.sinc(x).sum(), x, create_graph=True)
    return T.autograd.grad(g.sum(), x)[0]


def _poly_at_nan(T):
    return T.special.chebyshev_polynomial_w(T.tensor([123.0, float("nan")],
                                                     dtype=T.float64), 3)


_POLY_UNINITIALIZED = tuple("special_" + n for n in (
    "chebyshev_polynomial_u", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_w", "laguerre_polynomial_l", "legendre_polynomial_p"))


def _has_nan(inputs):
    return any(a is not None and a.dtype.kind == "f" and np.isnan(a).any() for a in inputs)


def _copysign_other_modified(T):
    a = T.tensor([1.5, -2.0], requires_grad=True)
    b = T.tensor([-1.0, 1.0], requires_grad=True) * 1
    y = T.copysign(a, b)
    b.mul_(2)      # PyTorch saved self and the result, not other
    y.sum().backward()
    return a.grad


def _gemm_fma_overflow(T):
    x = T.tensor([[2e29, 2e29, 2e29, -8e29, 2e29], [8e29, -2e29, -2e29, -2e29, -2e29]])
    return T.mm(x, x.t())


# ops whose values or gradients are matrix products (NumPy's BLAS)
_GEMM_ROWS = ("matmul", "matmul:operator", "mm", "mv", "dot", "bmm", "inner", "inner:nd",
              "addmm", "addmm:beta_alpha", "einsum", "linear", "conv2d", "conv1d", "tensordot",
              "addmv", "addr", "baddbmm", "addbmm", "addmv_", "addr_", "baddbmm_", "addbmm_",
              "cov", "cov:fd", "corrcoef", "addmv:method", "bilinear", "bilinear:nobias",
              "conv_tbc", "conv_tbc:functional", "linear_cross_entropy")


def _float32_products_overflow(inputs):
    """True when two of the float32 inputs' finite magnitudes multiply past float32's max."""
    fs = [np.abs(a[np.isfinite(a)]).ravel() for a in inputs
          if a is not None and a.dtype == np.float32]
    m = np.sort(np.concatenate(fs)) if fs else np.zeros(0)
    return m.size > 0 and float(m[-1]) * float(m[-2 if m.size > 1 else -1]) > 1e38


def _relu_after_float_power_inf(T):
    a = T.tensor([4870.0, 2.0], dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(T.relu(T.float_power(1.5, a)).sum(), a, create_graph=True)
    return T.autograd.grad(g.sum(), a)[0]


def _repeat_interleave_zero_repeats_is_view(T):
    x = T.ones(1, 1, 4, requires_grad=True)
    y = T.repeat_interleave(x, 0, dim=1)
    y.sigmoid_()      # PyTorch: a new (empty) tensor; leafgrad: a view of the leaf
    return y


KNOWN = {
    "views_of_a_leaf_differ": Known(
        "some results are views of a leaf in leafgrad and new tensors in PyTorch (e.g. "
        "repeat_interleave with repeats=0, an empty result), or the other way round (a "
        "diagonal of a reshaped leaf), so an in-place op on them raises 'a view of a leaf "
        "Variable' on one side only: owner correct (one view model); the fuzzer tolerates "
        "either direction while listed",
        _repeat_interleave_zero_repeats_is_view,
        tolerate=r"a view of a leaf Variable that requires grad"),
    "relu_second_order_after_float_power_overflow": Known(
        "not diagnosed yet: the second derivative of relu(float_power(1.5, a)) where "
        "1.5 ** a overflows to inf is nan in leafgrad, inf in PyTorch (float_power alone and "
        "relu(exp(a)) agree with PyTorch, so it is how float_power's backward meets relu's "
        "selected, grad-requiring gradient). Tolerated for second-order nan / inf positions "
        "when the failing step is relu or an in-place relu_ while listed",
        _relu_after_float_power_inf, at=("relu", "relu_", "relu_:functional"),
        tolerate=r"^second-order grad of leaf\d+: (nan|inf) at other places"),
    "float32_gemm_overflow_fma": Known(
        "a float32 matrix product whose terms overflow (|a b| > 3.4e38, e.g. 1e30 x 1e9): "
        "NumPy's BLAS (OpenBLAS) accumulates with fused multiply-adds, so inf + a b stays "
        "inf where PyTorch's kernel rounds the product to -inf first and gives inf - inf = "
        "nan (and the other way round); which one a row gets is the BLAS kernel's choice. "
        "Tolerated for the matrix-product rows' nan / inf positions when two float32 "
        "inputs' magnitudes multiply past 1e38",
        _gemm_fma_overflow, at=_GEMM_ROWS, when=_float32_products_overflow,
        tolerate=r"^(value v|grad of leaf|second-order grad of leaf)\d+: (nan|inf) at other places"),
    "copysign_saves_other": Known(
        "copysign's backward in leafgrad recomputes copysign(self, other) and so saves other "
        "(PyTorch's CopysignBackward0 saves self and the result: copysign_tensor_self_"
        "backward(grad, self, result)), so changing other in place before backward raises "
        "SavedTensorModifiedError in leafgrad only; needs save_result in ops/binary._binary "
        "(as pow_output_modified_in_place). Tolerated while listed",
        _copysign_other_modified,
        tolerate=r"leafgrad raised SavedTensorModifiedError.*saved by CopysignBackward0.*torch did not"),
    "polynomial_at_nan_uninitialized": Known(
        "PyTorch's own bug: the CPU kernels of chebyshev_polynomial_u / _w, their shifted "
        "forms, laguerre_polynomial_l and legendre_polynomial_p run their recurrence "
        "`for (k = 2; k <= n && !isnan(q); k++) r = ...` and return r, which a nan input "
        "leaves uninitialized for n >= 2: the result is whatever the register held (in "
        "practice the previous element's value, e.g. 14946959 for w_3 after x = 123). "
        "leafgrad gives nan. Tolerated for these rows' values when a step input holds nan",
        _poly_at_nan, at=_POLY_UNINITIALIZED, when=_has_nan,
        tolerate=r"^value v\d+: nan at other places"),
    "logit_grad_scalar_tail": Known(
        "PyTorch's logit_backward kernel (no create_graph) has two rules: its scalar loop "
        "(tensors under 2 x the SIMD width, and the tail of longer ones) gives dy * inf at "
        "x = +-0 and 1 (+inf at -0) and, with eps, nan at a nan input; its vectorized loop and "
        "the differentiable form used under create_graph (infinitely_differentiable_logit_"
        "backward) give dy / (x (1 - x)) (-inf at -0) and 0 at nan with eps. leafgrad follows "
        "the vectorized / differentiable rule everywhere; the fuzzer tolerates first-order "
        "gradients of logit with inf / nan at other places while listed",
        _logit_grad_small_tensor, at=("logit", "logit:eps", "logit_"),
        tolerate=r"^grad of leaf\d+: (inf|nan) at other places"),
    "sinc_second_order_at_tiny_x": Known(
        "the second derivative of sinc at |x| ~ 1e-30 (float64) is the cancellation of three "
        "terms of ~1e59 in the backward graph of PyTorch's sinc_backward (pi x cos(pi x) - "
        "sin(pi x)) / (pi x^2): its value is decided by the order the engine adds those "
        "gradients (PyTorch 0, leafgrad -pi^2, the true value -pi^2/3); leafgrad uses the "
        "same formula and mask (pi x^2 == 0). Tolerated for second-order values of sinc / "
        "sinc_ while listed",
        _sinc_second_order_tiny, at=("sinc", "sinc_"),
        tolerate=r"^second-order grad of leaf\d+: values differ"),
    "elu_grad_at_nan_vectorized": Known(
        "PyTorch's float64 elu_backward sends a nan input down the x <= 0 branch (nan "
        "gradient) in its vectorized loop (16 and more elements) and down the other branch "
        "(gradient g) in its scalar tail and in float32, so no single rule matches; "
        "leafgrad gives g (the scalar rule, as for hardtanh). The fuzzer gives elu / celu / "
        "selu fresh leaves of their own domain while listed (tests/"
        "test_fuzz_findings_grid_vs_torch.py checks them at +-0, +-inf, 1e30)",
        _elu_grad_at_nan_float64, fragile=("elu", "celu", "selu", "elu_", "celu_", "celu_:torch",
                                           "selu_", "selu_:torch")),
    "var_mean_welford_mean_at_inf": Known(
        "var_mean / std_mean: PyTorch's mean comes from its Welford pass, so an inf that is "
        "the first element of a slice makes the mean nan (-inf, then -inf + inf), one that "
        "comes later gives inf; leafgrad's mean is the plain mean (inf, as torch.mean). "
        "Order-dependent kernel detail; the fuzzer gives these rows fresh leaves of their "
        "own domain while listed",
        _var_mean_mean_at_inf, fragile=("var_mean", "var_mean:unbiased_positional", "std_mean")),
    "kron_saves_a_view_of_its_input": Known(
        "kron saves reshaped views of its inputs for MulBackward0 (PyTorch's kron keeps "
        "copies), so changing an input in place after kron raises SavedTensorModifiedError "
        "in leafgrad at backward where PyTorch returns the gradient; tolerated while listed",
        _kron_then_inplace,
        tolerate=r"leafgrad raised SavedTensorModifiedError.*saved by MulBackward0.*torch did not"),
    "gelu_float32_at_inf": Known(
        "PyTorch's vectorized float32 gelu kernel gives nan at +inf (its erf approximation; "
        "a 1-element tensor takes the scalar path and gives inf); leafgrad gives the limit "
        "inf in every case. The fuzzer gives gelu fresh leaves of its own domain while listed",
        _gelu_float32_inf, fragile=("gelu",), cpu_dependent=True),
    "airy_ai_torch_float64_off": Known(
        "PyTorch's float64 airy_ai is off by up to 3e-6 on (-9, -2.09) (at -2.1: "
        "0.163487334; mpmath and leafgrad: 0.163484513, tests/test_special_vs_torch.py "
        "checks leafgrad against mpmath there); the fuzzer gives the row fresh leaves of its "
        "own domain while listed",
        _airy_ai_between_minus_9_and_minus_2, fragile=("special_airy_ai",)),
    "hardswish_grad_at_nan": Known(
        "PyTorch's hardswish_backward at a nan input is nan in its vectorized loop and g in "
        "its scalar tail (16 elements: nan; 1 element: 1, and where the tail starts depends "
        "on the vector width: AVX2 8 lanes, AVX-512 16); leafgrad passes g (the scalar rule). "
        "The fuzzer gives hardswish fresh leaves of its own domain (no nan) while listed",
        _hardswish_grad_at_nan, fragile=("hardswish",), cpu_dependent=True),
    "inplace_on_size0_view": Known(
        "issue 10 item 6 (owner: correct): an in-place op through a view of a tensor "
        "expanded along a dim of size > 1 raises 'more than one element' where the view "
        "itself shares no memory and PyTorch works (x.expand(2, 3)[0].add_(1): leafgrad's "
        "array is np.broadcast_to's, read-only; views of size-0 tensors work since the "
        "indexing fuzzer's fixes); tolerated while listed",
        _expanded_view_inplace, tolerate=r"leafgrad cannot express this view|unsupported operation: more than one element"),
    "hardtanh_grad_at_nan": Known(
        "PyTorch's own hardtanh_backward at a nan input is 0 in its vectorized loop and g in "
        "its scalar tail (16 elements: 0; 3 elements: 1), so no single rule matches; leafgrad "
        "passes g (the scalar rule). The fuzzer gives hardtanh/relu6 fresh leaves of their "
        "own domain (no nan) while listed",
        _hardtanh_grad_at_nan, fragile=("hardtanh", "relu6", "hardtanh_")),
    "pow_output_modified_in_place": Known(
        "pow with a tensor exponent (and number ** tensor) recomputes a ** b in its "
        "backward where PyTorch saves the result, so changing the result in place before "
        "backward raises in PyTorch and not in leafgrad (the gradient it computes is "
        "right); needs save_result in ops/elementwise._binary. The fuzzer found other ops "
        "whose saved set differs from PyTorch's in the same way (not all diagnosed; "
        "cumprod is fixed): it tolerates this mismatch while listed",
        _pow_output_modified, tolerate=r"torch raised RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation.*leafgrad did not"),
    "norm_layers_float32_overflow": Known(
        "layer_norm / group_norm / batch_norm of float32 values whose squares overflow "
        "(1e30): PyTorch's kernels give nan, leafgrad's statistics give finite results; "
        "the fuzzer gives these rows fresh leaves of their own domain while listed",
        _layer_norm_overflow, fragile=("layer_norm", "group_norm", "batch_norm")),
}


# Rows the fuzzer finds mismatches in that are not diagnosed yet (mostly inf/nan/large
# inputs), with the first mismatch it reported. A program whose first failing step is
# one of these rows is not counted as a failure; test_listed_findings_still_differ
# fuzzes each row again without that allowance and requires a mismatch still.
FINDINGS = {
    # the complex and FFT rows (tests/op_rows_complex.py, op_rows_fft.py), first fuzzed on
    # the day they landed: mostly nan where PyTorch has inf (or the other way round) at
    # inf / 1e30 inputs. One diagnosed: PyTorch's add/sub with a 0-d complex operand
    # multiplies the other by alpha = 1+0j, so inf - 0.97j becomes inf + nanj (C99
    # complex multiplication); NumPy adds without it. Not diagnosed yet: "values differ"
    # in float32 gradients of conj's programs and in real's. (unstable: not yet re-run
    # with twice the examples)
    "real": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "conj": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "polar": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "view_as_complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "add:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "sub:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "pow:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "log:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "sin:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "cos:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "abs:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "reshape:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "cat:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "stack:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "matmul:complex": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_fft": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_ifft": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_fft2": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_ifft2": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_fftn": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_ifftn": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_rfft": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_irfft": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_irfft2": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_irfftn": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    # rows that differed in one full run after the complex/FFT rows landed (their programs
    # changed) and not in a re-run of those rows alone: not diagnosed yet (session 9)
    "mode:ties": "differed once after the complex/FFT merge (unstable: not diagnosed)",
    "fft_hfft": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_hfft2": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    "fft_ihfftn": "nan / inf at other places at inf and 1e30 inputs, found on landing (unstable: not diagnosed)",
    # the special-function family (ops/special*.py) at inf / nan / 1e30 / large orders:
    # PyTorch's kernels' own edge branches (|x| == 1, n > 6 with |x| < 1, asymptotic
    # series) give other values or nan where leafgrad's recurrences / series do not
    "special_bessel_j0": "value differs (large |x|)",
    "special_bessel_j1": "value differs (large |x|)",
    "special_bessel_y0": "value differs (large |x|)",
    "special_bessel_y1": "value differs (large |x|)",
    "special_shifted_chebyshev_polynomial_t": "value nan at other places",
    "special_legendre_polynomial_p": "value nan / inf at other places (unstable: not found again in one run after the complex/FFT merge)",
    "special_erfcx": "value nan at other places (-inf / -1e30)",
    "special_log_ndtr": "grad differs (large negative x)",
    "special_i1": "second-order grad nan at other places",
    "special_i1e": "second-order grad nan at other places",
    "i0": "second-order grad nan at other places (inf input)",
    "polygamma": "grad differs (polygamma(n + 1, x) at large / negative x)",
    # found by the default run of session 6, not diagnosed in time
    "grid_sample": "value nan / 0 where PyTorch gives inf / finite: 5-D input (trilinear), "
                   "reflection padding, a size-1 spatial dim, inf / nan grid coordinates "
                   "(the 2-D paths agree)",
    # "via ROW:": found in ROW's programs (test_listed_findings_still_differ fuzzes ROW)
    "lp_pool3d": "via float_power: second-order grad inf at other places (large inputs) "
                 "(unstable: float_power's programs changed when session 8 added op rows, "
                 "and the via-row check no longer reproduces it)",
    "group_norm": "via conv_tbc:functional: grad differs (float32, a leaf of group_norm "
                  "after conv_tbc; relative 1e-5 on small entries) (unstable: the via-row "
                  "check does not reproduce it in its own run)",
    "mv": "via log2: grad of the vector differs by ~3e-7 relative in float64 (a matrix of "
          "special_bessel_j1 values, a vector from log2)",
}


def fragile_rows():
    return {r for k in KNOWN.values() for r in k.fragile}


def tolerated(message, step=None, inputs=None):
    """True when a fuzzer mismatch is a listed one: its ``tolerate`` text is in it, and
    for an entry with ``at``, ``step`` (the name of the failing step's row or in-place
    op; None: not known yet) is one of them and, with ``when``, ``when(inputs())`` holds
    (``inputs``: a function giving the step's input arrays)."""
    return any(k.tolerate and (not k.at or step in k.at)
               and re.search(k.tolerate, message, re.S)
               and (k.when is None or (inputs is not None and k.when(inputs())))
               for k in KNOWN.values())


def excluded_mutators():
    return {m for k in KNOWN.values() for m in k.mutators}


def excluded(row_name):
    """True when a known mismatch takes ``row_name`` out of the fuzzer's programs."""
    return any(row_name in k.rows for k in KNOWN.values())
