"""Differential fuzzer for reductions and shape functions with their dim / keepdim / dtype
arguments: leafgrad against real PyTorch.

Each case: one op (below), a random input (0 to 4 dims of sizes 0 to 4, so 0-d and
empty tensors; float32, float64, int64, int32, uint8 or bool; values continuous for the
float dtypes, so no ties decide an index or a gradient), random arguments (dim None, an
int, a negative one, now and then out of range, a tuple of dims, an empty tuple, a
repeated dim; keepdim; dtype; the op's own: correction, p, k, largest, descending,
sorted, return_inverse / return_counts, ...), called as a function or as a method.
Compared: the exception class, or each result's type, dtype, shape and values (nan
positions exactly; float32 within 1e-5 relative, float64 1e-10), and for float inputs the
gradient of a weighted sum of the float results w.r.t. the input.

Default run: CASES per op, seeded; LEAFGRAD_FUZZ=thorough 10x with random seeds;
LEAFGRAD_FUZZ=0 skips them.
"""
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from _fuzz_mode import exc_name, needs_fuzz, seeds

CASES = 40
DTYPES = ["float32", "float64", "float32", "float64", "int64", "int32", "uint8", "bool"]


class Mismatch(AssertionError):
    pass


def _dim(r, nd, tuples=True):
    """A random dim argument for a tensor of ``nd`` dims."""
    u = r.random()
    top = max(nd, 1)
    if u < 0.04:
        return int(r.choice([top, -top - 1]))          # out of range
    if tuples and u < 0.25 and nd:
        k = int(r.integers(0, nd + 1))
        dims = [int(d) for d in r.permutation(nd)[:k]]
        dims = [d - nd if r.random() < 0.3 else d for d in dims]
        if dims and r.random() < 0.08:
            dims.append(dims[0])                        # repeated
        return tuple(dims) if r.random() < 0.8 else list(dims)
    return int(r.integers(-top, top))


def _kd(r):
    return bool(r.random() < 0.5)


def _dt(r, choices=("float64", "int64", "float32")):
    return None if r.random() < 0.6 else str(r.choice(choices))


