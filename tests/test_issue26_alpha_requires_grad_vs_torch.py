"""add/sub's alpha= promotion and refusals, and which non-differentiable ops give results that
require grad, compared with real PyTorch (issue 26, item 7)."""
import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad

from _outcome import builtin_name

KINDS = ["f32", "f64", "f16", "i64", "i32", "u8", "b", "c64"]
ALPHAS = [2, 0.5, True, False, -1, 2.0, 1j, np.float64(0.25), np.int64(3)]


def _operand(T, kind, ndim, values):
    dt = {"f32": T.float32, "f64": T.float64, "f16": T.float16, "i64": T.int64,
          "i32": T.int32, "u8": T.uint8, "b": T.bool, "c64": T.complex64}[kind]
    v = T.tensor(values).to(dt)
    return v[0].clone() if ndim == 0 else v


def _run(T, f):
    try:
        r = f(T)
        vals = r.detach().reshape(-1)
        vals = (vals.real if vals.is_complex() else vals).double().tolist()
        return str(r.dtype), tuple(r.shape), [round(v, 3) for v in vals]
    except Exception as e:      # noqa: BLE001 - compared with torch
        return builtin_name(type(e)), _message(e)


def _message(e):
    """The message up to leafgrad's fix or explanation (PyTorch's own text)."""
    for cut in (". Fix", ": nothing", ": an in-place", " ("):
        e = str(e).split(cut)[0]
    return e.rstrip(".")


def _mismatches(calls):
    bad = []
    for label, f in calls:
        want, got = _run(torch, f), _run(leafgrad, f)
        if want != got:
            bad.append((label, want, got))
    return bad


def _no_complex_half(ka, kb):
    # float16 with complex64 is complex32 in PyTorch, a dtype leafgrad does not have
    return {ka, kb} != {"f16", "c64"}


@pytest.mark.parametrize("op", ["add", "sub"])
def test_alpha_promotion_and_refusals_like_torch(op):
    """Every dtype pair, 0-d and 1-d, with int/float/bool/complex/NumPy alphas, as
    torch.X, Tensor.X and with a Python number second: the dtype is result_type(input,
    other) (alpha takes no part), and a float alpha with an integer result, a bool alpha
    with a non-bool one, a complex alpha with a real one are RuntimeErrors."""
    calls = []
    for (ka, na), (kb, nb) in itertools.product(itertools.product(KINDS, (0, 1)), repeat=2):
        if not _no_complex_half(ka, kb):
            continue
        for al in ALPHAS:
            def a(T, ka=ka, na=na):
                return _operand(T, ka, na, [1.5, 2.0] if ka[0] in "fc" else [3, 0])

            def b(T, kb=kb, nb=nb):
                return _operand(T, kb, nb, [2.5, 1.0] if kb[0] in "fc" else [5, 1])
            calls += [((op, ka, na, kb, nb, al, "fn"), lambda T, a=a, b=b, al=al:
                       getattr(T, op)(a(T), b(T), alpha=al)),
                      ((op, ka, na, kb, nb, al, "method"), lambda T, a=a, b=b, al=al:
                       getattr(a(T), op)(b(T), alpha=al)),
                      ((op, ka, na, kb, nb, al, "number"), lambda T, a=a, b=b, al=al:
                       getattr(T, op)(a(T), b(T).reshape(-1)[0].item(), alpha=al))]
    assert _mismatches(calls) == []


@pytest.mark.parametrize("op", ["add_", "sub_"])
def test_inplace_alpha_like_torch(op):
    """The in-place forms: alpha scales in the common dtype (uint8 += int64 * -1 wraps
    after the product, as PyTorch), the same refusals, int64 into uint8 in place allowed,
    bool subtraction refused; and the gradient through a recorded in-place op."""
    kinds = ["f32", "f64", "i64", "u8", "b", "c64"]
    calls = []
    for (ka, na), (kb, nb) in itertools.product(itertools.product(kinds, (0, 1)), repeat=2):
        for al in [2, 0.5, True, -1, 1j]:
            def f(T, ka=ka, na=na, kb=kb, nb=nb, al=al, number=False):
                a = _operand(T, ka, na, [1.5, 2.0] if ka[0] in "fc" else [3, 4]).clone()
                b = _operand(T, kb, nb, [1.5, 2.0] if kb[0] in "fc" else [3, 4])
                return getattr(a, op)(b.reshape(-1)[0].item() if number else b, alpha=al)

            def g(T, ka=ka, na=na, kb=kb, nb=nb, al=al):
                a0 = _operand(T, ka, na, [1.5, 2.0]).clone().requires_grad_()
                b = _operand(T, kb, nb, [1.5, 2.0] if kb[0] in "fc" else [3, 4])
                r = getattr(a0 * 1, op)(b, alpha=al)
                return T.autograd.grad(r.sum().real if r.is_complex() else r.sum(), a0)[0]
            calls += [((op, ka, na, kb, nb, al), f),
                      ((op, ka, na, kb, nb, al, "number"), lambda T, f=f: f(T, number=True))]
            if ka in ("f32", "f64"):
                calls.append(((op, ka, na, kb, nb, al, "grad"), g))
    assert _mismatches(calls) == []


