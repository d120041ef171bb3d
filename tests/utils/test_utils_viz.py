"""utils.viz: make_dot (DOT source checked against the graph) and print_graph (exact text)."""
import collections
import importlib.util
import io
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import leafgrad as lg
from leafgrad.utils.viz import make_dot, print_graph
from test_examples import ROOT, child_env

needs_graphviz = pytest.mark.skipif(importlib.util.find_spec("graphviz") is None,
                                    reason="graphviz is not installed (pip install leafgrad[plot])")

# the lines graphviz writes: `\tNAME [label=LABEL attrs]` and `\tTAIL -> HEAD [attrs]`
_ATTRS = r'((?:[^\]"]|"(?:[^"\\]|\\.)*")*)'     # quoted values may hold ']'
_NODE = re.compile(r'^\t(\w+) \[label=("(?:[^"\\]|\\.)*"|[^ \]]+)' + _ATTRS + r'\]$', re.M)
_EDGE = re.compile(r'^\t(\w+) -> (\w+)(?: \[' + _ATTRS + r'\])?$', re.M)


def parse(dot):
    """DOT source -> ({name: (label, attrs)}, [(tail, head, attrs)])."""
    src = dot.source
    nodes = {}
    for name, label, attrs in _NODE.findall(src):
        assert name not in nodes, "node %s declared twice" % name
        nodes[name] = (label[1:-1] if label.startswith('"') else label, attrs.strip())
    edges = [(t, h, a or "") for t, h, a in _EDGE.findall(src)]
    # nothing else in the body: every line is a node, an edge or the header
    assert len(nodes) + len(edges) == sum(1 for line in dot.body if not line.startswith("\tgraph"))
    return nodes, edges


def walk(roots):
    """Independent reference walk: every node reachable through next_functions."""
    seen, stack = [], [r for r in roots if r is not None]
    while stack:
        fn = stack.pop()
        if any(fn is s for s in seen):
            continue
        seen.append(fn)
        stack.extend(c for c, _ in fn.next_functions if c is not None)
    return seen


def canonical(nodes, edges):
    """Labels of the nodes and of the edges' ends, as multisets (ids dropped)."""
    lab = {n: label for n, (label, _) in nodes.items()}
    return (collections.Counter(lab.values()),
            collections.Counter((lab[t], lab[h], a) for t, h, a in edges))


def torch_canonical(out, params):
    """The same multisets computed from a torch tensor's own graph (not via make_dot)."""
    names = {id(p): k for k, p in params.items()}
    fns = walk([out.grad_fn])
    labels = collections.Counter(type(f).__name__ for f in fns)
    shape = lambda t: "(" + ", ".join(str(n) for n in t.shape) + ")"
    labels["\n %s" % shape(out)] += 1
    edges = collections.Counter()
    edges[(type(out.grad_fn).__name__, "\n %s" % shape(out), "")] += 1
    for f in fns:
        for c, _ in f.next_functions:
            if c is not None:
                edges[(type(c).__name__, type(f).__name__, "")] += 1
        if hasattr(f, "variable"):
            leaf = "%s\n %s" % (names.get(id(f.variable), ""), shape(f.variable))
            labels[leaf] += 1
            edges[(leaf, type(f).__name__, "")] += 1
    return labels, edges


def diamond(torch):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    return (a.exp() * a.sin() + a).sum(), {"x": x}


def mixed(torch):
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = torch.tensor([0.5, -1.0], requires_grad=True)
    z = (x @ w).tanh() + x[0].exp().mean() * x.sum(dim=1)
    s = torch.stack([z, z * 2]).pow(2)
    return (s[1:].sigmoid().max() / x.t().std() - w.abs().sum()).relu(), {"x": x, "w": w}


