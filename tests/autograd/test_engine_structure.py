"""The engine's contracts that the rest of the suite does not pin down:
leaf gradient buffers never alias an array someone else holds, ready nodes
run in PyTorch's order (hook order compared with real PyTorch), every
unrolled path of ``record`` builds the node a plain reference would, and the
core modules import one way (no cycle)."""
import ast
import os

import numpy as np
import pytest
import torch

import leafgrad as lg
from leafgrad.ops._dispatch import record


def _leaf(v, lib=lg):
    return lib.tensor(v, requires_grad=True)


MulBackward0 = type((_leaf([1.0]) * _leaf([2.0])).grad_fn)      # a two-input node class


def _independent(a, b):
    """Different memory, and zeroing one leaves the other alone."""
    assert not np.shares_memory(a._data, b._data)


# ------------------------------------------------------------- buffer ownership
def test_root_gradient_passed_through_is_copied():
    x = _leaf([1.0, 2.0])
    v = lg.tensor([3.0, 4.0])
    (x + 0).backward(v)             # AddBackward0 hands the incoming array on
    _independent(x.grad, v)
    x.grad.zero_()
    assert v.tolist() == [3.0, 4.0]


def test_leaf_root_gradient_is_copied():
    x = _leaf([1.0, 2.0])
    v = lg.tensor([3.0, 4.0])
    x.backward(v)
    _independent(x.grad, v)


def test_one_gradient_sent_to_two_leaves_is_not_shared():
    a, b = _leaf([1.0, 2.0]), _leaf([3.0, 4.0])
    (a + b).sum().backward()
    _independent(a.grad, b.grad)
    a.grad.zero_()
    assert b.grad.tolist() == [1.0, 1.0]


def test_fresh_result_sent_twice_is_not_shared():
    a = _leaf([1.0, 2.0])
    b = _leaf([3.0, 4.0])
    c = (a * 2) + (b * 0)               # distinct MulBackward0 nodes: no sharing
    c.sum().backward()
    _independent(a.grad, b.grad)


