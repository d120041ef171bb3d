"""Op-table rows (see tests/op_table.py) of the complex family (ops/elementwise/complex.py)
and of existing ops run on complex tensors.

The rows' inputs are real (the table draws real arrays); each row builds complex
tensors from them with ``torch.complex`` and returns a real tensor (``view_as_real``,
``abs``, ...), so that values, gradients through the complex intermediates (PyTorch's
conjugate Wirtinger convention), second order and float64 finite differences are
all compared as for the other rows. float32 inputs give complex64 intermediates.
"""
from op_table import Row, _bcast, _same


def _z(T, a, b):
    return T.complex(a, b)


def _r(T, z):
    return T.view_as_real(z)


def _holo(name, f, domains=("real", "real"), **kw):
    """A row for op ``f`` applied to the complex tensor a + ib (real and imag parts)."""
    return Row("%s:complex" % name, lambda T, a, b: _r(T, f(T, _z(T, a, b))), domains,
               covers=kw.pop("covers", (name,)), **kw)


def _holo2(name, f, **kw):
    """A row for a two-input op on (a + ib, c + id), with broadcasting."""
    return Row("%s:complex" % name,
               lambda T, a, b, c, d: _r(T, f(T, _z(T, a, b), _z(T, c, d))),
               ("real", "real", "nonzero", "nonzero"),
               gen=_bcast(2).map(lambda s: ((s[0][0],) * 2 + (s[0][1],) * 2, {})),
               covers=kw.pop("covers", (name,)), **kw)


ROWS = [
    # the complex family's own ops
    Row("complex", lambda T, a, b: _r(T, T.complex(a, b)) * 1, ("real", "real"),
        gen=_bcast(2)),
    Row("real", lambda T, a, b: (_z(T, a, b) * _z(T, b, a)).real, ("real", "real")),
    Row("imag", lambda T, a, b: (_z(T, a, b) * _z(T, b, a)).imag, ("real", "real")),
    # (a + ib)(b + ib): (a + ib)(b + ia) would have the real part ab - ba, whose float32
    # gradient is cancellation noise (FMA or not decides its last bits)
    Row("conj", lambda T, a, b: _r(T, (_z(T, a, b) * _z(T, b, b)).conj().resolve_conj()),
        ("real", "real"), covers=("conj", "resolve_conj", "is_conj")),
    Row("conj_physical", lambda T, a, b: _r(T, (_z(T, a, b) * 2).conj_physical()),
        ("real", "real")),
    Row("angle", lambda T, a, b: (_z(T, a, b) * _z(T, b, a)).angle(), ("nonzero", "nonzero")),
    Row("angle:real", lambda T, a: T.angle(a), ("nonzero",)),
    Row("polar", lambda T, a, t: _r(T, T.polar(a, t)), ("positive", "real"), gen=_bcast(2)),
    Row("view_as_real", lambda T, a, b: _r(T, _z(T, a, b).exp()), ("real", "real")),
    Row("view_as_complex", lambda T, a, b: T.view_as_complex(
        T.stack([a, b], -1)).exp().abs(), ("real", "real")),
    Row("isreal", lambda T, a, b: T.isreal(_z(T, a, b * (a > 0))), ("real", "real")),
    # existing ops through complex tensors (derivatives.yaml's complex formulas)
    _holo2("add", lambda T, x, y: x + y),
    _holo2("sub", lambda T, x, y: x - y),
    _holo2("mul", lambda T, x, y: x * y),
    _holo2("div", lambda T, x, y: x / y),
    _holo2("pow", lambda T, x, y: x ** y),
    _holo("exp", lambda T, z: z.exp()),
    _holo("log", lambda T, z: z.log(), ("nonzero", "nonzero")),
    _holo("sin", lambda T, z: z.sin()),
    _holo("cos", lambda T, z: z.cos()),
    _holo("tanh", lambda T, z: z.tanh(), ("unit", "unit")),
    _holo("sqrt", lambda T, z: z.sqrt(), ("positive", "real")),
    _holo("reciprocal", lambda T, z: z.reciprocal(), ("nonzero", "nonzero")),
    _holo("neg", lambda T, z: -z),
    _holo("sigmoid", lambda T, z: z.sigmoid(), ("unit", "unit")),
    _holo("abs", lambda T, z: z.abs() + 0j, ("nonzero", "nonzero")),
    _holo("sum", lambda T, z: z.sum()),
    _holo("mean", lambda T, z: z.mean()),
    _holo("reshape", lambda T, z: (z * z).reshape(-1)),
    _holo("cat", lambda T, z: T.cat([z, z * z])),
    _holo("stack", lambda T, z: T.stack([z, z.exp()])),
    Row("matmul:complex", lambda T, a, b, c, d: _r(T, _z(T, a, b) @ _z(T, c, d)),
        ("real",) * 4, gen=_same(1, min_dims=2, max_dims=2).map(
            lambda s: ((s[0][0], s[0][0], s[0][0][::-1], s[0][0][::-1]), {})),
        covers=("matmul",)),
    Row("getitem:complex", lambda T, a, b: _r(T, _z(T, a, b)[..., :1] * 2),
        ("real", "real"), gen=_same(2, min_dims=1)),
]
