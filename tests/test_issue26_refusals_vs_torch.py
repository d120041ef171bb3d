"""Calls that PyTorch 2.13 refuses or answers differently, compared with real torch (issue 26,
items 6-8): string and NumPy dtypes in factories, margin_ranking_loss of inputs of different
dimension, clamp with tensor bounds of other shapes, Multinomial's negative total_count,
non-integer sample shapes (torch.Size)."""
import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad

from _outcome import builtin_name


def outcome(lib, f):
    """("ok", str(value)) (nan-safe) or ("raise", builtin class name, message before
    leafgrad's "Fix:")."""
    try:
        return ("ok", str(f(lib)))
    except Exception as e:      # noqa: BLE001 - compared with torch
        return ("raise", builtin_name(type(e)), re.split(r"[.\n] ?Fix: ", str(e))[0])


def same(f, message=True):
    want, got = outcome(torch, f), outcome(leafgrad, f)
    if not message and want[0] == "raise":
        want, got = want[:2], got[:2]
    assert got == want
    return want


# ------------------------------------------------------------------ dtype= arguments
FACTORIES = {
    "tensor": lambda T, d: T.tensor([1.0], dtype=d),
    "as_tensor": lambda T, d: T.as_tensor([1.0], dtype=d),
    "zeros": lambda T, d: T.zeros(2, dtype=d),
    "ones": lambda T, d: T.ones(2, dtype=d),
    "empty": lambda T, d: T.empty(2, dtype=d),
    "full": lambda T, d: T.full((2,), 1.0, dtype=d),
    "zeros_like": lambda T, d: T.zeros_like(T.ones(2), dtype=d),
    "full_like": lambda T, d: T.full_like(T.ones(2), 3, dtype=d),
    "arange": lambda T, d: T.arange(3, dtype=d),
    "eye": lambda T, d: T.eye(2, dtype=d),
    "linspace": lambda T, d: T.linspace(0, 1, 3, dtype=d),
    "randn": lambda T, d: T.randn(2, dtype=d),
    "rand": lambda T, d: T.rand(2, dtype=d),
    "randint": lambda T, d: T.randint(0, 3, (2,), dtype=d),
    "sum": lambda T, d: T.ones(2).sum(dtype=d),
    "to": lambda T, d: T.ones(2).to(dtype=d),
}
# names PyTorch's parser takes, and things it refuses (a string, NumPy types, an int)
DTYPES = {"float32": "float32", "'float32'": "S:float32", "'int64'": "S:int64",
          "float": float, "int": int, "bool": bool, "None": None,
          "np.float32": np.float32, "np.dtype": np.dtype("float64"), "5": 5}


def _resolve(lib, d):
    if isinstance(d, str) and not d.startswith("S:"):
        return getattr(lib, d)
    return d[2:] if isinstance(d, str) else d


@pytest.mark.parametrize("dname", list(DTYPES))
@pytest.mark.parametrize("fname", list(FACTORIES))
def test_dtype_argument_like_torch(fname, dname):
    def f(T):
        r = FACTORIES[fname](T, _resolve(T, DTYPES[dname]))
        return str(r.dtype), tuple(r.shape)
    # messages: PyTorch's overloaded functions print their signatures; the class matters
    got = same(f, message=fname in ("tensor", "as_tensor", "zeros", "ones", "empty", "full"))
    if dname.startswith("'"):
        assert got[:2] == ("raise", "TypeError")


def test_string_dtype_message_names_the_call_and_the_fix():
    with pytest.raises(TypeError, match=r"tensor\(\): argument 'dtype' must be torch.dtype, "
                                        r"not str. Fix: .*dtype=torch.float32"):
        leafgrad.tensor([1.0], dtype="float32")


# ------------------------------------------------------------------ margin_ranking_loss
SHAPES = st.sampled_from([(), (1,), (2,), (0,), (1, 1), (2, 1)])


@settings(max_examples=60, deadline=None)
@given(SHAPES, SHAPES, SHAPES, st.sampled_from(["mean", "sum", "none"]))
def test_margin_ranking_loss_dimensions_like_torch(s1, s2, st_, reduction):
    rng = np.random.default_rng(len(s1) + 3 * len(s2) + 7 * len(st_))
    arrays = [rng.standard_normal(s) for s in (s1, s2)] + [np.sign(rng.standard_normal(st_))]

    def f(T):
        a, b = (T.tensor(v, requires_grad=True) for v in arrays[:2])
        loss = T.nn.functional.margin_ranking_loss(a, b, T.tensor(arrays[2]), margin=0.3,
                                                   reduction=reduction)
        grads = T.autograd.grad(loss.sum(), (a, b), allow_unused=True)
        return (np.round(loss.detach().numpy(), 12).tolist(),
                [None if g is None else np.round(g.numpy(), 12).tolist() for g in grads])
    same(f, message=False)


def test_margin_ranking_loss_0d_and_1_refused_like_torch():
    for T in (torch, leafgrad):
        with pytest.raises(RuntimeError, match="should have same dimension"):
            T.nn.functional.margin_ranking_loss(T.tensor(1.0), T.tensor([2.0]), T.tensor([1.0]))
        with pytest.raises(RuntimeError, match="should have same dimension"):
            T.nn.MarginRankingLoss()(T.tensor([1.0]), T.tensor([2.0]), T.tensor(1.0))


# ------------------------------------------------------------------ clamp with tensor bounds
BOUND = st.one_of(st.none(), st.tuples(SHAPES, st.floats(-2, 2, width=32)))