def test_gradient_seen_by_a_leaf_hook_is_not_kept_as_grad():
    x = _leaf([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(g))
    (x * 3).sum().backward()
    _independent(x.grad, seen[0])
    x.grad.zero_()
    assert seen[0].tolist() == [3.0, 3.0]


def test_tensor_returned_by_a_hook_is_not_kept_as_grad():
    x = _leaf([1.0, 2.0])
    mine = lg.tensor([7.0, 8.0])
    x.register_hook(lambda g: mine)
    (x * 3).sum().backward()
    _independent(x.grad, mine)


def test_gradient_returned_by_a_nonleaf_hook_is_not_kept_as_grad():
    x = _leaf([1.0, 2.0])
    mine = lg.tensor([7.0, 8.0])
    y = x + 0
    y.register_hook(lambda g: mine)     # replaces y's gradient; AddBackward0 passes it on
    y.sum().backward()
    _independent(x.grad, mine)
    assert x.grad.tolist() == [7.0, 8.0]


def test_retained_gradient_is_not_shared_with_the_leaf():
    x = _leaf([1.0, 2.0])
    y = x + 0
    y.retain_grad()
    y.backward(lg.tensor([1.0, 5.0]))
    _independent(x.grad, y.grad)


def test_captured_gradient_and_accumulated_grad_are_separate():
    x = _leaf([1.0, 2.0])
    y = (x * 3).sum()
    (g,) = lg.autograd.grad(y, x, retain_graph=True)
    y.backward(inputs=[x])
    _independent(x.grad, g)


def test_transposed_gradient_view_is_copied():
    w = _leaf(np.arange(6.0).reshape(2, 3))
    w.t().sum().backward()
    assert w.grad._data.base is None and w.grad._data.flags.writeable
    w.grad.zero_()
    assert w.grad.sum().item() == 0


def test_accumulation_adds_in_place_and_bumps_the_version():
    x = _leaf([1.0, 2.0])
    (x * 2).sum().backward()
    g = x.grad
    v0 = g._version
    (x * 2).sum().backward()
    assert x.grad is g and g.tolist() == [4.0, 4.0] and g._version == v0 + 1


# ------------------------------------------------------------ execution order
def _hook_order(lib):
    log = []

    def h(name):
        return lambda g: log.append(name)

    out = []
    x, w = _leaf([1.0, 2.0], lib), _leaf([3.0, 4.0], lib)
    x.register_hook(h("x"))
    w.register_hook(h("w"))
    a = x * 2
    a.register_hook(h("a"))
    b = a.sin()
    b.register_hook(h("b"))
    c = w.exp()
    c.register_hook(h("c"))
    d = a.cos()
    d.register_hook(h("d"))
    ((b * c).sum() + d.sum() + (x * w).sum()).backward()
    out.append("".join(log))
    y = _leaf(1.0, lib)
    for build in ("qp", "pq", "deep_p", "deep_q"):
        log.clear()
        p = y * 3
        p.register_hook(h("p"))
        q = y * 4
        q.register_hook(h("q"))
        if build == "qp":
            r = q + p               # q's node is newer: PyTorch runs it first
        elif build == "pq":
            r = p + q
        elif build == "deep_p":
            p2 = p.sin()
            p2.register_hook(h("P"))
            r = p2 + q
        else:
            q2 = q.sin()
            q2.register_hook(h("Q"))
            s = y * 5
            s.register_hook(h("s"))
            r = p + q2 + s
        r.backward()
        out.append("".join(log))
    return out


def test_hook_order_matches_pytorch():
    assert _hook_order(lg) == _hook_order(torch)


def test_node_hooks_and_prehooks_order_matches_pytorch():
    def run(lib):
        log = []
        x = _leaf([1.0, 2.0], lib)
        u, v = x * 2, x * 3
        z = u.exp() + v.sin()
        for t, name in ((u, "u"), (v, "v"), (z, "z")):
            t.grad_fn.register_prehook(lambda g, n=name: log.append("pre" + n))
            t.grad_fn.register_hook(lambda gi, go, n=name: log.append("post" + n))
        z.sum().backward()
        return log

    assert run(lg) == run(torch)


def test_sequence_numbers_increase_with_recording():
    x = _leaf([1.0])
    a = x * 2
    b = a * 2
    assert b.grad_fn._seq > a.grad_fn._seq


# --------------------------------------------------------- record, path by path
def _reference_node(out, inputs):
    """What record must build, computed the slow, obvious way."""
    edges, needs, metas = [], [], []
    for t in inputs:
        if t is None or not t.requires_grad:
            edges.append((None, 0))
            needs.append(False)
        else:
            edges.append((t.grad_fn, t.output_nr) if t.grad_fn is not None
                         else (t._grad_accumulator(), 0))
            needs.append(True)
        if t is None or (t._data.shape == out.shape and t._data.dtype == out.dtype):
            metas.append(None)
        else:
            metas.append((t._data.shape, t._data.dtype))
    return tuple(edges), tuple(needs), tuple(metas)


def _operand(kind):
    if kind == "none":
        return None
    if kind == "const":
        return lg.ones(3)
    if kind == "leaf":
        return _leaf([1.0, 2.0, 3.0])
    if kind == "nonleaf":
        return _leaf([1.0, 2.0, 3.0]) * 2
    if kind == "broadcast":
        return _leaf([[1.0]])
    if kind == "float64":
        return lg.tensor([1.0, 2.0, 3.0], dtype=lg.float64, requires_grad=True)
    if kind == "stale_view":        # a view whose base changed in place since
        base = _leaf([1.0, 2.0, 3.0, 4.0]) * 1
        v = base[:3]
        base.mul_(2)
        return v
    raise AssertionError(kind)


KINDS = ["none", "const", "leaf", "nonleaf", "broadcast", "float64", "stale_view"]


@pytest.mark.parametrize("kinds", [(k,) for k in KINDS]
                         + [(a, b) for a in KINDS for b in KINDS]
                         + [("leaf", "none", "nonleaf"), ("const", "const", "const"),
                            ("stale_view", "broadcast", "float64"), ("leaf", "leaf", "leaf", "const")])
def test_record_builds_the_reference_node(kinds):
    inputs = tuple(_operand(k) for k in kinds)
    out = np.zeros((2, 3) if "broadcast" in kinds else (3,), np.float32)
    res = record(MulBackward0, out, inputs)
    expected = _reference_node(out, inputs)     # views were synced by record
    if not any(needs for needs in expected[1]):
        assert res.grad_fn is None and not res.requires_grad
        return
    node = res.grad_fn
    assert type(node) is MulBackward0 and res.requires_grad and res._data is out
    assert tuple(node.next_functions) == expected[0]
    assert tuple(node.needs_input_grad) == expected[1]
    assert tuple(node._metas) == expected[2]
    for t in inputs:
        if t is not None and t._base is not None:
            assert t.grad_fn.name() == "AsStridedBackward0"   # regenerated over the new graph


@pytest.mark.parametrize("n_saved", [1, 2, 3])
def test_record_saves_versions_on_every_path(n_saved):
    x = _leaf([1.0, 2.0, 3.0])
    y = x * 1
    y.add_(1)
    y.add_(1)                                   # version 2
    saved = (y, 2.0, x)[:n_saved]
    res = record(MulBackward0, np.zeros(3, np.float32), (x,), saved=saved)
    assert res.grad_fn._versions_saved == (2, None, 0)[:n_saved]
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        res.grad_fn._checked_saved


def test_record_refuses_an_inference_tensor_on_every_path():
    with lg.inference_mode():
        t = lg.ones(3)
    x = _leaf([1.0, 2.0, 3.0])
    for saved in ((t,), (t, x), (x, t), (x, x, t)):
        with pytest.raises(RuntimeError):
            record(MulBackward0, np.zeros(3, np.float32), (x,), saved=saved)


def test_record_without_grad_mode_records_nothing():
    x = _leaf([1.0, 2.0, 3.0])
    with lg.no_grad():
        for inputs in ((x,), (x, x), (x, x, x)):
            assert record(MulBackward0, np.zeros(3, np.float32), inputs).grad_fn is None


# ------------------------------------------------------------------ layering
_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "src")


