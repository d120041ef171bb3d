"""``out=``: every public function that takes it writes into it (before, some took it and
ignored it: a silently wrong result); results against PyTorch 2.13."""
import ast
import inspect
import textwrap
import warnings

import pytest
import torch

import leafgrad as lg


def _uses_out(fn):
    """True when some layer of ``fn`` (decorators included) reads its ``out`` argument."""
    layer = fn
    while layer is not None:
        try:
            # the code object's own source (getsource of a function follows __wrapped__)
            tree = ast.parse(textwrap.dedent(inspect.getsource(layer.__code__)))
        except (OSError, TypeError, SyntaxError, AttributeError):
            return True          # a builtin or generated function: not ours to read
        body = tree.body[0]
        if any(isinstance(n, ast.Name) and n.id == "out" for n in ast.walk(body)):
            return True
        layer = getattr(layer, "__wrapped__", None)
    return False


def _public_functions():
    spaces = [("torch", lg), ("linalg", lg.linalg), ("special", lg.special),
              ("F", lg.nn.functional)]
    for prefix, mod in spaces:
        for name in sorted(dir(mod)):
            if name.startswith("_"):
                continue
            obj = getattr(mod, name, None)
            if callable(obj) and not isinstance(obj, type):
                yield "%s.%s" % (prefix, name), obj


def test_no_public_function_ignores_out():
    ignored = []
    for name, fn in _public_functions():
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        if "out" in params and not _uses_out(fn):
            ignored.append(name)
    assert not ignored, "these accept out= and never use it: %s" % ignored


def _show(o):
    if isinstance(o, (tuple, list)):
        return [_show(x) for x in o]
    return (str(o.dtype), tuple(o.shape), [round(v, 4) for v in o.double().flatten().tolist()])


def _a(T):
    return T.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])


CASES = {
    "cross": (lambda T, o: T.cross(T.ones(3), T.arange(3.0), dim=0, out=o), (3,)),
    "linalg.cross": (lambda T, o: T.linalg.cross(T.ones(3), T.arange(3.0), out=o), (3,)),
    "linalg.det": (lambda T, o: T.linalg.det(_a(T), out=o), ()),
    "histc": (lambda T, o: T.histc(T.arange(4.0), bins=2, out=o), (2,)),
    "inverse": (lambda T, o: T.inverse(_a(T), out=o), (3, 3)),
    "linalg.inv": (lambda T, o: T.linalg.inv(_a(T), out=o), (3, 3)),
    "max_dim": (lambda T, o: T.max(_a(T), 0, out=o), [(3,), (3,)]),
    "min_dim_keepdim": (lambda T, o: T.min(_a(T), 1, keepdim=True, out=o), [(3, 1), (3, 1)]),
    "max_binary": (lambda T, o: T.max(_a(T), _a(T) * 0.5, out=o), (3, 3)),
    "tensordot": (lambda T, o: T.tensordot(_a(T), _a(T), 1, out=o), (3, 3)),
    "linalg.norm": (lambda T, o: T.linalg.norm(_a(T), out=o), ()),
    "linalg.vector_norm": (lambda T, o: T.linalg.vector_norm(_a(T), out=o), ()),
    "linalg.matrix_norm": (lambda T, o: T.linalg.matrix_norm(_a(T), out=o), ()),
    "linalg.solve": (lambda T, o: T.linalg.solve(_a(T), _a(T), out=o), (3, 3)),
    "linalg.svdvals": (lambda T, o: T.linalg.svdvals(_a(T), out=o), (3,)),
    "linalg.eigvalsh": (lambda T, o: T.linalg.eigvalsh(_a(T), out=o), (3,)),
    "linalg.cholesky": (lambda T, o: T.linalg.cholesky(_a(T), out=o), (3, 3)),
    "linalg.matrix_power": (lambda T, o: T.linalg.matrix_power(_a(T), 2, out=o), (3, 3)),
    "linalg.multi_dot": (lambda T, o: T.linalg.multi_dot([_a(T), _a(T)], out=o), (3, 3)),
    "linalg.pinv": (lambda T, o: T.linalg.pinv(_a(T), out=o), (3, 3)),
    "linalg.vecdot": (lambda T, o: T.linalg.vecdot(_a(T), _a(T), out=o), (3,)),
    "linalg.slogdet": (lambda T, o: T.linalg.slogdet(_a(T), out=o), [(), ()]),
    "F.normalize": (lambda T, o: T.nn.functional.normalize(_a(T), out=o), (3, 3)),
    "linalg.solve_triangular": (lambda T, o: T.linalg.solve_triangular(
        T.triu(_a(T)), _a(T), upper=True, out=o), (3, 3)),
    "linalg.lu_factor": (lambda T, o: T.linalg.lu_factor(_a(T), out=(o[0], o[1].int())), [(3, 3), (3,)]),
    "out_requires_grad": (lambda T, o: T.linalg.det(_a(T).requires_grad_(), out=o), ()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_matches_torch(name):
    call, shapes = CASES[name]
    res = []
    for T in (lg, torch):
        if isinstance(shapes, list):
            o = tuple(T.zeros(s, dtype=T.int64 if i == 1 and name.endswith(("dim", "keepdim"))
                              else T.float32) for i, s in enumerate(shapes))
        else:
            o = T.zeros(shapes)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = call(T, o)
        except Exception as e:   # noqa: BLE001
            res.append(("raises", type(e).__name__))
            continue
        same = all(a is b for a, b in zip(r, o)) if isinstance(o, tuple) else r is o
        res.append(("value", same, _show(o)))
    assert res[0] == res[1]