# op name -> a sampler (rng, ndim, dtype) -> (args, kwargs); the dtype kwarg is a name
SAMPLERS = {
    "sum": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r), dtype=_dt(r)))
    if r.random() < 0.8 else ((), dict(dtype=_dt(r))),
    "mean": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r),
                                        dtype=_dt(r, ("float64", "float32"))))
    if r.random() < 0.8 else ((), {}),
    "nansum": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r))),
    "nanmean": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r))),
    "prod": lambda r, nd, dt: ((), dict(dim=_dim(r, nd, tuples=False), keepdim=_kd(r),
                                        dtype=_dt(r))) if r.random() < 0.8 else ((), {}),
    "amax": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r))),
    "amin": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r))),
    "aminmax": lambda r, nd, dt: ((), dict(dim=_dim(r, nd, tuples=False), keepdim=_kd(r)))
    if r.random() < 0.7 else ((), {}),
    "max": lambda r, nd, dt: ((_dim(r, nd, tuples=False),), dict(keepdim=_kd(r)))
    if r.random() < 0.7 else ((), {}),
    "min": lambda r, nd, dt: ((_dim(r, nd, tuples=False),), dict(keepdim=_kd(r)))
    if r.random() < 0.7 else ((), {}),
    "argmax": lambda r, nd, dt: ((), dict(dim=_dim(r, nd, tuples=False), keepdim=_kd(r)))
    if r.random() < 0.7 else ((), {}),
    "argmin": lambda r, nd, dt: ((), dict(dim=_dim(r, nd, tuples=False), keepdim=_kd(r)))
    if r.random() < 0.7 else ((), {}),
    "std": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r),
                                       correction=int(r.integers(0, 3))))
    if r.random() < 0.8 else ((), {}),
    "var": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r),
                                       correction=int(r.integers(0, 3))))
    if r.random() < 0.8 else ((), dict(unbiased=bool(r.random() < 0.5))),
    "std_mean": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r),
                                            correction=int(r.integers(0, 2)))),
    "var_mean": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r))),
    "norm": lambda r, nd, dt: ((), dict(p=r.choice([2, 1, 3, float("inf"), 0]),
                                        dim=_dim(r, nd), keepdim=_kd(r))),
    "logsumexp": lambda r, nd, dt: ((_dim(r, nd),), dict(keepdim=_kd(r))),
    "cumsum": lambda r, nd, dt: ((_dim(r, nd, tuples=False),), dict(dtype=_dt(r))),
    "cumprod": lambda r, nd, dt: ((_dim(r, nd, tuples=False),), dict(dtype=_dt(r))),
    "logcumsumexp": lambda r, nd, dt: ((_dim(r, nd, tuples=False),), {}),
    "all": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r)))
    if r.random() < 0.7 else ((), {}),
    "any": lambda r, nd, dt: ((), dict(dim=_dim(r, nd), keepdim=_kd(r)))
    if r.random() < 0.7 else ((), {}),
    "count_nonzero": lambda r, nd, dt: ((), dict(dim=_dim(r, nd)))
    if r.random() < 0.7 else ((), {}),
    "sort": lambda r, nd, dt: ((), dict(dim=_dim(r, nd, tuples=False),
                                        descending=bool(r.random() < 0.5),
                                        stable=True)),
    "argsort": lambda r, nd, dt: ((), dict(dim=_dim(r, nd, tuples=False),
                                           descending=bool(r.random() < 0.5), stable=True)),
    "topk": lambda r, nd, dt: ((int(r.integers(0, 4)),),
                               dict(dim=_dim(r, nd, tuples=False),
                                    largest=bool(r.random() < 0.5), sorted=True)),
    "median": lambda r, nd, dt: ((_dim(r, nd, tuples=False),), dict(keepdim=_kd(r)))
    if r.random() < 0.6 else ((), {}),
    "kthvalue": lambda r, nd, dt: ((int(r.integers(1, 4)), _dim(r, nd, tuples=False)),
                                   dict(keepdim=_kd(r))),
    "unique": lambda r, nd, dt: ((), dict(sorted=True, return_inverse=bool(r.random() < 0.5),
                                          return_counts=bool(r.random() < 0.5),
                                          dim=None if r.random() < 0.6 else
                                          _dim(r, nd, tuples=False))),
    "unique_consecutive": lambda r, nd, dt: ((), dict(return_inverse=bool(r.random() < 0.5),
                                                      return_counts=bool(r.random() < 0.5),
                                                      dim=None if r.random() < 0.6 else
                                                      _dim(r, nd, tuples=False))),
    "flip": lambda r, nd, dt: ((_dim(r, nd) if nd else (),), {}),
    "roll": lambda r, nd, dt: ((int(r.integers(-5, 6)),),
                               dict(dims=None if r.random() < 0.3 else
                                    _dim(r, nd, tuples=False))),
    "squeeze": lambda r, nd, dt: ((_dim(r, nd),) if r.random() < 0.7 else (), {}),
    "unsqueeze": lambda r, nd, dt: ((int(r.integers(-nd - 1, nd + 1)),), {}),
    "flatten": lambda r, nd, dt: ((), dict(start_dim=int(r.integers(-max(nd, 1), max(nd, 1))),
                                           end_dim=-1)),
    "movedim": lambda r, nd, dt: ((_dim(r, nd, tuples=False), _dim(r, nd, tuples=False)), {}),
    "diff": lambda r, nd, dt: ((), dict(n=int(r.integers(1, 3)), dim=_dim(r, nd, tuples=False))),
}
# ops PyTorch defines on floating inputs only (an int input: compared as the error)
NAMES = sorted(SAMPLERS)


# ops whose indices output picks one of tied elements (PyTorch documents no rule; argmax,
# max(dim) and the stable sorts document theirs and are compared)
TIE_INDEX = {"topk", "kthvalue", "median"}