def _import_graph():
    """module -> modules it imports anywhere (top level or inside functions)."""
    mods = {}
    for d, _, files in os.walk(os.path.join(_SRC, "leafgrad")):
        for f in files:
            if f.endswith(".py"):
                p = os.path.join(d, f)
                name = os.path.relpath(p, _SRC)[:-3].replace(os.sep, ".")
                mods[name[:-9] if name.endswith(".__init__") else name] = p
    edges = {}
    for m, p in mods.items():
        base = m if p.endswith("__init__.py") else m.rsplit(".", 1)[0]
        for n in ast.walk(ast.parse(open(p, encoding="utf-8").read())):
            if isinstance(n, ast.ImportFrom):
                if n.level:
                    parts = base.split(".")[:len(base.split(".")) - n.level + 1]
                    b = ".".join(parts + ([n.module] if n.module else []))
                else:
                    b = n.module
                targets = [b + "." + a.name if b + "." + a.name in mods else b for a in n.names]
            elif isinstance(n, ast.Import):
                targets = [a.name for a in n.names]
            else:
                continue
            edges.setdefault(m, set()).update(t for t in targets if t in mods and t != m)
    return edges


def _core(m):
    # autograd.profiler is a facade over leafgrad.profiler (which sits above nn and
    # the op surface), not part of the autograd core
    return (m in ("leafgrad._tensor.tensor", "leafgrad._tensor.creation", "leafgrad.ops._dispatch",
                  "leafgrad._core.errors", "leafgrad._core.dtype", "leafgrad._core.quiet", "leafgrad._core.scalars")
            or (m.startswith("leafgrad.autograd") and m != "leafgrad.autograd.profiler"))


def _cycle_through(edges, start):
    """A path start -> ... -> start in the import graph, or None."""
    stack, seen = [(start, [start])], set()
    while stack:
        m, path = stack.pop()
        for t in edges.get(m, ()):
            if t == start:
                return path + [t]
            if t not in seen:
                seen.add(t)
                stack.append((t, path + [t]))
    return None


def _strongly_connected(edges):
    """The import graph's strongly connected components of more than one module (Tarjan,
    iterative): each is a set of modules that all import each other, directly or not."""
    index, low, stack, on, out = {}, {}, [], set(), []
    for s in sorted(set(edges) | {t for ts in edges.values() for t in ts}):
        if s in index:
            continue
        index[s] = low[s] = len(index)
        stack.append(s)
        on.add(s)
        work = [(s, iter(sorted(edges.get(s, ()))))]
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    c = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        c.add(w)
                        if w == v:
                            break
                    if len(c) > 1:
                        out.append(frozenset(c))
    return out


def _cycles(edges, allowed=()):
    """Every import cycle not in ``allowed`` (sets of modules): one path through each
    strongly connected component, from its smallest module."""
    found = []
    for c in _strongly_connected(edges):
        if c not in allowed:
            inside = {m: {t for t in edges.get(m, ()) if t in c} for m in c}
            found.append(tuple(_cycle_through(inside, min(c))))
    return sorted(found)