@settings(max_examples=80, deadline=None)
@given(SHAPES, BOUND, BOUND, st.sampled_from(["clamp", "clip", "clamp_min", "clamp_max"]))
def test_clamp_with_tensor_bounds_like_torch(xs, lo, hi, name):
    """The result broadcasts to the bounds' shape (a 0-d x and a (1,) bound give (1,)); the
    gradients of x and of each bound are PyTorch's."""
    x0 = np.random.default_rng(len(xs)).uniform(-2, 2, xs)
    if name in ("clamp_min", "clamp_max"):
        lo = lo or ((), 0.5)

    def f(T):
        x = T.tensor(x0, requires_grad=True)
        bounds = [None if b is None else T.full(b[0], b[1], dtype=T.float64, requires_grad=True)
                  for b in (lo, hi)]
        if name in ("clamp_min", "clamp_max"):
            y = getattr(T, name)(x, bounds[0])
        else:
            y = getattr(T, name)(x, *bounds)
        inputs = [x] + [b for b in bounds if b is not None]
        grads = T.autograd.grad(y.sum(), inputs, allow_unused=True)
        return (tuple(y.shape), y.detach().numpy().tolist(),
                [None if g is None else g.numpy().tolist() for g in grads])
    same(f, message=False)


def test_clamp_0d_with_1_bound_like_torch():
    for T in (torch, leafgrad):
        x = T.tensor(0.5, requires_grad=True)
        y = x.clamp(min=T.tensor([1.0]))
        assert tuple(y.shape) == (1,)
        y.sum().backward()
        assert x.grad.shape == () and x.grad.item() == 0.0
        with pytest.raises(RuntimeError, match=r"output with shape \[\] doesn't match"):
            T.tensor(0.5).clamp_(min=T.tensor([1.0]))


# ------------------------------------------------------------------ distributions
@pytest.mark.parametrize("validate", [None, True, False])
@pytest.mark.parametrize("total", [-1, -3, 0, 2, 2.5])
def test_multinomial_total_count_like_torch(total, validate):
    same(lambda T: T.distributions.Multinomial(
        total, T.tensor([0.25, 0.75]), validate_args=validate).mean.tolist())


ITEMS = [2.5, "2", 2.0, True, np.int64(2), np.float64(2.0), -1, 0, 3]


@pytest.mark.parametrize("item", ITEMS, ids=repr)
@pytest.mark.parametrize("family", ["Normal", "Bernoulli", "Categorical", "Uniform", "Gamma",
                                    "Multinomial", "MultivariateNormal"])
def test_sample_shape_items_like_torch(family, item):
    def make(T):
        return {"Normal": lambda: T.distributions.Normal(0.0, 1.0),
                "Bernoulli": lambda: T.distributions.Bernoulli(0.5),
                "Categorical": lambda: T.distributions.Categorical(T.ones(3)),
                "Uniform": lambda: T.distributions.Uniform(0.0, 1.0),
                "Gamma": lambda: T.distributions.Gamma(1.0, 1.0),
                "Multinomial": lambda: T.distributions.Multinomial(2, T.ones(3)),
                "MultivariateNormal": lambda: T.distributions.MultivariateNormal(
                    T.zeros(2), T.eye(2))}[family]()
    same(lambda T: tuple(make(T).sample((item,)).shape), message=item != -1)


@pytest.mark.parametrize("item", ITEMS + [None], ids=repr)
def test_size_items_like_torch(item):
    same(lambda T: [int(v) for v in T.Size((item,))])
    same(lambda T: [int(v) for v in T.Size((T.tensor(2), T.tensor([3]), T.tensor(True)))])
    same(lambda T: T.Size((T.tensor(2.0),)))


# ------------------------------------------------------------------ narrow dtype= results
NARROW = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-200, 200), min_size=1, max_size=5),
       st.sampled_from(["sum", "sum_dim", "prod", "prod_dim", "cumsum", "cumprod"]),
       st.sampled_from(NARROW), st.sampled_from(["float32", "int64", "int8", "bool"]))
def test_reductions_with_a_narrow_dtype_keep_it_like_torch(vals, op, dname, src):
    """sum/prod/cumsum/cumprod(dtype=int32) are int32 (wrapping) and sum(dtype=bool) is bool
    ("any") in PyTorch, where NumPy would widen to int64; cumsum(dtype=bool) is refused."""
    def f(T):
        x = T.tensor(vals).to(getattr(T, src))
        d = getattr(T, dname)
        r = {"sum": lambda: x.sum(dtype=d), "sum_dim": lambda: x.sum(0, dtype=d),
             "prod": lambda: x.prod(dtype=d), "prod_dim": lambda: x.prod(0, dtype=d),
             "cumsum": lambda: x.cumsum(0, dtype=d), "cumprod": lambda: x.cumprod(0, dtype=d)}[op]()
        return str(r.dtype), r.double().tolist()
    same(f)


@pytest.mark.parametrize("dname", NARROW[:6])
@pytest.mark.parametrize("low,high", [(0, 2), (0, 3), (-1, 1), (0, 128), (0, 129), (-128, 0),
                                      (-129, 0), (0, 256), (0, 257), (0, 2 ** 31 + 1)])
def test_randint_range_checked_against_the_dtype_like_torch(dname, low, high):
    same(lambda T: str(T.randint(low, high, (4,), dtype=getattr(T, dname)).dtype))


@pytest.mark.parametrize("call", [lambda T: T.arange(3, dtype=T.bool),
                                  lambda T: T.arange(0.0, 1.0, 0.5, dtype=T.bool),
                                  lambda T: T.linspace(0, 1, 3, dtype=T.bool)])
def test_bool_ranges_refused_like_torch(call):
    same(lambda T: call(T).tolist())