def _ties(x):
    flat = x.reshape(-1)
    if flat.dtype.kind == "f":
        nans = int(np.isnan(flat).sum())
        flat = flat[~np.isnan(flat)]
        if nans > 1:
            return True
    return len(np.unique(flat)) < len(flat)


def draw_case(name, s):
    r = np.random.default_rng(s)
    nd = int(r.integers(0, 5))
    shape = tuple(int(n) for n in r.integers(0, 5, nd))
    if r.random() < 0.5:
        shape = tuple(max(n, 1) for n in shape)      # non-empty half the time
    dtype = DTYPES[r.integers(len(DTYPES))]
    size = int(np.prod(shape)) if shape else 1
    if dtype.startswith("float"):
        vals = r.standard_normal(size)
        if r.random() < 0.15:
            vals[r.random(size) < 0.3] = np.nan
    elif dtype == "bool":
        vals = r.random(size) < 0.5
    elif dtype == "uint8":
        vals = r.integers(0, 5, size)
    else:
        vals = r.integers(-4, 5, size)
    x = vals.astype(dtype).reshape(shape)
    args, kw = SAMPLERS[name](r, nd, dtype)
    method = bool(r.random() < 0.5)
    return dict(name=name, x=x, args=args, kw=kw, method=method)


def _call(T, case, x):
    kw = dict(case["kw"])
    if kw.get("dtype") is not None:
        kw["dtype"] = getattr(T, kw["dtype"])
    elif "dtype" in kw:
        del kw["dtype"]
    if case["method"]:
        return getattr(x, case["name"])(*case["args"], **kw)
    return getattr(T, case["name"])(x, *case["args"], **kw)


def _flat(res):
    """The results as a list of tensors / Python values."""
    if isinstance(res, (tuple, list)):
        out = []
        for r in res:
            out.extend(_flat(r))
        return out
    return [res]


def _summary(T, res):
    out = []
    for t in _flat(res):
        if isinstance(t, T.Tensor):
            out.append(("tensor", str(t.dtype).split(".")[-1], tuple(t.shape),
                        t.detach().numpy().copy()))
        else:
            out.append((type(t).__name__, t))
    return out


def _run(T, case):
    x = T.tensor(case["x"].copy())
    res = {}
    try:
        r = _call(T, case, x)
    except Exception as e:   # noqa: BLE001 - the class is compared
        return {"raises": exc_name(e)}
    res["type"] = type(r).__name__ if isinstance(r, tuple) else "Tensor"
    res["out"] = _summary(T, r)
    tied = case["name"] in TIE_INDEX and _ties(case["x"])
    if tied and isinstance(r, tuple):
        res["out"] = res["out"][:1]     # which of tied elements: left open by PyTorch
    if case["x"].dtype.kind == "f" and not tied:     # (and so which one gets the grad)
        leaf = T.tensor(case["x"].copy(), requires_grad=True)
        try:
            r = _call(T, case, leaf)
        except Exception as e:   # noqa: BLE001
            res["grad"] = ("raises", exc_name(e))
            return res
        outs = [t for t in _flat(r)
                if isinstance(t, T.Tensor) and t.is_floating_point() and t.requires_grad]
        if outs:
            total = sum(((t * (T.arange(t.numel(), dtype=t.dtype).reshape(t.shape) % 3 + 1)
                          ).sum() for t in outs), T.zeros((), dtype=leaf.dtype))
            try:
                total.backward()
                res["grad"] = None if leaf.grad is None else leaf.grad.numpy().copy()
            except Exception as e:   # noqa: BLE001
                res["grad"] = ("raises", exc_name(e))
    return res