def test_no_module_imports_itself_back():
    # every module of src/leafgrad, imports inside functions counted
    edges = _import_graph()
    cycles = _cycles(edges)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_core_modules_import_one_way():
    edges = _import_graph()
    for m in sorted(edges):
        if _core(m):
            cycle = _cycle_through(edges, m)
            assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_can_fail():
    assert _cycle_through({"a": {"b"}, "b": {"c"}, "c": {"a"}}, "a") == ["a", "b", "c", "a"]
    assert _cycle_through({"a": {"b"}, "b": {"c"}}, "a") is None
    edges = {"a": {"b"}, "b": {"c", "d"}, "c": {"a"}, "d": {"e"}, "e": {"d"}}
    assert _strongly_connected(edges) == [frozenset("de"), frozenset("abc")]
    assert _cycles(edges) == [("a", "b", "c", "a"), ("d", "e", "d")]
    assert _cycles(edges, {frozenset({"d", "e"})}) == [("a", "b", "c", "a")]
    assert _cycles({"a": {"b"}, "b": set()}) == []


# The layers, bottom to top (DEVELOPERS.md): a module imports only from its own layer or
# below. Each entry names module prefixes; the longest prefix that matches decides.
_LAYERS = (
    ("core", ("leafgrad._core",)),
    ("autograd graph and engine", tuple("leafgrad.autograd." + m for m in (
        "graph", "engine", "grad_mode", "anomaly_mode", "saved_hooks", "_grad_values",
        "_fw_state", "_batching_state", "_saved_names"))),
    ("tensor", ("leafgrad._tensor",)),
    # the generator (streams and their state) sits below the ops that draw from it
    # (dropout masks, rrelu's slopes); the sampling functions sit above them
    ("random generator", ("leafgrad._random.generator",)),
    ("ops", ("leafgrad.ops",)),
    ("api", ("leafgrad._api", "leafgrad.autograd", "leafgrad.linalg", "leafgrad._C",
             "leafgrad.return_types")),
    ("random, checkpoint", ("leafgrad._random", "leafgrad._checkpoint", "leafgrad.random",
                            "leafgrad.serialization")),
    ("torch namespace", ("leafgrad", "leafgrad.__future__", "leafgrad.errors",
                         "leafgrad._compat.devices")),
    ("libraries", ("leafgrad.nn", "leafgrad.optim", "leafgrad.utils", "leafgrad.distributions",
                   "leafgrad.func", "leafgrad._functorch", "leafgrad.sparse", "leafgrad.special",
                   "leafgrad.functional", "leafgrad.amp", "leafgrad.cuda", "leafgrad.backends",
                   "leafgrad.accelerator", "leafgrad.distributed", "leafgrad.onnx",
                   "leafgrad.version", "leafgrad.bridge", "leafgrad.jit", "leafgrad.futures",
                   "leafgrad._jit_internal", "leafgrad.torch_version", "leafgrad.compiler",
                   "leafgrad._dynamo", "leafgrad._vmap_internals", "leafgrad.signal")),
    ("diagnostics", ("leafgrad.utils.viz", "leafgrad.profiler", "leafgrad.autograd.profiler",
                     "leafgrad.utils.benchmark", "leafgrad.utils.grad_report",
                     "leafgrad.utils.monitor", "leafgrad.utils._teach")),
    ("cli and compat", ("leafgrad.cli", "leafgrad.train", "leafgrad.__main__", "leafgrad._compat")),
)


def _layer(m):
    """The index in _LAYERS of module ``m`` (the longest matching prefix)."""
    best, rank = -1, None
    for i, (_, prefixes) in enumerate(_LAYERS):
        for p in prefixes:
            if (m == p or m.startswith(p + ".")) and len(p) > best:
                best, rank = len(p), i
    return rank