def test_sub_of_float64_0d_and_int_vector_with_float_alpha_is_float64_like_torch():
    for T in (torch, leafgrad):
        a = T.tensor(1.0, dtype=T.float64)
        b = T.tensor([1, 2])
        assert T.sub(a, b, alpha=0.5).dtype == T.float64
        assert T.add(a, b, alpha=0.5).dtype == T.float64
        assert a.sub(b, alpha=0.5).dtype == T.float64


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-300, 300), min_size=1, max_size=4), st.integers(-5, 5),
       st.sampled_from(["uint8", "int8", "int32"]))
def test_integer_inplace_alpha_wraps_like_torch(vals, alpha, dtype):
    def f(T):
        x = T.tensor([7] * len(vals)).to(getattr(T, dtype))
        return x.add_(T.tensor(vals), alpha=alpha).tolist()
    assert _run(leafgrad, lambda T: T.tensor(f(T))) == _run(torch, lambda T: T.tensor(f(T)))


# ------------------------------------------------------------------ requires_grad
def X(T):
    return T.tensor([1.5, -2.5, 3.0], requires_grad=True)


OPS = {
    "floor_divide": lambda T, x: T.floor_divide(x, 2),
    "floor_divide_tensor": lambda T, x: T.floor_divide(x, T.tensor([2.0, 2.0, 2.0])),
    "floor_divide_other": lambda T, x: T.floor_divide(T.tensor([3.0, 4.0, 5.0]), x),
    "floordiv_operator": lambda T, x: x // 2,
    "rfloordiv_operator": lambda T, x: 5 // x,
    "floor_divide_": lambda T, x: (x * 1).floor_divide_(2),
    "remainder": lambda T, x: T.remainder(x, 2),
    "remainder_number_first": lambda T, x: T.remainder(5, x),
    "rmod_operator": lambda T, x: 5 % x,
    "mod_operator": lambda T, x: x % 2,
    "fmod": lambda T, x: T.fmod(x, 2),
    "div_floor": lambda T, x: T.div(x, 2, rounding_mode="floor"),
    "div_trunc": lambda T, x: T.div(x, 2, rounding_mode="trunc"),
    "sign": lambda T, x: T.sign(x), "round": lambda T, x: T.round(x),
    "floor": lambda T, x: T.floor(x), "ceil": lambda T, x: T.ceil(x),
    "trunc": lambda T, x: T.trunc(x), "frac": lambda T, x: T.frac(x),
    "signbit": lambda T, x: T.signbit(x), "isnan": lambda T, x: T.isnan(x),
    "eq": lambda T, x: x == 1, "argmax": lambda T, x: T.argmax(x),
    "sort_indices": lambda T, x: T.sort(x)[1], "topk_indices": lambda T, x: T.topk(x, 2)[1],
    "heaviside": lambda T, x: T.heaviside(x, T.tensor(0.5)),
    "copysign": lambda T, x: T.copysign(x, -1.0),
    "bucketize": lambda T, x: T.bucketize(x, T.tensor([0.0, 1.0])),
    "histc": lambda T, x: T.histc(x, 4),
    "histogram": lambda T, x: T.histogram(x, 3)[0],
    "histogram_edges": lambda T, x: T.histogram(x, 3)[1],
    "histogram_weight": lambda T, x: T.histogram(T.tensor([0.5, 0.2, 0.1]), 3, weight=x)[0],
    "bincount_weights": lambda T, x: T.bincount(T.tensor([0, 1, 1]), weights=x),
    "bernoulli": lambda T, x: T.bernoulli(x.sigmoid()),
    "bernoulli_method": lambda T, x: x.sigmoid().bernoulli(),
    "bernoulli_p": lambda T, x: T.bernoulli(x, 0.5),
    "bernoulli_method_p": lambda T, x: x.bernoulli(0.3),
    "long": lambda T, x: x.long(), "where_numbers": lambda T, x: T.where(x > 0, 1, 0),
    "zeros_like": lambda T, x: T.zeros_like(x), "rand_like": lambda T, x: T.rand_like(x),
    "unique": lambda T, x: T.unique(x), "isin": lambda T, x: T.isin(x, T.tensor([1.5])),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_requires_grad_of_non_differentiable_ops_like_torch(name):
    """requires_grad, the grad_fn's name and whether backward raises (its class and the
    message before the fix) or gives which gradient, as PyTorch."""
    def f(T):
        x = X(T)
        y = OPS[name](T, x)
        head = (y.requires_grad, None if y.grad_fn is None else type(y.grad_fn).__name__)
        try:
            s = y.sum() if y.dtype.is_floating_point else y.double().sum()
            s.backward()
            return head + ("ok", None if x.grad is None else x.grad.tolist())
        except Exception as e:      # noqa: BLE001 - compared with torch
            return head + (builtin_name(type(e)), _message(e))
    assert f(leafgrad) == f(torch)