def _same(got, want, what, dtype):
    if isinstance(want, np.ndarray):
        if not isinstance(got, np.ndarray) or got.shape != want.shape:
            raise Mismatch("%s: %r, torch %r" % (what, got, want))
        if want.dtype.kind == "f":
            rtol, atol = (1e-5, 1e-6) if dtype == "float32" or want.dtype == np.float32 \
                else (1e-10, 1e-12)
            if not np.array_equal(np.isnan(got), np.isnan(want)) or not np.allclose(
                    got, want, rtol=rtol, atol=atol, equal_nan=True):
                raise Mismatch("%s:\nleafgrad %r\ntorch    %r" % (what, got, want))
        elif not np.array_equal(got, want):
            raise Mismatch("%s:\nleafgrad %r\ntorch    %r" % (what, got, want))
        return
    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            raise Mismatch("%s: %r, torch %r" % (what, got, want))
        for i, (a, b) in enumerate(zip(got, want)):
            _same(a, b, "%s[%d]" % (what, i), dtype)
        return
    if isinstance(want, dict):
        if sorted(got) != sorted(want):
            raise Mismatch("%s: %s, torch %s" % (what, sorted(got), sorted(want)))
        for k in want:
            _same(got[k], want[k], "%s.%s" % (what, k), dtype)
        return
    if type(got) is not type(want) or got != want:
        raise Mismatch("%s: %r, torch %r" % (what, got, want))


# Differences left as they are: (op, when(case), reason); such cases are not compared
KNOWN = [
    ("flip", lambda c: not c["method"] and isinstance(c["args"][0], int),
     "torch.flip(x, 2) (an int, not a tuple, as the function's dims) is a TypeError in "
     "PyTorch's argument parser; leafgrad's generated function form takes it as x.flip(2)"),
    ("logcumsumexp", lambda c: c["x"].dtype.kind != "f",
     "a bool / integer input with a dim out of range: PyTorch checks the dim first "
     "(IndexError), leafgrad the dtype (NotImplementedError)"),
    ("logsumexp", lambda c: c["args"][0] in ((), []),
     "dim=(): PyTorch's own kernel fails for some shapes ('output with shape [] doesn't "
     "match the broadcast shape'); leafgrad reduces all dims"),
    ("amax", lambda c: _repeated(c["kw"].get("dim")),
     "a repeated dim in a tuple holding an empty dim: which error comes first (PyTorch "
     "IndexError for the empty dim, leafgrad RuntimeError for the repeat)"),
    ("amin", lambda c: _repeated(c["kw"].get("dim")), "as amax"),
    ("flip", lambda c: _repeated(c["args"][0]),
     "a repeated dim: PyTorch RuntimeError, leafgrad ValueError (NumPy's)"),
    ("squeeze", lambda c: c["args"] and _repeated(c["args"][0]),
     "a repeated dim: PyTorch RuntimeError, leafgrad ValueError (NumPy's)"),
    ("unique", lambda c: c["kw"].get("dim") is not None and np.isnan(c["x"]).any(),
     "unique(dim=...) of slices holding nan: the order PyTorch's lexicographic sort gives "
     "them (nan compares false) is not leafgrad's"),
    ("unique_consecutive", lambda c: c["kw"].get("dim") is not None and c["x"].size == 0,
     "unique_consecutive(dim=...) of an empty tensor: PyTorch raises, leafgrad returns empty"),
    ("std_mean", lambda c: c["kw"].get("dim") in ((), []) or c["x"].size <= 2, "as std"),
    ("var_mean", lambda c: c["kw"].get("dim") in ((), []) or c["x"].size <= 2, "as std"),
    ("amin", lambda c: c["kw"].get("dim") in ((), []) and c["x"].size == 0,
     "an empty input over dim=(): PyTorch RuntimeError (no identity), leafgrad IndexError"),
    ("amax", lambda c: c["kw"].get("dim") in ((), []) and c["x"].size == 0, "as amin"),
    ("median", lambda c: not c["args"] and c["x"].size == 0 and c["x"].dtype.kind != "f",
     "median() of an empty integer tensor: PyTorch returns some number (nan cast), "
     "leafgrad raises"),
    ("std", lambda c: c["kw"].get("dim") in ((), []),
     "dim=(): PyTorch's forward reduces every dim but its backward reduces none (n=1 over "
     "correction: inf gradients); leafgrad's gradient is the one of the value it computes"),
    ("var", lambda c: c["kw"].get("dim") in ((), []),
     "dim=(): as std (PyTorch's backward is not the gradient of its forward)"),
    ("std", lambda c: c["x"].size <= c["kw"].get("correction", 1) + 1,
     "the gradient where n - correction <= 0 (a division by zero or a negative count: "
     "PyTorch nan, leafgrad -0 or inf by another formula)"),
    ("var", lambda c: c["x"].size <= c["kw"].get("correction", 1) + 1,
     "as std"),
]


