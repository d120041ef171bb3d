"""Differential fuzzer for four classes of silently different answers (issue 26, item 5):
leafgrad against real PyTorch, each class generated so that it cannot come back unseen.

* mixed dtypes: every binary elementwise op (function and operator forms, ``alpha=``,
  ``rounding_mode=``) and every loss of ``nn.functional`` on operands drawn from float32,
  float64, float16, int64, int32, bool tensors (0-d or n-d) and Python numbers;
* conditions: ``where`` / ``masked_fill`` / ``masked_select`` / ``masked_scatter`` with
  bool, uint8, integer and float conditions;
* empty joins: ``cat`` / ``stack`` / ``hstack`` / ``vstack`` / ``dstack`` /
  ``column_stack`` / ``row_stack`` with empty tensors ((0,), (0, k), the legacy 1-D empty
  in ``cat``) among non-empty ones;
* signed zeros: unary and binary ops at +-0, +-inf, nan (and a few ordinary values),
  values and gradients compared with ``np.signbit`` wherever PyTorch's is 0 or inf.

Compared for each case: whether the forward raises (the built-in exception class), the
result's dtype, shape, requires_grad and values (nan positions exactly; tolerances by
dtype), whether backward raises, and each gradient: None or a tensor, its dtype, shape
and values. Default run: seeded (``derandomize``), about 20 CPU seconds for the file;
LEAFGRAD_FUZZ=thorough 10x with random seeds (it finds more loss cases than are listed);
LEAFGRAD_FUZZ=0 skips them.

A difference still open is listed in KNOWN by (family, op, kind): the tests above tolerate
it for that op only, and test_known_differences_still_differ is a strict xfail for each
entry (a sweep of that op alone must still show that kind of difference), so a fix makes
it fail until its entry is removed.
"""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import leafgrad
import leafgrad.nn.functional as LF
from _fuzz_mode import THOROUGH, exc_name, needs_fuzz

pytestmark = needs_fuzz

FUNCTIONAL = {leafgrad: LF, torch: TF}
FLOATS = ("float16", "float32", "float64")
DTYPES = ("float32", "float64", "float16", "int64", "int32", "bool")
# rtol, atol by the result's dtype (PyTorch's float16 kernels compute in float32)
TOL = {"float16": (4e-3, 1e-3), "float32": (2e-5, 1e-6), "float64": (1e-10, 1e-12)}