# Imports into a higher layer not yet turned around (each needs a move or an injected
# slot); the list only shrinks.
_UPWARD_NOT_YET_FIXED = {
    # the Parameter class when loading a checkpoint
    ("leafgrad._checkpoint.save_load", "leafgrad.nn.parameter"),
    ("leafgrad._checkpoint.torch_reader", "leafgrad.nn.parameter"),
    ("leafgrad._checkpoint.torch_writer", "leafgrad.nn.parameter"),
    ("leafgrad._tensor.factory_out", "leafgrad.ops._out"),          # out= of the factories
    ("leafgrad._tensor.tensor", "leafgrad.utils.viz._html"),        # Tensor._repr_html_
    ("leafgrad.ops.nn.pooling_fractional", "leafgrad._random.sampling"),   # the samples
    ("leafgrad.ops.nn.rnn_layer", "leafgrad.autograd._api"),        # autograd.grad
    # utils/__init__ re-exports the gradient reports (diagnostics)
    ("leafgrad.utils", "leafgrad.utils.grad_report"), ("leafgrad.utils", "leafgrad.utils.monitor"),
    ("leafgrad.utils", "leafgrad.utils._teach"),
}


def _upward(edges, allowed=()):
    return sorted((m, t) for m, ts in edges.items() for t in ts
                  if _layer(t) > _layer(m) and (m, t) not in allowed)


def test_every_module_has_a_layer():
    assert [m for m in _import_graph() if _layer(m) is None] == []


def test_imports_point_down_the_layers():
    up = _upward(_import_graph(), _UPWARD_NOT_YET_FIXED)
    assert not up, "imports into a higher layer:\n" + "\n".join(
        "%s (%s) -> %s (%s)" % (m, _LAYERS[_layer(m)][0], t, _LAYERS[_layer(t)][0]) for m, t in up)


def test_the_layer_check_can_fail():
    assert _upward({"leafgrad._tensor.tensor": {"leafgrad.ops._dispatch", "leafgrad._core.dtype"},
                    "leafgrad.nn.modules.module": {"leafgrad._tensor.tensor"}}) == \
        [("leafgrad._tensor.tensor", "leafgrad.ops._dispatch")]
    assert _upward({"leafgrad.ops.nn.pooling_fractional": {"leafgrad._random.sampling"}},
                   _UPWARD_NOT_YET_FIXED) == []
    assert _layer("leafgrad.autograd.engine") < _layer("leafgrad._tensor.tensor") < \
        _layer("leafgrad.autograd.function")


def test_engine_and_graph_sit_below_the_tensor():
    edges = _import_graph()
    lower = {"leafgrad._core.errors", "leafgrad._core.dtype", "leafgrad._core.quiet", "leafgrad._core.scalars",
             "leafgrad.autograd.engine", "leafgrad.autograd.graph", "leafgrad.autograd.grad_mode",
             "leafgrad.autograd.anomaly_mode", "leafgrad.autograd.saved_hooks", "leafgrad.autograd",
             "leafgrad.autograd._grad_values", "leafgrad.autograd._saved_names"}
    for m in ("leafgrad.autograd.engine", "leafgrad.autograd._grad_values", "leafgrad.autograd.graph",
              "leafgrad.autograd.grad_mode", "leafgrad.autograd.anomaly_mode",
              "leafgrad.autograd.saved_hooks"):
        up = sorted(edges.get(m, set()) - lower)
        assert not up, "%s imports %s (a higher layer)" % (m, up)
        path = os.path.join(_SRC, *m.split(".")) + ".py"
        assert "Tensor = None" not in open(path, encoding="utf-8").read(), m


# ------------------------------------------------------------- saved names as torch's
def test_saved_names_are_properties_not_getattr():
    # a __getattr__ on Node would make every attribute read of a node unspecialised
    # (CPython 3.11): the engine reads ~15 per node; PyTorch's names are properties
    from leafgrad.autograd.graph import AccumulateGrad, Node
    for cls in (Node, MulBackward0, AccumulateGrad):
        assert not any("__getattr__" in vars(k) for k in cls.__mro__), cls
    a, b = _leaf([[1.0, 2.0]]), _leaf([[3.0], [4.0]])
    ta, tb = torch.tensor([[1.0, 2.0]], requires_grad=True), torch.tensor([[3.0], [4.0]],
                                                                          requires_grad=True)
    fn, tfn = (a @ b).grad_fn, (ta @ tb).grad_fn
    assert fn.name() == tfn.name() == "MmBackward0"
    assert fn._saved_self is a and fn._saved_mat2 is b
    assert tfn._saved_self is ta and tfn._saved_mat2 is tb
    for f in (fn, tfn):
        with pytest.raises(AttributeError):
            f._saved_other          # Mm saves self and mat2, no "other"
    assert (a.exp()).grad_fn._saved_result is not None
    with pytest.raises(AttributeError, match="What it saved: nothing"):
        (a + b).grad_fn._saved_self     # add keeps nothing
