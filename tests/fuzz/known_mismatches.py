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
from typing import Callable, Tuple

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


def _size0_view_inplace(T):
    x = T.zeros(3, 0, requires_grad=True) * 1
    x[..., ::2].view(-1).add_(1.0)
    return x


def _hardtanh_grad_at_nan(T):
    x = T.ones(16)
    x[0] = float("nan")
    x.requires_grad_()
    T.nn.functional.hardtanh(x).sum().backward()
    return x.grad


def _gelu_float32_inf(T):
    return T.nn.functional.gelu(T.tensor([float("inf")] * 16))


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


KNOWN = {
    "elu_grad_at_nan_vectorized": Known(
        "PyTorch's float64 elu_backward sends a nan input down the x <= 0 branch (nan "
        "gradient) in its vectorized loop (16 and more elements) and down the other branch "
        "(gradient g) in its scalar tail and in float32, so no single rule matches; "
        "leafgrad gives g (the scalar rule, as for hardtanh). The fuzzer gives elu / celu / "
        "selu fresh leaves of their own domain while listed (tests/"
        "test_fuzz_findings_grid_vs_torch.py checks them at +-0, +-inf, 1e30)",
        _elu_grad_at_nan_float64, fragile=("elu", "celu", "selu")),
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
        _gelu_float32_inf, fragile=("gelu",)),
    "inplace_on_size0_view": Known(
        "issue 10 item 6 (owner: correct): an in-place op through some views (of a "
        "size-0 or 0-d tensor, a diagonal, an expanded tensor) raises 'leafgrad cannot "
        "express this view' or 'more than one element' where PyTorch works; tolerated "
        "while listed",
        _size0_view_inplace, tolerate=r"leafgrad cannot express this view|unsupported operation: more than one element"),
    "hardtanh_grad_at_nan": Known(
        "PyTorch's own hardtanh_backward at a nan input is 0 in its vectorized loop and g in "
        "its scalar tail (16 elements: 0; 3 elements: 1), so no single rule matches; leafgrad "
        "passes g (the scalar rule). The fuzzer gives hardtanh/relu6 fresh leaves of their "
        "own domain (no nan) while listed",
        _hardtanh_grad_at_nan, fragile=("hardtanh", "relu6")),
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
    # the special-function family (ops/special*.py) at inf / nan / 1e30 / large orders:
    # PyTorch's kernels' own edge branches (|x| == 1, n > 6 with |x| < 1, asymptotic
    # series) give other values or nan where leafgrad's recurrences / series do not
    "special_bessel_j0": "value differs (large |x|)",
    "special_bessel_j1": "value differs (large |x|)",
    "special_bessel_y0": "value differs (large |x|)",
    "special_bessel_y1": "value differs (large |x|)",
    "special_chebyshev_polynomial_t": "value nan / inf at other places (inf, nan, |x| = 1)",
    "special_chebyshev_polynomial_u": "value nan at other places (nan input, large n)",
    "special_chebyshev_polynomial_v": "value nan at other places",
    "special_shifted_chebyshev_polynomial_t": "value nan at other places",
    "special_shifted_chebyshev_polynomial_v": "value nan at other places",
    "special_shifted_chebyshev_polynomial_w": "value nan at other places",
    "special_hermite_polynomial_he": "value nan / inf at other places",
    "special_legendre_polynomial_p": "value nan / inf at other places",
    "special_erfcx": "value nan at other places (-inf / -1e30)",
    "special_log_ndtr": "grad differs (large negative x)",
    "special_i1": "second-order grad nan at other places",
    "special_i1e": "second-order grad nan at other places",
    "i0": "second-order grad nan at other places (inf input)",
    "digamma": "second-order grad differs (polygamma(1, x) at large / negative x)",
    "polygamma": "grad differs (polygamma(n + 1, x) at large / negative x)",
    "polygamma_": "value differs (as polygamma)",
    "nextafter": "grad differs",
    "pdist": "grad nan at other places (inf / nan rows, equal rows)",
    "quantile:method": "value nan at other places / grad differs (inf inputs)",
}


def fragile_rows():
    return {r for k in KNOWN.values() for r in k.fragile}


def tolerated(message):
    """True when a fuzzer mismatch is a listed one (its ``tolerate`` text is in it)."""
    return any(k.tolerate and re.search(k.tolerate, message, re.S) for k in KNOWN.values())


def excluded_mutators():
    return {m for k in KNOWN.values() for m in k.mutators}


def excluded(row_name):
    """True when a known mismatch takes ``row_name`` out of the fuzzer's programs."""
    return any(row_name in k.rows for k in KNOWN.values())