def fuzz(n):
    """Hypothesis settings: ``n`` seeded examples (10x, random, when thorough)."""
    return settings(max_examples=n * (10 if THOROUGH else 1), derandomize=not THOROUGH,
                    deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


# ----------------------------------------------------------------------------- operands
# An operand spec: ("t", dtype, values: np.ndarray of float64) or ("s", value: a Python
# number). Both libraries build their operand from the same spec.

def build(T, spec, grad=True):
    if spec[0] == "s":
        return spec[1]
    _, dtype, vals = spec[:3]
    arr = vals.astype(np.bool_) if dtype == "bool" else vals.astype(dtype)
    return T.tensor(arr, dtype=getattr(T, dtype),
                    requires_grad=bool(grad and dtype in FLOATS))


def describe(spec):
    if spec[0] == "s":
        return repr(spec[1])
    return "tensor(%s, dtype=%s)" % (np.array2string(spec[2], separator=", "), spec[1])


def _pool_value(dtype, x):
    """A float64 value drawn for a float operand, as the operand's dtype holds it."""
    if dtype == "bool":
        return float(x != 0)
    if dtype.startswith("int"):
        return float(np.trunc(x))
    return float(np.float64(x).astype(dtype))


@st.composite
def operand(draw, pool, shape, scalars=True, dtypes=DTYPES):
    """A tensor of ``shape`` (or 0-d) of a drawn dtype, or a Python number."""
    kind = draw(st.sampled_from(("t", "t", "t", "0d", "s") if scalars else ("t", "t", "0d")))
    if kind == "s":
        x = draw(st.sampled_from(pool))
        return ("s", draw(st.sampled_from((float(x), int(x), bool(x)))))
    dtype = draw(st.sampled_from(dtypes))
    shp = () if kind == "0d" else shape
    n = int(np.prod(shp))
    xs = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    vals = np.array([_pool_value(dtype, x) for x in xs], dtype=np.float64).reshape(shp)
    return ("t", dtype, vals)


# ----------------------------------------------------------------------------- outcomes

def snapshot(x):
    """What is compared of a result: a tensor's dtype, shape, requires_grad and values."""
    if isinstance(x, (tuple, list)):
        return ("seq", [snapshot(v) for v in x])
    if x is None or isinstance(x, (bool, int, float)):
        return ("py", x)
    arr = x.detach().numpy(force=True).copy()   # force: a ZeroTensor gradient (sgn)
    return ("t", str(x.dtype), tuple(x.shape), bool(x.requires_grad), arr)


def _weights(T, out):
    """A deterministic gradient for ``out`` (distinct entries, so a misplaced one shows)."""
    n = int(np.prod(tuple(out.shape)))
    w = (np.arange(n, dtype=np.float64) % 5 + 1).reshape(tuple(out.shape)) / 4
    return T.tensor(w.astype(str(out.dtype).split(".")[-1]), dtype=out.dtype)


def outcome(T, call, specs, grad=True):
    """Run ``call(T, F, *operands)`` and backward through it: what happened, as data."""
    ins = [build(T, s, grad) for s in specs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = call(T, FUNCTIONAL[T], *ins)
        except Exception as e:      # noqa: BLE001 - the class is compared with torch
            return {"raises": exc_name(e)}
        res = {"out": snapshot(out)}
        leaves = [x for x in ins if isinstance(x, T.Tensor) and x.requires_grad]
        if leaves and isinstance(out, T.Tensor) and out.requires_grad:
            try:
                out.backward(_weights(T, out))
            except Exception as e:  # noqa: BLE001
                res["backward raises"] = exc_name(e)
            else:
                res["grads"] = [snapshot(x.grad) for x in leaves]
    return res


def _values_differ(a, b, dtype, signed, loose):
    """Why ``a`` (leafgrad) and ``b`` (torch) differ as values of ``dtype``, or None."""
    if a.shape != b.shape:
        return "shape"
    if dtype not in TOL and not dtype.startswith("torch.complex"):
        return None if np.array_equal(a, b) else "values %s vs %s" % (a, b)
    # the loosest float dtype of the case: PyTorch computes a float64 operand's gradient
    # in the result's dtype when a 0-d operand did not take part in the promotion
    rtol, atol = max(TOL.get(dtype, TOL["float32"]), TOL.get(loose, (0, 0)))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        ok = np.isclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True)
        ok &= np.isnan(a64) == np.isnan(b64)
        if signed:
            exact = (b64 == 0) | np.isinf(b64)
            ok &= ~exact | ((a64 == b64) & (np.signbit(a64) == np.signbit(b64)))
    if ok.all():
        return None
    return "values %s vs %s (first at %s)" % (a, b, tuple(np.argwhere(~ok)[0]))


def snap_differ(a, b, signed, loose):
    if a[0] != b[0]:
        return "%s vs %s" % (a[0], b[0])
    if a[0] == "seq":
        if len(a[1]) != len(b[1]):
            return "lengths"
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            why = snap_differ(x, y, signed, loose)
            if why:
                return "[%d]: %s" % (i, why)
        return None
    if a[0] == "py":
        same = type(a[1]) is type(b[1]) and (a[1] is None or np.isclose(a[1], b[1],
                                                                         equal_nan=True))
        return None if same else "%r vs %r" % (a[1], b[1])
    for i, what in ((1, "dtype"), (2, "shape"), (3, "requires_grad")):
        if a[i] != b[i]:
            return "%s %s vs %s" % (what, a[i], b[i])
    return _values_differ(a[4], b[4], b[1].replace("torch.", ""), signed, loose)


def mismatch(mine, ref, signed=False, loose=None):
    """The first difference between two outcomes, or None (``loose``: the loosest float
    dtype of the case, whose tolerance applies to every value)."""
    if mine.get("raises") != ref.get("raises"):
        return "raises: %s vs %s" % (mine.get("raises", "nothing"), ref.get("raises", "nothing"))
    if "raises" in ref:
        return None
    why = snap_differ(mine["out"], ref["out"], signed, loose)
    if why:
        return "result: " + why
    if mine.get("backward raises") != ref.get("backward raises"):
        return "backward raises: %s vs %s" % (mine.get("backward raises", "nothing"),
                                              ref.get("backward raises", "nothing"))
    if ("grads" in mine) != ("grads" in ref):
        return "gradients: %s vs %s" % ("grads" in mine, "grads" in ref)
    for i, (a, b) in enumerate(zip(mine.get("grads", ()), ref.get("grads", ()))):
        why = snap_differ(a, b, signed, loose)
        if why:
            return "grad of leaf %d: %s" % (i, why)
    return None


def loosest(specs):
    floats = [s[1] for s in specs if s[0] == "t" and s[1] in FLOATS]
    return min(floats, key=FLOATS.index) if floats else None


def category(why):
    """The kind of a difference, as KNOWN lists them."""
    for kind in ("raises", "result", "backward raises"):
        if why.startswith(kind + ":"):
            return kind
    return "gradient"


class Case(tuple):
    """(family, name, call, specs, signed): one drawn call, its operands, how it compares."""
    family = property(lambda s: s[0])
    name = property(lambda s: s[1])


def check(case, tolerate_known=True):
    """Assert leafgrad's outcome is PyTorch's; a difference that KNOWN lists for the case's
    op is tolerated here (each is a strict xfail in test_known_differences_still_differ)."""
    family, name, call, specs, signed = case
    mine = outcome(leafgrad, call, specs)
    ref = outcome(torch, call, specs)
    why = mismatch(mine, ref, signed, loosest(specs))
    if why and tolerate_known and (family, name, category(why)) in KNOWN:
        return
    assert why is None, "%s(%s): %s" % (name, ", ".join(map(describe, specs)), why)


# ----------------------------------------------------------------------------- mixed dtypes

def _fn(name, **kw):
    def call(T, F, a, b):
        f = T
        for part in name.split("."):
            f = getattr(f, part)
        return f(a, b, **kw)
    call.__name__ = name
    return call


def _operator(sym):
    code = compile("lambda T, F, a, b: a %s b" % sym, "<op %s>" % sym, "eval")
    return eval(code)   # noqa: S307 - a fixed operator symbol from the list below


BINARY_NAMES = (
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow",
    "float_power", "atan2", "arctan2", "hypot", "copysign", "nextafter", "ldexp", "heaviside",
    "xlogy", "logaddexp", "logaddexp2", "maximum", "minimum", "fmax", "fmin", "rsub",
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor", "special.xlog1py", "special.xlogy",
    "igamma", "igammac")
BINARY = dict({n: _fn(n) for n in BINARY_NAMES}, **{
    "add:alpha": _fn("add", alpha=0.5), "sub:alpha": _fn("sub", alpha=2),
    "add:int_alpha": _fn("add", alpha=3), "div:floor": _fn("div", rounding_mode="floor"),
    "div:trunc": _fn("div", rounding_mode="trunc")})
BINARY.update({"operator" + s: _operator(s) for s in
               ("+", "-", "*", "/", "//", "%", "**", "==", "<", ">=", "&", "|", "^")})
MIXED_POOL = (-2.5, -1.5, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0, 3.0, 0.0)



@st.composite
def binary_case(draw, name=None):
    name = name or draw(st.sampled_from(sorted(BINARY)))
    shape = draw(st.sampled_from(((3,), (2, 3))))
    a = draw(operand(MIXED_POOL, shape))
    b = draw(operand(MIXED_POOL, shape[-1:] if draw(st.booleans()) else shape))
    if a[0] == b[0] == "s":
        a = draw(operand(MIXED_POOL, shape, scalars=False))
    return Case(("binary", name, BINARY[name], [a, b], False))


@fuzz(60)
@given(binary_case(name="add"))
def test_binary_ops_on_mixed_dtypes(case):
    # every op on each drawn pair of operands: each pair of dtypes / kinds meets every op
    failures = []
    for name in sorted(BINARY):
        if name in ("pow", "operator**") and isinstance(case[3][0][1], bool):
            continue    # PyTorch's backward: INTERNAL ASSERT (Scalar.cpp, unknown ivalue tag)
        try:
            check(Case(("binary", name, BINARY[name], case[3], False)))
        except AssertionError as e:
            failures.append(str(e).split("\n")[0])
    assert not failures, "\n".join(failures)


# Loss operands: a role is (value pool, shape); "x" real, "p" a probability, "t01" a 0/1 or
# soft label, "pm1" +-1 labels, "pos" positive, "cls" class indices, "mlm" multilabel-margin
# targets (-1 ends a row's list), "w" a per-class weight.
ROLES = {"x": ((-1.5, -0.5, 0.25, 1.0, 2.0), (2, 3)), "p": ((0.125, 0.25, 0.5, 0.75), (2, 3)),
         "t01": ((0.0, 1.0, 0.25, 0.75), (2, 3)), "pm1": ((-1.0, 1.0), (2, 3)),
         "pm1row": ((-1.0, 1.0), (2,)), "pos": ((0.5, 1.0, 1.5, 2.0), (2, 3)),
         "cls": ((0.0, 1.0, 2.0), (2,)), "mlm": ((2.0, 0.0, -1.0, 1.0), (2, 3)),
         "w": ((0.5, 1.0, 1.5, 2.0), (3,))}
# name[:variant] -> the roles of its operands; a variant's last operand is its keyword
LOSSES = {
    "l1_loss": ("x", "x"), "mse_loss": ("x", "x"), "smooth_l1_loss": ("x", "x"),
    "huber_loss": ("x", "x"), "binary_cross_entropy": ("p", "t01"),
    "binary_cross_entropy:weight": ("p", "t01", "pos"),
    "binary_cross_entropy_with_logits": ("x", "t01"),
    "binary_cross_entropy_with_logits:weight": ("x", "t01", "pos"),
    "binary_cross_entropy_with_logits:pos_weight": ("x", "t01", "pos"),
    "soft_margin_loss": ("x", "pm1"), "kl_div": ("x", "p"), "kl_div:log_target": ("x", "x"),
    "poisson_nll_loss": ("x", "pos"), "gaussian_nll_loss": ("x", "x", "pos"),
    "hinge_embedding_loss": ("x", "pm1"), "multilabel_soft_margin_loss": ("x", "t01"),
    "margin_ranking_loss": ("x", "x", "pm1"), "cosine_embedding_loss": ("x", "x", "pm1row"),
    "triplet_margin_loss": ("x", "x", "x"), "triplet_margin_with_distance_loss": ("x", "x", "x"),
    "cross_entropy": ("x", "cls"), "cross_entropy:probs": ("x", "p"),
    "cross_entropy:weight": ("x", "cls", "w"), "nll_loss": ("x", "cls"),
    "nll_loss:weight": ("x", "cls", "w"), "multi_margin_loss": ("x", "cls"),
    "multi_margin_loss:weight": ("x", "cls", "w"), "multilabel_margin_loss": ("x", "mlm")}


def loss_call(name, reduction):
    base, _, variant = name.partition(":")

    def call(T, F, *ins):
        kw = {"reduction": reduction}
        if variant == "log_target":
            kw["log_target"] = True
        elif variant in ("weight", "pos_weight"):
            kw[variant] = ins[-1]
            ins = ins[:-1]
        return getattr(F, base)(*ins, **kw)
    return call


@st.composite
def loss_case(draw, name=None):
    name = name or draw(st.sampled_from(sorted(LOSSES)))
    specs = [draw(operand(*ROLES[role], scalars=draw(st.integers(0, 9)) == 0))
             for role in LOSSES[name]]
    reduction = draw(st.sampled_from(("mean", "sum", "none")))
    return Case(("loss", name, loss_call(name, reduction), specs, False))


@fuzz(400)
@given(loss_case())
def test_losses_on_mixed_dtypes(case):
    check(case)


# ----------------------------------------------------------------------------- conditions
COND_DTYPES = ("bool", "bool", "uint8", "int64", "int32", "float32", "float64")
COND_POOL = (0.0, 1.0, 0.0, 1.0, 2.0, -1.0, 0.5)
CONDITIONS = {
    "where": lambda T, F, c, a, b: T.where(c, a, b),
    "Tensor.where": lambda T, F, c, a, b: a.where(c, b),
    "where(cond)": lambda T, F, c, a, b: T.where(c),
    "masked_fill": lambda T, F, c, a, b: T.masked_fill(a, c, b),
    "Tensor.masked_fill": lambda T, F, c, a, b: a.masked_fill(c, b),
    "masked_select": lambda T, F, c, a, b: T.masked_select(a, c),
    "masked_scatter": lambda T, F, c, a, b: a.masked_scatter(c, b),
}


@st.composite
def condition_case(draw, name=None):
    """A condition of any dtype (of the operand's shape, its last dim, 0-d or a wrong one),
    an operand (maybe 0-d, maybe empty), and the other operand / value / source."""
    name = name or draw(st.sampled_from(sorted(CONDITIONS)))
    shape = draw(st.sampled_from(((2, 3), (3,), (0, 3))))
    cshape = draw(st.sampled_from((shape, shape[-1:], (), (4,))))
    c = draw(operand(COND_POOL, cshape, scalars=False, dtypes=COND_DTYPES))
    c = ("t", c[1], np.zeros(cshape) + c[2])
    vals = (-1.5, 0.5, 2.0, -0.0)
    a = draw(operand(vals, shape, scalars=False, dtypes=("float32", "float64", "int64")))
    if name.endswith("masked_fill"):
        b = draw(operand(vals, (), dtypes=("float32", "float64", "int64")))
    elif name == "masked_scatter":
        b = draw(operand(vals, (6,), scalars=False, dtypes=(a[1],)))
    else:
        b = draw(operand(vals, shape))
    return Case(("condition", name, CONDITIONS[name], [c, a, b], False))


@fuzz(300)
@given(condition_case())
def test_conditions_of_every_dtype(case):
    check(case)


# ----------------------------------------------------------------------------- empty joins
JOINS = ("cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
         "row_stack")


def join_call(name, dim):
    def call(T, F, *ins):
        f = getattr(T, name)
        if name in ("cat", "concat", "concatenate", "stack") and dim is not None:
            return f(list(ins), dim)
        return f(tuple(ins))
    return call


@st.composite
def join_case(draw, name=None):
    """1 to 4 tensors, at least one empty: rows (m, k) with m = 0 and the legacy (0,) among
    them, 1-D ones, all of one shape (stack), or any mixture; float and integer dtypes."""
    name = name or draw(st.sampled_from(JOINS))
    k = draw(st.integers(1, 3))
    scenario = draw(st.sampled_from(("rows", "flat", "same", "any")))
    choices = {"rows": [(0, k), (1, k), (2, k), (0,)], "flat": [(0,), (1,), (3,)],
               "same": [(0,), (0, k), (k, 0), (2, k)],
               "any": [(0,), (0, k), (2, k), (k,), (2, 0), (0, 0), (2, k, 1)]}[scenario]
    n = draw(st.integers(1, 4))
    shapes = [draw(st.sampled_from(choices)) for _ in range(n)]
    if scenario == "same":
        shapes = [shapes[0]] * n
    if not any(0 in s for s in shapes):
        shapes[draw(st.integers(0, n - 1))] = (0,)
    dtype = draw(st.sampled_from(("float32", "float64", "float32", "int64")))
    specs = [("t", draw(st.sampled_from((dtype, dtype, "float64", "int64"))),
              np.arange(int(np.prod(s)), dtype=np.float64).reshape(s) - 1.5) for s in shapes]
    dim = draw(st.sampled_from((None, 0, 1, -1, 2)))
    return Case(("join", name, join_call(name, dim), specs, False))


@fuzz(300)
@given(join_case())
def test_joins_with_empty_tensors(case):
    check(case)


# ----------------------------------------------------------------------------- signed zeros
EDGE = (-0.0, 0.0, -np.inf, np.inf, np.nan, -1.0, 1.0, 0.5, -2.5, 3.0)


def _unary(name, *args, **kw):
    def call(T, F, x):
        owner = F if name.startswith("F.") else T
        if name.split("(")[0] in NAN_GRAD_FREE:
            x = T.where(x.isnan(), x.detach(), x)   # the value at nan is compared, not its grad
        return getattr(owner, name.replace("F.", "").split("(")[0])(x, *args, **kw)
    return call


UNARY = {n: _unary(n) for n in (
    "neg", "abs", "sign", "sgn", "sqrt", "rsqrt", "reciprocal", "log", "log2", "log10",
    "log1p", "exp", "expm1", "exp2", "sin", "tan", "sinh", "tanh", "asin", "atan", "asinh",
    "atanh", "erf", "erfinv", "round", "floor", "ceil", "trunc", "frac", "square", "relu",
    "sigmoid", "nan_to_num", "deg2rad", "rad2deg", "sinc", "angle", "positive", "fix",
    "F.relu", "F.hardtanh", "F.relu6", "F.leaky_relu", "F.elu", "F.gelu", "F.silu",
    "F.softplus", "F.hardshrink", "F.softshrink", "F.tanhshrink", "F.softsign",
    "F.hardswish", "F.hardsigmoid", "F.mish", "F.celu", "F.selu", "F.logsigmoid")}
UNARY.update({
    "F.threshold": _unary("F.threshold", 0.0, -0.0),
    "round(decimals=1)": _unary("round", decimals=1),
    "round(decimals=-1)": _unary("round", decimals=-1),
    "clamp(min=0.0)": _unary("clamp", min=0.0), "clamp(max=-0.0)": _unary("clamp", max=-0.0),
    "clamp(-0.0, 0.0)": _unary("clamp", -0.0, 0.0), "clamp_min(-0.0)": _unary("clamp_min", -0.0),
    "F.hardtanh(-0.0, 0.0)": _unary("F.hardtanh", -0.0, 0.0),
    "F.leaky_relu(-0.5)": _unary("F.leaky_relu", -0.5)})
UNARY.update({"pow(%r)" % e: _unary("pow", e) for e in (-0.5, 0.5, 2, -1, 3, 0, 1.5, -2)})
SIGNED_BINARY = ("add", "sub", "mul", "div", "pow", "float_power", "atan2", "copysign", "fmod",
                 "remainder", "maximum", "minimum", "fmax", "fmin", "hypot", "xlogy",
                 "nextafter", "floor_divide", "div:floor", "div:trunc", "logaddexp",
                 "heaviside", "operator*", "operator/", "operator**", "operator%", "sub:alpha")
# Left out where PyTorch's own answer depends on the kernel (vectorised body or scalar tail,
# so on the tensor's length and dtype), not on the values: the sign of fmax/fmin(+0, -0)
# and of softshrink(-0); the gradient at nan of hardtanh, relu6, hardshrink, softshrink;
# float32 gelu(inf) (nan in the vectorised body) and gelu(-0) (+0 in AVX2's vectorised
# body, -0 in AVX-512's and the scalar tail).
SIGN_FREE = {"fmax", "fmin", "F.softshrink", "F.gelu"}
NAN_GRAD_FREE = {"F.hardtanh", "F.relu6", "F.hardshrink", "F.softshrink", "F.elu", "F.celu", "F.hardswish",
                 "F.selu"}
EDGE_OUT = {"F.gelu": (np.inf,)}


def _edges(name):
    return np.array([4.0 if any(x is y for y in EDGE_OUT.get(name, ())) else x for x in EDGE])


@st.composite
def signed_case(draw, name=None):
    """A unary op at every edge value, or a binary one on the grid of all pairs (or with a
    Python number, maybe -0.0 or inf, on either side)."""
    dtype = draw(st.sampled_from(("float32", "float64")))
    name = name or draw(st.sampled_from(sorted(UNARY) + list(SIGNED_BINARY)))
    signed = name not in SIGN_FREE
    if name in UNARY:
        return Case(("signed", name, UNARY[name], [("t", dtype, _edges(name))], signed))
    edge = _edges(name)
    grid = [("t", dtype, np.repeat(edge, len(edge))), ("t", dtype, np.tile(edge, len(edge)))]
    form = draw(st.sampled_from(("tensors", "tensors", "scalar right", "scalar left")))
    if form != "tensors":
        s = ("s", float(draw(st.sampled_from(EDGE))))
        grid = [("t", dtype, edge), s] if form == "scalar right" else [s, ("t", dtype, edge)]
    return Case(("signed", name, BINARY[name], grid, signed))


@fuzz(300)
@given(signed_case())
def test_signed_zeros_inf_and_nan(case):
    check(case)


# ----------------------------------------------------------------------------- known
STRATEGIES = {"binary": binary_case, "loss": loss_case, "condition": condition_case,
              "join": join_case, "signed": signed_case}
# (family, op, kind of difference) -> why it is open (first case seen: "operand dtype[shape]",
# leafgrad's outcome vs PyTorch's). Each is tolerated by the tests above
# and is a strict xfail below: fixing one makes its xfail pass, which fails; then remove it.
LOSS = ("issue 26 item 5 (losses follow PyTorch's promotion and refusals for integer, bool, "
        "0-d, float16 and Python-number operands), open: e.g. ")
KNOWN = {
    ("binary", "ldexp", "raises"):
        "ldexp(x, bool exponent) is PyTorch's NotImplementedError ('ldexp_cpu_exp' for Bool), "
        "accepted here: the factory promotes the operands before the kernel sees the bool, "
        "so the refusal needs ldexp written by hand (as heaviside is); open",
    ("signed", "xlogy", "gradient"):
        "xlogy(x, nan) with a Python-number other: PyTorch's Scalar-other overload gives 0 "
        "gradient at x = 0, nan here (the tensor-other rule); open",
    ("loss", "binary_cross_entropy", "raises"):
        LOSS + "binary_cross_entropy(int64[2, 3], int64[2, 3]): raises: nothing vs "
               "NotImplementedError",
    ("loss", "binary_cross_entropy:weight", "raises"):
        LOSS + "binary_cross_entropy:weight(int64[], int64[], int64[]): raises: nothing vs "
               "NotImplementedError",
    ("loss", "binary_cross_entropy_with_logits", "raises"):
        LOSS + "binary_cross_entropy_with_logits(int32[2, 3], float64[2, 3]): raises: nothing vs "
               "NotImplementedError",
    ("loss", "binary_cross_entropy_with_logits:pos_weight", "raises"):
        LOSS + "binary_cross_entropy_with_logits:pos_weight(bool[2, 3], float16[2, 3], int32[]): "
               "raises: nothing vs NotImplementedError",
    ("loss", "binary_cross_entropy_with_logits:weight", "raises"):
        LOSS + "binary_cross_entropy_with_logits:weight(int64[2, 3], int32[2, 3], int64[2, 3]): "
               "raises: RuntimeError vs NotImplementedError",
    ("loss", "cosine_embedding_loss", "raises"):
        LOSS + "cosine_embedding_loss(bool[2, 3], float64[2, 3], int64[]): raises: nothing vs "
               "RuntimeError",
    ("loss", "cross_entropy", "raises"):
        LOSS + "cross_entropy(2, float32[]): raises: AttributeError vs TypeError",
    ("loss", "cross_entropy:probs", "raises"):
        LOSS + "cross_entropy:probs(bool[2, 3], bool[2, 3]): raises: NotImplementedError vs "
               "RuntimeError",
    ("loss", "cross_entropy:weight", "raises"):
        LOSS + "cross_entropy:weight(int32[], int64[2], int64[3]): raises: NotImplementedError vs "
               "IndexError",
    ("loss", "gaussian_nll_loss", "raises"):
        LOSS + "gaussian_nll_loss(float16[], float64[], 2): raises: nothing vs TypeError",
    ("loss", "hinge_embedding_loss", "raises"):
        LOSS + "hinge_embedding_loss(bool[2, 3], 1.0): raises: RuntimeError vs TypeError",
    ("loss", "hinge_embedding_loss", "result"):
        LOSS + "hinge_embedding_loss(int32[], int32[]): result: dtype torch.float32 vs "
               "torch.int32",
    ("loss", "huber_loss", "raises"):
        LOSS + "huber_loss(bool[2, 3], float16[]): raises: nothing vs RuntimeError",
    ("loss", "kl_div", "raises"):
        LOSS + "kl_div(int64[2, 3], 0.75): raises: nothing vs TypeError",
    ("loss", "kl_div:log_target", "raises"):
        LOSS + "kl_div:log_target(int32[], int64[2, 3]): raises: nothing vs RuntimeError",
    ("loss", "l1_loss", "result"):
        LOSS + "l1_loss(int64[], int32[2, 3]): result: dtype torch.int32 vs torch.int64",
    ("loss", "multi_margin_loss", "raises"):
        LOSS + "multi_margin_loss(int32[2, 3], 0): raises: AttributeError vs TypeError",
    ("loss", "multi_margin_loss:weight", "raises"):
        LOSS + "multi_margin_loss:weight(float32[2, 3], float32[2], float32[3]): raises: nothing "
               "vs RuntimeError",
    ("loss", "multilabel_margin_loss", "raises"):
        LOSS + "multilabel_margin_loss(float32[2, 3], float32[2, 3]): raises: IndexError vs "
               "RuntimeError",
    ("loss", "multilabel_soft_margin_loss", "raises"):
        LOSS + "multilabel_soft_margin_loss(-1, float64[2, 3]): raises: AttributeError vs "
               "TypeError",
    ("loss", "nll_loss", "raises"):
        LOSS + "nll_loss(int64[2, 3], bool[]): raises: RuntimeError vs ValueError",
    ("loss", "nll_loss:weight", "raises"):
        LOSS + "nll_loss:weight(bool[2, 3], int32[], int32[]): raises: IndexError vs ValueError",
    ("loss", "poisson_nll_loss", "result"):
        LOSS + "poisson_nll_loss(int64[], float64[2, 3]): result: values 1.1349486509958904 vs "
               "1.1349484125773113",
    ("loss", "smooth_l1_loss", "raises"):
        LOSS + "smooth_l1_loss(bool[2, 3], bool[2, 3]): raises: TypeError vs NotImplementedError",
    ("loss", "mse_loss", "result"):
        LOSS + "mse_loss(float32[], float16[2, 3]): result: dtype torch.float16 vs "
               "torch.float32 (PyTorch broadcasts the operands before it promotes)",
    ("loss", "triplet_margin_with_distance_loss", "gradient"):
        LOSS + "triplet_margin_with_distance_loss(float16[2, 3], float16[2, 3], "
               "float32[2, 3]), all equal: grad of leaf 0 -0.072 vs 0.00116 (zero distances)",
    ("loss", "soft_margin_loss", "backward raises"):
        LOSS + "soft_margin_loss(float16[2, 3], bool[2, 3]): backward raises: nothing vs "
               "RuntimeError",
    ("loss", "poisson_nll_loss", "raises"):
        LOSS + "poisson_nll_loss(int32[2, 3], 1.5): raises: nothing vs TypeError",
    ("loss", "smooth_l1_loss", "result"):
        LOSS + "smooth_l1_loss(float16[2, 3], float64[]): result: dtype torch.float16 vs "
               "torch.float64",
    ("loss", "triplet_margin_loss", "raises"):
        LOSS + "triplet_margin_loss(True, int32[2, 3], float32[2, 3]): raises: AttributeError "
               "vs TypeError",
    ("loss", "soft_margin_loss", "raises"):
        LOSS + "soft_margin_loss(int64[2, 3], int32[]): raises: nothing vs RuntimeError",
    ("loss", "triplet_margin_loss", "gradient"):
        LOSS + "triplet_margin_loss(float16[2, 3], float16[2, 3], float16[2, 3]): grad of leaf 0: "
               "values [[ 1.192e-07  2.048e-01 -1.434e-01]  ",
    ("loss", "triplet_margin_with_distance_loss", "raises"):
        LOSS + "triplet_margin_with_distance_loss(int64[], float16[2, 3], float16[]): raises: "
               "nothing vs RuntimeError",
}


@pytest.mark.parametrize("key", [pytest.param(k, id=":".join(k), marks=pytest.mark.xfail(
    strict=True, reason=KNOWN[k])) for k in sorted(KNOWN)])
def test_known_differences_still_differ(key):
    family, name, kind = key

    @settings(max_examples=300, derandomize=True, deadline=None, database=None,
              phases=(Phase.generate,), suppress_health_check=list(HealthCheck))
    @given(STRATEGIES[family](name))
    def sweep(case):
        mine, ref = outcome(leafgrad, case[2], case[3]), outcome(torch, case[2], case[3])
        why = mismatch(mine, ref, case[4], loosest(case[3]))
        assert why is None or category(why) != kind, why
    sweep()
