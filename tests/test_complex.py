"""Complex tensors against PyTorch: the complex family's semantics (views, the conjugate
bit, errors), PyTorch's gradient convention through every op family on hypothesis-drawn
complex128 inputs, gradcheck on complex inputs, the engine's dtype handling, and the
refusals of ops PyTorch does not define on complex numbers."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad

LIBS = (torch, leafgrad)


def _np(t):
    return t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor) else np.asarray(t._data)


def _cdraw(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)


_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)

# real losses of complex intermediates: the .grad PyTorch gives is the reference
PROGRAMS = {
    "mul_div": lambda T, a, b: (a * b / (b + 3)).abs().sum(),
    "exp_log": lambda T, a, b: ((a.exp() + 1).log() * b.conj()).real.sum(),
    "trig": lambda T, a, b: (a.sin() * b.cos() + a.tanh()).imag.mean(),
    "pow_sqrt": lambda T, a, b: ((a * a + 5).sqrt() ** b).abs().sum(),
    "recip_neg": lambda T, a, b: (-(a + 3).reciprocal() * b).angle().sum(),
    "matmul": lambda T, a, b: T.view_as_real(a.reshape(-1, 1) @ b.reshape(1, -1)).sum(),
    "shape": lambda T, a, b: T.view_as_real(T.cat([a.reshape(-1), T.stack([b, b]).reshape(-1)])
                                            [1:] * 2j).pow(2).sum(),
    "real_imag": lambda T, a, b: (a.real * b.imag + a.imag ** 2).sum(),
    "polar_complex": lambda T, a, b: T.polar(a.abs(), b.real).mul(
        T.complex(a.imag, b.real)).abs().sum(),
    "mixed_real": lambda T, a, b: (a * b.abs()).abs().sum(),
    "var_std": lambda T, a, b: a.var(correction=0) + (a * b + 3).std(correction=0),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@settings(max_examples=15, deadline=None)
@given(shape=_shapes, seed=st.integers(0, 2 ** 32 - 1))
def test_gradients_match_torch(name, shape, seed):
    an, bn = _cdraw(shape, seed), _cdraw(shape, seed + 1)
    res = []
    for T in LIBS:
        a = T.tensor(an, requires_grad=True)
        b = T.tensor(bn, requires_grad=True)
        loss = PROGRAMS[name](T, a, b)
        ga, gb = T.autograd.grad(loss, (a, b), create_graph=True)
        # second order: a real function of the first gradients
        gga = T.autograd.grad((ga * gb.conj()).real.sum() + ga.abs().sum(), a,
                              allow_unused=True)[0]
        res.append((_np(loss), _np(ga), _np(gb), None if gga is None else _np(gga),
                    str(ga.dtype)))
    (tl, tga, tgb, tgga, tdt), (ll, lga, lgb, lgga, ldt) = res
    assert tdt == ldt == "torch.complex128"
    np.testing.assert_allclose(ll, tl, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lga, tga, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(lgb, tgb, rtol=1e-9, atol=1e-11)
    if tgga is not None:
        np.testing.assert_allclose(lgga, tgga, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradcheck_complex128(name):
    an, bn = _cdraw((3,), 7), _cdraw((3,), 8)
    a = leafgrad.tensor(an, requires_grad=True)
    b = leafgrad.tensor(bn, requires_grad=True)
    f = PROGRAMS[name]
    assert leafgrad.autograd.gradcheck(lambda x, y: f(leafgrad, x, y), (a, b))
    assert leafgrad.autograd.gradgradcheck(lambda x, y: f(leafgrad, x, y), (a, b))


def test_gradcheck_catches_a_wrong_complex_rule():
    from leafgrad.ops import _complex_rules as R
    x = leafgrad.tensor(_cdraw((3,), 1), requires_grad=True)
    R.PYTORCH_CONVENTION.add("ExpBackward0")    # exp's real-style rule, unconjugated
    R._VARIANTS.clear()
    try:
        assert not leafgrad.autograd.gradcheck(lambda v: v.exp(), (x,), raise_exception=False)
    finally:
        R.PYTORCH_CONVENTION.discard("ExpBackward0")
        R._VARIANTS.clear()
    assert leafgrad.autograd.gradcheck(lambda v: v.exp(), (x,))


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_views_write_through(dt):
    out = []
    for T in LIBS:
        x = T.tensor([1 + 2j, 3 - 1j, -2j], dtype=getattr(T, dt))
        x.real[0] = 7
        x.imag.mul_(2)
        T.view_as_real(x)[2, 0] = 5
        v = T.view_as_complex(T.view_as_real(x).clone())
        out.append((_np(x), str(x.real.dtype), _np(v)))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    assert out[0][1] == out[1][1]
    np.testing.assert_array_equal(out[0][2], out[1][2])


def test_inplace_on_part_records_gradient():
    res = []
    for T in LIBS:
        x = T.tensor([1 + 2j, 3 - 1j], dtype=T.complex128, requires_grad=True)
        z = x * (2 + 1j)
        z.real.mul_(3)
        z.imag.add_(z.real)
        (z.abs() ** 2).sum().backward()
        res.append(_np(x.grad))
    np.testing.assert_allclose(res[1], res[0], rtol=1e-12)


def test_conjugate_bit():
    for T in LIBS:
        z = T.tensor([1 + 2j, 3j])
        c = z.conj()
        assert c.is_conj() and T.is_conj(c)
        assert not c.conj().is_conj()
        assert not c.resolve_conj().is_conj()
        assert not z.conj_physical().is_conj()
        r = T.ones(2)
        assert r.conj() is r and not r.conj().is_conj()
        np.testing.assert_array_equal(_np(c), np.conj(_np(z)))
        with pytest.raises(RuntimeError):
            T.view_as_real(c)


@pytest.mark.parametrize("expr", [
    "T.ones(2).imag",
    "T.view_as_real(T.ones(2))",
    "T.view_as_complex(T.ones(3))",
    "T.view_as_complex(T.ones(2, 2).t())",
    "T.view_as_complex(T.ones(2, 2, dtype=T.int64))",
    "T.complex(T.ones(2), T.ones(2, dtype=T.float64))",
    "T.complex(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64))",
    "T.polar(T.ones(2), T.ones(2, dtype=T.float64))",
    "T.ones(2, dtype=T.complex64).max()",
    "T.ones(2, dtype=T.complex64).max(0)",
    "T.ones(2, dtype=T.complex64).amin()",
    "T.ones(2, dtype=T.complex64) < 1",
    "T.ones(2, dtype=T.complex64) >= T.ones(2, dtype=T.complex64)",
    "T.ones(2, dtype=T.complex64).clamp(0, 1)",
    "T.ones(2, dtype=T.complex64).relu()",
    "T.nn.functional.relu(T.ones(2, dtype=T.complex64))",
    "T.ones(2, dtype=T.complex64).sign()",
    "T.ones(2, dtype=T.complex64).argmax()", "T.ones(2, dtype=T.complex64).argmin()",
    "T.ones(2, dtype=T.complex64).sort()", "T.ones(2, dtype=T.complex64).topk(1)",
    "T.ones(2, dtype=T.complex64).argsort()",
    "T.maximum(T.ones(2, dtype=T.complex64), T.ones(2, dtype=T.complex64))",
    "T.minimum(T.ones(2, dtype=T.complex64), T.ones(2, dtype=T.complex64))",
    "T.ones(2, dtype=T.complex64).floor()", "T.ones(2, dtype=T.complex64).erf()",
    "T.ones(2, dtype=T.complex64).remainder(2)", "T.ones(2, dtype=T.complex64).fmod(2)",
    "T.atan2(T.ones(2, dtype=T.complex64), T.ones(2, dtype=T.complex64))",
    "T.ones(2, dtype=T.complex64, requires_grad=True).sum().backward()",
])
def test_refusals_match_torch(expr):
    with pytest.raises(Exception) as te:
        eval(expr, {"T": torch})
    with pytest.raises(type(te.value)):
        eval(expr, {"T": leafgrad})


@pytest.mark.parametrize("expr", [
    "(T.ones(2, dtype=T.complex64) + T.ones(2, dtype=T.float64)).dtype",
    "(T.ones(2, dtype=T.complex128) + T.ones(2, dtype=T.float32)).dtype",
    "(T.ones(2) * 1j).dtype", "(T.tensor([1, 2]) * 1j).dtype",
    "T.ones(2).cfloat().dtype", "T.ones(2).cdouble().dtype",
    "T.angle(T.tensor([-1, 2, 0])).dtype", "T.angle(T.ones(2, dtype=T.complex128)).dtype",
    "T.ones(2, dtype=T.complex64).abs().dtype", "T.ones(2, dtype=T.complex64).real.dtype",
    "T.complex(T.ones(2), T.ones(2)).dtype", "T.polar(T.ones(2).double(), T.ones(2).double()).dtype",
    "T.isreal(T.tensor([1 + 0j, 1j])).tolist()", "T.isreal(T.ones(2)).tolist()",
    "T.angle(T.tensor([-1.0, 2.0, float('nan')])).tolist()",
    "T.tensor([1 + 2j]).conj().grad_fn", "T.real(T.ones(2)).dtype",
    "T.tensor([1 + 2j, 3 - 1j]).var().dtype", "T.tensor([1 + 2j, 3 - 1j]).std(correction=0)",
])
def test_values_and_dtypes_match_torch(expr):
    t = eval(expr, {"T": torch})
    lg = eval(expr, {"T": leafgrad})
    assert str(lg) == str(t)


def test_engine_grad_dtype_and_accumulation():
    res = []
    for T in LIBS:
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = T.tensor([1 + 1j, 2j], requires_grad=True)
        for _ in range(2):          # accumulation into a complex .grad
            (a * b).abs().sum().backward()
        res.append((_np(a.grad), str(a.grad.dtype), _np(b.grad), str(b.grad.dtype)))
        with pytest.raises(RuntimeError):
            b.grad = T.zeros(2)     # a real gradient for a complex leaf
        y = b.sum()
        y.backward(T.tensor(1 + 1j))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-6)
    np.testing.assert_allclose(res[1][2], res[0][2], rtol=1e-6)
    assert res[1][1] == res[0][1] == "torch.float32"
    assert res[1][3] == res[0][3] == "torch.complex64"
