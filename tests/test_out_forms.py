"""``out=`` as PyTorch: every Tensor method refuses it (PyTorch's methods take none), a
function takes it only where PyTorch's has an out= overload, and every function that
takes it writes its result there (none ignores it). Values written are checked against
real PyTorch for each mechanism (the unary/binary factories, ``with_out``, tuples,
the factories of ``_creation``/``_random_ops``)."""
import ast
import os

import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.ops import _forms
from leafgrad.ops._registry import OPS

_SRC = os.path.join(os.path.dirname(leafgrad.__file__))


def _torch_has_out(name):
    # an out= overload: keyword-only arguments it writes (out; U, S, V of svd; ...)
    return any(a.kwarg_only and a.alias_info is not None and a.alias_info.is_write
               for s in torch._C._jit_get_schemas_for_operator("aten::" + name)
               for a in s.arguments)


def _refuses(m):
    return getattr(m, "refuses_out", False) or (
        getattr(m, "__code__", None) is _forms.refusing_out(len, "x").__code__)


def test_every_tensor_method_refuses_out():
    takes = []
    for d in OPS.values():
        for n in d.names():
            m = leafgrad.Tensor.__dict__.get(n)
            if m is not None and _forms._takes_out(m) and not _refuses(m):
                takes.append(n)
    assert not takes, "Tensor methods taking out= (PyTorch's take none): %s" % takes
    assert len(OPS) > 200


def test_no_function_takes_out_where_pytorch_has_none():
    extra = []
    for d in OPS.values():
        f = d.form("function")
        if f is None or not _forms._takes_out(f):
            continue
        if hasattr(torch, d.name) and not _torch_has_out(d.name):
            extra.append(d.name)
    assert not extra, "out= accepted where PyTorch has no out= overload: %s" % extra


def _uses_out(fn):
    return any(isinstance(n, ast.Name) and n.id == "out" and isinstance(n.ctx, ast.Load)
               for n in ast.walk(fn))


def test_no_function_ignores_out():
    # a parameter out=None that the body never reads is a silently ignored out=
    # (torch.max(x, 1, out=...) left the tensors as they were): read it or take_out it
    ignored = []
    for root, _, files in os.walk(_SRC):
        for f in files:
            if not f.endswith(".py"):
                continue
            p = os.path.join(root, f)
            for n in ast.walk(ast.parse(open(p, encoding="utf-8").read())):
                if not isinstance(n, ast.FunctionDef):
                    continue
                if "out" not in [a.arg for a in n.args.args + n.args.kwonlyargs]:
                    continue
                decorated = any("out" in ast.unparse(dec) for dec in n.decorator_list)
                if not (_uses_out(n) or decorated):
                    ignored.append("%s:%s" % (os.path.relpath(p, _SRC), n.name))
    assert not ignored, "functions that take out= and ignore it: %s" % ignored


def _pair(T, arr):
    return T.tensor(arr)


_A = np.array([[2.0, 1.0, 0.5], [0.5, 3.0, 1.0], [0.25, 1.0, 4.0]], np.float32)
CALLS = [
    ("exp", lambda T: (T.exp, (_pair(T, _A),), {}), lambda T: T.empty(0)),
    ("mul", lambda T: (T.mul, (_pair(T, _A), 2.0), {}), lambda T: T.empty(3, 3)),
    ("eq", lambda T: (T.eq, (_pair(T, _A), 1.0), {}), lambda T: T.empty(0, dtype=T.bool)),
    ("matmul", lambda T: (T.matmul, (_pair(T, _A), _pair(T, _A)), {}), lambda T: T.empty(0)),
    ("max_dim", lambda T: (T.max, (_pair(T, _A), 1), {}),
     lambda T: (T.empty(0), T.empty(0, dtype=T.int64))),
    ("max_all", lambda T: (T.max, (_pair(T, _A),), {}), lambda T: T.empty(0)),
    ("linalg.inv", lambda T: (T.linalg.inv, (_pair(T, _A),), {}), lambda T: T.empty(3, 3)),
    ("linalg.svd", lambda T: (T.linalg.svd, (_pair(T, _A),), {}),
     lambda T: (T.empty(0), T.empty(0), T.empty(0))),
    ("linalg.vector_norm", lambda T: (T.linalg.vector_norm, (_pair(T, _A),), {"dim": 1}),
     lambda T: T.empty(0)),
    ("histc", lambda T: (T.histc, (_pair(T, _A),), {"bins": 4}), lambda T: T.empty(0)),
    ("normalize", lambda T: (T.nn.functional.normalize, (_pair(T, _A),), {}),
     lambda T: T.empty(3, 3)),
    ("zeros", lambda T: (T.zeros, (2, 3), {}), lambda T: T.empty(0, dtype=T.int64)),
    ("arange", lambda T: (T.arange, (5,), {}), lambda T: T.empty(0)),
    ("eye", lambda T: (T.eye, (3,), {}), lambda T: T.empty(9)[:0].clone()),
    ("full", lambda T: (T.full, ((2,), 7), {}), lambda T: T.empty(0, dtype=T.float64)),
]


@pytest.mark.parametrize("name", [c[0] for c in CALLS])
def test_out_written_as_pytorch(name):
    make, make_out = next((m, o) for n, m, o in CALLS if n == name)
    results = []
    for T in (leafgrad, torch):
        fn, args, kwargs = make(T)
        out = make_out(T)
        got = fn(*args, out=out, **kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        gots = tuple(got) if isinstance(got, tuple) else (got,)
        assert all(g is o for g, o in zip(gots, outs)), "out= must return the out tensors"
        results.append([(str(o.dtype), tuple(o.shape), np.asarray(o.tolist(), float))
                        for o in outs])
    for (ld, ls, lv), (td, ts, tv) in zip(*results):
        assert ld == td and ls == ts
        if name != "linalg.svd":       # singular vectors' signs are the solver's choice
            np.testing.assert_allclose(lv, tv, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", ["t.exp(out=o)", "t.mul(t, out=o)", "t.eq(t, out=o)",
                                  "t.matmul(t, out=o)", "t.clamp(0, 1, out=o)",
                                  "t.inverse(out=o)", "t.add(t, out=o)", "t.sum(out=o)"])
def test_method_with_out_raises_type_error_as_pytorch(call):
    for T in (torch, leafgrad):
        t, o = T.eye(2), T.empty(2, 2)
        with pytest.raises(TypeError) as e:
            eval(call, {"t": t, "o": o})
        assert T is torch or "'out'" in str(e.value)


def test_out_with_autograd_refused_as_pytorch():
    for T in (torch, leafgrad):
        x = T.eye(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
            T.linalg.inv(x, out=T.empty(2, 2))