def _repeated(dims):
    return isinstance(dims, (tuple, list)) and len(set(dims)) < len(dims) or (
        isinstance(dims, (tuple, list)) and len({d % 8 for d in dims}) < len(dims))


def _known(case):
    return any(op == case["name"] and when(case) for op, when, _ in KNOWN)


def check(case):
    if _known(case):
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _run(torch, case)
        got = _run(leafgrad, case)
    try:
        # computed in float32 when asked (dtype=torch.float32): float32's tolerance
        _same(got, want, "outcome", "float32" if case["kw"].get("dtype") == "float32"
              else str(case["x"].dtype))
    except Mismatch as e:
        c = dict(case, x="%s %s" % (case["x"].dtype, case["x"].shape))
        raise Mismatch("%s\n%s\nx = %r" % (c, e, case["x"])) from None


@needs_fuzz
@pytest.mark.parametrize("name", NAMES)
def test_reduction_vs_torch(name):
    for s in seeds("reduce:" + name, CASES):
        check(draw_case(name, s))


# ------------------------------------------- float16 reductions over thousands of ties
# (issue 27: a backward dividing the gradient among n ties must not compute n in float16)
HALF_TIED = {
    "max": lambda x, r: x.max() if r.random() < 0.5 else x.max(-1).values,
    "min": lambda x, r: x.min() if r.random() < 0.5 else x.min(-1).values,
    "amax": lambda x, r: x.amax() if r.random() < 0.3 else x.amax(int(r.integers(0, x.dim()))),
    "amin": lambda x, r: x.amin(tuple(range(x.dim()))) if r.random() < 0.3 else x.amin(-1),
    "median": lambda x, r: x.median() if r.random() < 0.5 else x.median(-1).values,
    "nanmedian": lambda x, r: x.nanmedian(),
    "mode": lambda x, r: x.mode(-1).values,
    "sort": lambda x, r: x.sort(-1, descending=bool(r.random() < 0.5)).values,
    "topk": lambda x, r: x.topk(int(r.integers(1, 5)), -1).values,
    "kthvalue": lambda x, r: x.kthvalue(int(r.integers(1, 5)), -1).values,
    "mean": lambda x, r: x.mean() if r.random() < 0.5 else x.mean(-1),
}
# which of the tied elements these return (so which gets the gradient) PyTorch leaves open:
# the gradient is compared as a multiset
HALF_TIE_OPEN = {"median", "mode", "sort", "topk", "kthvalue"}


