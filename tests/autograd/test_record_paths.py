"""``record`` (the general path), ``record1`` and ``record2`` (its unrolled copies
for one and two inputs, which the elementwise ops call directly) leave the same
state on the node and the result, field by field (issue 8: unrolled copies of
record tested path by path)."""
import numpy as np
import pytest

import leafgrad
from leafgrad.autograd import saved_hooks
from leafgrad.ops import _dispatch as D
from leafgrad.ops import elementwise as E

NODE_FIELDS = ("_e0", "_n0", "_rest", "needs_input_grad", "_metas", "_versions_saved",
               "_out", "_out_version", "args", "_released", "_extra")
TENSOR_FIELDS = ("_requires_grad", "_grad", "_acc", "_hooks", "_post_hooks", "_base", "_vc",
                 "_output_nr", "_retains_grad")


def _generic(cls, out, inputs, saved, save_result, args):
    """The general loop of ``record``, reached with a padding input that needs no grad
    (then stripped), so that both paths see the same inputs."""
    pad = leafgrad.tensor(0.0)
    res = D.record(cls, out, tuple(inputs) + (pad,), saved, save_result, args)
    node = res._grad_fn
    if node is not None:
        e = node._edges[:-2]
        node._edges = e
        node.needs_input_grad = node.needs_input_grad[:-1]
        node._metas = node._metas[:-1]
    return res


def _state(res):
    node = res._grad_fn
    t = {f: getattr(res, f) for f in TENSOR_FIELDS}
    if node is None:
        return t, None
    n = {f: getattr(node, f, "<unset>") for f in NODE_FIELDS}
    n["_edges"] = node._edges
    n["saved"] = node._raw_saved()
    n["type"] = type(node)
    return t, n


def _same(a, b):
    ta, na = _state(a)
    tb, nb = _state(b)
    assert ta == tb
    assert (na is None) == (nb is None)
    if na is not None:
        assert {k: v for k, v in na.items() if k != "_out"} == \
            {k: v for k, v in nb.items() if k != "_out"}
        assert (na["_out"] is None) == (nb["_out"] is None)
    assert a._data is b._data or np.array_equal(a._data, b._data)


def _inputs():
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2                           # a non-leaf
    c = leafgrad.tensor([3.0, 4.0])     # needs no grad
    col = leafgrad.tensor([[1.0], [2.0]], requires_grad=True)   # broadcasts
    d64 = leafgrad.tensor([1.0, 2.0], dtype=leafgrad.float64, requires_grad=True)
    v = x.detach()
    v.add_(1)                           # a version above 0
    v.requires_grad_()
    return {"leaf": x, "nonleaf": y, "const": c, "col": col, "f64": d64, "bumped": v,
            "none": None}


PAIRS = [("leaf", "leaf"), ("leaf", "nonleaf"), ("nonleaf", "const"), ("const", "leaf"),
         ("none", "leaf"), ("leaf", "none"), ("const", "const"), ("col", "leaf"),
         ("f64", "leaf"), ("bumped", "nonleaf")]


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("how", ["nothing", "inputs", "number", "result"])
def test_record2_is_the_general_path(pair, how):
    ins = _inputs()
    a, b = ins[pair[0]], ins[pair[1]]
    out = np.ones((2, 2) if "col" in pair else (2,), np.float32)
    saved = {"nothing": None, "inputs": (a, b), "number": (a, 2.5), "result": None}[how]
    sr = how == "result"
    cls = E.mul.node
    _same(D.record2(cls, out, a, b, saved, sr, ("x",)),
          _generic(cls, out, (a, b), saved, sr, ("x",)))


@pytest.mark.parametrize("which", ["leaf", "nonleaf", "const", "col", "f64", "bumped", "none"])
@pytest.mark.parametrize("how", ["nothing", "input", "result"])
def test_record1_is_the_general_path(which, how):
    t = _inputs()[which]
    out = np.ones((2, 2) if which == "col" else (2,), np.float32)
    sr = how == "result"
    cls = E.exp.node
    _same(D.record1(cls, out, t, True if how == "input" and t is not None else None, sr, 7),
          _generic(cls, out, (t,), (t,) if how == "input" and t is not None else None, sr, 7))


def test_paths_under_saved_tensor_hooks_pack_the_same():
    ins = _inputs()
    a, b = ins["leaf"], ins["nonleaf"]
    out = np.ones(2, np.float32)
    with leafgrad.autograd.graph.saved_tensors_hooks(lambda t: ("packed", t), lambda p: p[1]):
        r2 = D.record2(E.mul.node, out, a, b, (a, b))
        r1 = D.record1(E.exp.node, out, a, True)
    for r in (r2, r1):
        saved = r._grad_fn._raw_saved()
        assert all(type(s) is saved_hooks.Packed for s in saved)
        assert r._grad_fn._s0 is None      # nothing kept beside the packed values
    assert [s is t for s, t in zip(r2._grad_fn._checked_saved, (a, b))] == [True, True]


def test_an_ops_own_copies_record_what_the_shared_functions_record():
    # own_recorders: each elementwise op records through private copies of record1/2
    # (and of the _save/_result they call), for CPython's per-type attribute caches
    r1, r2 = D.own_recorders()
    assert r1.__code__ is not D.record1.__code__ and r2.__code__ is not D.record2.__code__
    for r in (r1, r2):
        for name, shared in (("_save", D._save), ("_result", D._result)):
            assert r.__kwdefaults__[name].__code__ is not shared.__code__
            assert r.__kwdefaults__[name].__code__.co_code == shared.__code__.co_code
    ins = _inputs()
    out = np.ones(2, np.float32)
    for pair in PAIRS:
        a, b = ins[pair[0]], ins[pair[1]]
        if "col" in pair:
            continue
        for saved in (None, (a, b), (a, 2.5)):
            _same(r2(E.mul.node, out, a, b, saved, saved is None, ("x",)),
                  D.record2(E.mul.node, out, a, b, saved, saved is None, ("x",)))
    for which in ("leaf", "nonleaf", "const", "bumped", "none"):
        t = ins[which]
        for saved in ((None, True) if t is not None else (None,)):
            _same(r1(E.exp.node, out, t, saved, saved is None, 7),
                  D.record1(E.exp.node, out, t, saved, saved is None, 7))


def test_factory_node_classes_run_their_own_copies_of_the_per_node_code():
    # own_recorders(cls) also gives the op's node classes their own per-node code
    from leafgrad.autograd.graph import Node
    x = leafgrad.tensor([1.0, 2.0], requires_grad=True)
    for y in (x * x, x + 1.5, x.exp(), 2 ** x, x / x):   # (made on an op's first call)
        cls = type(y.grad_fn)
        assert cls._checked_saved.fget.__code__ is not Node._checked_saved.fget.__code__
        assert cls._release.__code__ is not Node._release.__code__
    a, b = E.mul.node, E.div.node       # one factory closure each, over the same code
    assert a.np_backward.__code__ is not b.np_backward.__code__
    assert a.np_backward.__code__.co_code == b.np_backward.__code__.co_code