# ------------------------------------------------------------------ make_dot
@needs_graphviz
def test_make_dot_nodes_and_edges_follow_next_functions():
    loss, params = diamond(lg)
    x = params["x"]
    nodes, edges = parse(make_dot(loss, params=params))
    fns = walk([loss.grad_fn])
    # Sum, Add, Mul (exp * sin), Exp, Sin, Mul (x * 2), AccumulateGrad
    assert len(fns) == 7
    # one box per distinct backward node, labelled with its class name
    fn_ids = {str(id(f)): type(f).__name__ for f in fns}
    assert {n: lab for n, (lab, _) in nodes.items() if n in fn_ids} == fn_ids
    # plus the output and the leaf tensor
    assert set(nodes) == set(fn_ids) | {str(id(loss)), str(id(x))}
    assert nodes[str(id(loss))] == ("\n ()", "fillcolor=darkolivegreen1")
    assert nodes[str(id(x))] == ("x\n (2)", "fillcolor=lightblue")
    # one edge per next_functions entry (shared nodes: one edge per use)
    want = collections.Counter((str(id(c)), str(id(f)), "") for f in fns
                               for c, _ in f.next_functions if c is not None)
    acc = [f for f in fns if hasattr(f, "variable")][0]
    want[(str(id(x)), str(id(acc)), "")] += 1
    want[(str(id(loss.grad_fn)), str(id(loss)), "")] += 1
    assert collections.Counter(edges) == want
    mul = loss.grad_fn.next_functions[0][0].next_functions[1][0]
    assert type(mul).__name__ == "MulBackward0"
    assert sum(1 for t, h, _ in edges if t == str(id(mul))) == 3     # to Exp, Sin and Add
    # x * x: two edges from the one AccumulateGrad of x
    sq = x * x
    nodes, edges = parse(make_dot(sq))
    acc = sq.grad_fn.next_functions[0][0]
    assert sq.grad_fn.next_functions[1][0] is acc
    assert edges.count((str(id(acc)), str(id(sq.grad_fn)), "")) == 2
    assert len(nodes) == 4 and len(edges) == 4


@needs_graphviz
@pytest.mark.parametrize("expr", [diamond, mixed])
def test_make_dot_names_match_torch(expr):
    torch = pytest.importorskip("torch")
    got = canonical(*parse(make_dot(*expr(lg))))
    assert got == torch_canonical(*expr(torch))
    # and make_dot draws a torch tensor the same way
    assert canonical(*parse(make_dot(*expr(torch)))) == got


@needs_graphviz
def test_make_dot_model_parameters_named():
    lg.manual_seed(0)
    model = lg.nn.Sequential(lg.nn.Linear(4, 3), lg.nn.ReLU(), lg.nn.Linear(3, 1))
    out = model(lg.randn(5, 4)).sum()
    nodes, _ = parse(make_dot(out, params=dict(model.named_parameters())))
    leaves = sorted(lab for lab, attrs in nodes.values() if attrs == "fillcolor=lightblue")
    assert leaves == ["0.bias\n (3)", "0.weight\n (3, 4)", "2.bias\n (1)", "2.weight\n (1, 3)"]
    # the pairs of named_parameters() work as well
    assert parse(make_dot(out, params=model.named_parameters()))[0] == nodes