def _half_tied_case(name, s):
    r = np.random.default_rng(s)
    n = int(r.choice([2049, 3001, 33000, 66000]))
    shape = [(n,), (1, n), (2, n // 2), (n // 2, 2)][int(r.integers(4))]
    x = np.full(shape, r.choice([1.0, -2.5, 0.0, 1e-3]), np.float16)
    if r.random() < 0.3:        # a few other values among the ties
        x.reshape(-1)[r.integers(0, x.size, 3)] = r.choice([-1.0, 2.0, 0.5])
    return x, int(r.integers(1 << 30))


def _half_tied_run(T, name, x, s):
    leaf = T.tensor(x, requires_grad=True)
    y = HALF_TIED[name](leaf, np.random.default_rng(s))
    w = (T.arange(y.numel(), dtype=T.float32) % 3 + 1).to(T.float16).reshape(y.shape)
    (g,) = T.autograd.grad((y * w).sum(), leaf)
    return y.detach().numpy(), g.numpy()


@needs_fuzz
@pytest.mark.parametrize("name", sorted(HALF_TIED))
def test_half_tied_reduction_vs_torch(name):
    for s in seeds("half_tied:" + name, 2):
        x, s2 = _half_tied_case(name, s)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)      # PyTorch is silent
            got = _half_tied_run(leafgrad, name, x, s2)
        want = _half_tied_run(torch, name, x, s2)
        if name in HALF_TIE_OPEN:
            got, want = [np.sort(a, axis=None) for a in got], [np.sort(a, axis=None) for a in want]
        for what, a, b in zip(("value", "grad"), got, want):
            assert a.dtype == b.dtype and a.shape == b.shape, (name, s, what)
            assert np.array_equal(a, b, equal_nan=True), (
                "%s seed %d x %s of %r: %s\nleafgrad %r\ntorch    %r"
                % (name, s, x.shape, x.reshape(-1)[0], what, np.unique(a), np.unique(b)))


# ------------------------- p-norm ops on repeated rows and zero coordinate differences
PNORM_PS = (0, 0.5, 1, 1.5, 2, 3, float("inf"))
PNORM = {   # second order too: PyTorch's cdist / pdist refuse it (NotImplementedError)
    "cdist": lambda T, a, b, p: T.cdist(a, b, p=p),
    "cdist_self": lambda T, a, b, p: T.cdist(a, a, p=p),
    "pdist": lambda T, a, b, p: T.pdist(a, p=p),
    "pairwise_distance": lambda T, a, b, p: T.nn.functional.pairwise_distance(a, b, p=p,
                                                                                eps=0.0),
    "dist": lambda T, a, b, p: T.dist(a, b, p=p),
    "norm": lambda T, a, b, p: T.norm(a - b, p=p, dim=-1),
    "vector_norm": lambda T, a, b, p: T.linalg.vector_norm(a - b, ord=p),
}
# dist at p = 0: PyTorch's DistBackward0 negates an undefined gradient and raises
# RuntimeError ("Expected a proper Tensor but got None"); leafgrad leaves the grad None
PNORM_KNOWN = {("dist", 0)}


def _pnorm_run(T, name, a, b, p, second):
    f = PNORM[name]
    ta, tb = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
    try:
        y = f(T, ta, tb, p)
        gs = T.autograd.grad(y.sum(), (ta, tb), create_graph=second, allow_unused=True)
        out = [y] + list(gs)
        used = [g for g in gs if g is not None]
        if second and used:
            tot = sum((g.square().sum() for g in used[1:]), used[0].square().sum())
            out += list(T.autograd.grad(tot, (ta, tb), allow_unused=True))
    except (RuntimeError, NotImplementedError) as e:
        return exc_name(e)
    return [None if o is None else o.detach().numpy(force=True) for o in out]


@needs_fuzz
@pytest.mark.parametrize("name", sorted(PNORM))
def test_pnorm_zero_differences_vs_torch(name):
    for s in seeds("pnorm:" + name, 3):
        r = np.random.default_rng(s)
        m = int(r.integers(1, 4))
        a = r.integers(-1, 2, (int(r.integers(2, 5)), m)).astype(np.float64)
        a[-1] = a[0]                                    # a repeated row
        b = a[r.permutation(len(a))] if r.random() < 0.5 else a.copy()
        b[:, 0] += r.integers(0, 2, len(b))             # zero and nonzero differences
        for p in PNORM_PS:
            if (name, p) in PNORM_KNOWN:
                continue
            for second in (False, True):
                want = _pnorm_run(torch, name, a, b, p, second)
                got = _pnorm_run(leafgrad, name, a, b, p, second)
                what = "%s p=%s second=%s seed %d a=%r b=%r" % (name, p, second, s, a, b)
                if isinstance(want, str) or isinstance(got, str):
                    assert got == want, what
                    continue
                assert len(got) == len(want), what
                for x, y in zip(got, want):
                    assert (x is None) == (y is None), what
                    if x is not None:
                        assert x.shape == y.shape and np.allclose(
                            x, y, rtol=1e-10, atol=1e-12, equal_nan=True), \
                            "%s\nleafgrad %r\ntorch    %r" % (what, x, y)