@needs_graphviz
def test_make_dot_show_saved_and_attrs():
    a = lg.tensor([1.0, 2.0], requires_grad=True)
    b = lg.tensor([3.0, 4.0], requires_grad=True)
    y = (a * b).exp().sum(dim=0)
    nodes, edges = parse(make_dot(y, show_saved=True))
    saved = {n: lab for n, (lab, attrs) in nodes.items() if attrs == "fillcolor=orange"}
    mul = y.grad_fn.next_functions[0][0].next_functions[0][0]
    exp = y.grad_fn.next_functions[0][0]
    undirected = [(t, h) for t, h, attrs in edges if attrs == "dir=none"]
    # Mul saved both inputs, which are the leaves themselves (already drawn, light blue)
    assert (str(id(mul)), str(id(a))) in undirected and (str(id(mul)), str(id(b))) in undirected
    # Exp saved its result: one new orange box
    assert list(saved.values()) == ["result\n (2)"]
    assert undirected.count((str(id(exp)), list(saved)[0])) == 1
    assert len(undirected) == 3

    nodes, _ = parse(make_dot(y, show_attrs=True))
    assert nodes[str(id(exp))][0] == "ExpBackward0\n----------------------\nresult: [saved tensor]"
    # constants under PyTorch's names (grad_fn._saved_self_sym_sizes, _saved_dim, _saved_keepdim)
    sum_label = nodes[str(id(y.grad_fn))][0]
    assert sum_label.splitlines() == ["SumBackward1", "-" * 21, "self_sym_sizes:  (2,)",
                                      "dim           :  (0,)", "keepdim       : False"]
    cut = parse(make_dot(y, show_attrs=True, max_attr_chars=4))[0][str(id(y.grad_fn))][0]
    assert cut.splitlines()[-1] == "keepdim       : F..."

    # once backward freed the graph, the nodes say so (and where), nothing saved is drawn
    y.backward(); line = sys._getframe().f_lineno
    freed = "saved tensors freed by backward() at test_utils_viz.py:%d" % line
    nodes, edges = parse(make_dot(y, show_saved=True))
    assert not [n for n, (_, attrs) in nodes.items() if attrs == "fillcolor=orange"]
    notes = {n for n, (lab, attrs) in nodes.items() if lab == freed}
    assert len(notes) == 2          # Mul and Exp saved something; Sum did not
    assert {(t, h) for t, h, attrs in edges if "dir=none" in attrs} == {
        (str(id(mul)), n) for n in notes if n.endswith(str(id(mul)))} | {
        (str(id(exp)), n) for n in notes if n.endswith(str(id(exp)))}
    nodes, _ = parse(make_dot(y, show_attrs=True))
    assert nodes[str(id(exp))][0] == "ExpBackward0\n" + freed
    assert nodes[str(id(y.grad_fn))][0].splitlines()[-1] == "keepdim       : False"


@needs_graphviz
@pytest.mark.parametrize("lib", ["leafgrad", "torch"])
def test_make_dot_custom_function_saved_tensors(lib):
    torch = lg if lib == "leafgrad" else pytest.importorskip("torch")

    class Sq(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = torch.ones(2, requires_grad=True)
    y = Sq.apply(x * 3).sum()
    sq = y.grad_fn.next_functions[0][0]
    nodes, edges = parse(make_dot(y, show_saved=True, show_attrs=True))
    assert nodes[str(id(sq))][0] == "SqBackward\n%s\nsaved_tensors[0]: [saved tensor]" % ("-" * 32)
    saved = [h for t, h, attrs in edges if t == str(id(sq)) and attrs == "dir=none"]
    assert [nodes[h] for h in saved] == [("saved_tensors[0]\n (2)", "fillcolor=orange")]
    y.backward(); line = sys._getframe().f_lineno     # frees the saved tensors
    nodes, edges = parse(make_dot(y, show_saved=True, show_attrs=True))
    freed = "saved tensors freed by backward()" + (
        " at test_utils_viz.py:%d" % line if lib == "leafgrad" else "")
    assert nodes[str(id(sq))][0] == "SqBackward\n" + freed
    notes = [h for t, h, attrs in edges if t == str(id(sq)) and "dir=none" in attrs]
    assert [nodes[h][0] for h in notes] == [freed]


@needs_graphviz
def test_make_dot_deep_graph_needs_no_recursion():
    n = 3 * sys.getrecursionlimit()
    x = lg.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0
    nodes, edges = parse(make_dot(y))
    assert len(nodes) == n + 1 + 2          # Mul nodes, AccumulateGrad, output, leaf
    assert len(edges) == n + 2
    assert collections.Counter(lab for lab, _ in nodes.values())["MulBackward0"] == n


@needs_graphviz
def test_make_dot_tuple_of_outputs_and_views():
    x = lg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    base = x * 3
    v = base[0]             # a view of a non-leaf
    u = x.sum()
    nodes, edges = parse(make_dot((v, u)))
    assert nodes[str(id(v))][1] == "fillcolor=darkolivegreen1"
    assert nodes[str(id(u))][1] == "fillcolor=darkolivegreen1"
    assert nodes[str(id(base))] == ("\n (2, 2)", "fillcolor=darkolivegreen3")
    assert (str(id(base)), str(id(v)), "style=dotted") in edges
    assert (str(id(base.grad_fn)), str(id(base)), "") in edges
    # both outputs lead to the one AccumulateGrad of x
    assert sum(1 for lab, _ in nodes.values() if lab == "AccumulateGrad") == 1


@needs_graphviz
def test_make_dot_without_grad_and_bad_arguments():
    t = lg.ones(2, 3)
    nodes, edges = parse(make_dot(t))
    assert list(nodes.values()) == [("\n (2, 3)", "fillcolor=darkolivegreen1")] and not edges
    with pytest.raises(TypeError, match="tensor"):
        make_dot([1.0, 2.0])
    with pytest.raises(TypeError, match=r"params\['w'\]"):
        make_dot(t, params={"w": 3.0})


def test_make_dot_without_graphviz(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)     # `import graphviz` fails
    with pytest.raises(ImportError, match=re.escape("pip install leafgrad[plot]")):
        make_dot(lg.ones(2, requires_grad=True) * 2)


def test_viz_import_needs_no_extra():
    code = textwrap.dedent("""
        import sys
        sys.modules['graphviz'] = sys.modules['matplotlib'] = None
        import leafgrad
        from leafgrad.utils.viz import print_graph, explain, record
        from leafgrad.utils import grad_report, GradientMonitor
        w = leafgrad.ones(2, requires_grad=True)
        with record():
            loss = (w * 2).sum()
        print_graph(loss)
        explain(loss, w, quiet=True)
        loss.backward()
        print_graph(loss, show_values=True, show_grads=True)
        str(grad_report({"w": w}, loss))
        GradientMonitor({"w": w}).step(loss)
        print(w._repr_html_()[:5])
        assert "matplotlib.pyplot" not in sys.modules
        """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=str(ROOT), env=child_env())
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[:3] == ["SumBackward0 (output, shape ())", "  MulBackward0",
                                         "    AccumulateGrad (shape (2,))"]
    assert p.stdout.splitlines()[3].startswith("SumBackward0 (output, shape ())  = 4.0  grad 1.0")
    assert p.stdout.splitlines()[-1] == "<div>"


# --------------------------------------------------------------- print_graph
def printed(*args, **kw):
    f = io.StringIO()
    print_graph(*args, file=f, **kw)
    return f.getvalue()


DIAMOND = """\
SumBackward0 (output, shape ())
  AddBackward0
    MulBackward0
      ExpBackward0
        MulBackward0 [1]
          AccumulateGrad (x, shape (2,))
      SinBackward0
        MulBackward0 [1] (shown above)
    MulBackward0 [1] (shown above)
"""


def test_print_graph_tree():
    assert printed(*diamond(lg)) == DIAMOND
    loss, _ = diamond(lg)
    assert printed(loss) == DIAMOND.replace("x, shape", "shape")


def test_print_graph_same_as_for_torch():
    torch = pytest.importorskip("torch")
    for expr in (diamond, mixed):
        assert printed(*expr(lg)) == printed(*expr(torch))


def test_print_graph_max_depth_and_deep_chain():
    loss, params = diamond(lg)
    assert printed(loss, params, max_depth=1) == "SumBackward0 (output, shape ())\n" \
                                                 "  AddBackward0\n    ...\n"
    n = 3 * sys.getrecursionlimit()
    x = lg.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0
    lines = printed(y).splitlines()
    assert len(lines) == n + 1
    assert lines[-1] == "  " * n + "AccumulateGrad (shape ())"
    assert printed(y, max_depth=2).splitlines() == [
        "MulBackward0 (output, shape ())", "  MulBackward0", "    MulBackward0", "      ..."]


def test_print_graph_several_outputs_and_leaves():
    x = lg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    out = printed((y, y.sum(), x, lg.zeros(3)), {"x": x})
    assert out == textwrap.dedent("""\
        MulBackward0 [1] (output, shape (2,))
          AccumulateGrad (x, shape (2,))
        SumBackward0 (output, shape ())
          MulBackward0 [1] (shown above)
        leaf tensor (no grad_fn, shape (2,))
        tensor (no grad_fn, shape (3,))
        """)
    with pytest.raises(TypeError, match="print_graph"):
        print_graph("x")
