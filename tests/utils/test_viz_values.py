"""utils.viz with numbers: make_dot / print_graph(show_values, show_grads) node by node
for the tutorials' logistic unit and linear model, PyTorch's saved-attribute names,
freed graphs, module boxes, and valid PNG/SVG output."""
import io
import re
import shutil

import numpy as np
import pytest

import leafgrad as lg
import leafgrad.nn.functional as F
from leafgrad.utils import viz
from test_utils_viz import needs_graphviz, parse

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's `dot` program is not installed "
                                      "(apt-get install graphviz): only rendering is skipped")


def logistic(torch, recorded=True):
    """The tutorial's logistic unit: loss = BCE(sigmoid(x1 * w1 + b), y)."""
    x1 = torch.tensor([1.4])
    y = torch.tensor([0.0])
    w1 = torch.tensor([0.9], requires_grad=True)
    b = torch.tensor([-0.2], requires_grad=True)
    if recorded:
        with viz.record():
            loss = F.binary_cross_entropy(torch.sigmoid(x1 * w1 + b), y)
    else:
        loss = torch.nn.functional.binary_cross_entropy(torch.sigmoid(x1 * w1 + b), y)
    return loss, w1, b


def linear_model(recorded=True):
    """The tutorial's linear model: y_hat = w * x + b, loss = (y_hat - y) ** 2."""
    w = lg.tensor(1.0, requires_grad=True)
    b = lg.tensor(0.0, requires_grad=True)
    x, y = lg.tensor(2.0), lg.tensor(6.0)
    with viz.record(values=recorded, grads=recorded):
        y_hat = w * x + b
        loss = (y_hat - y) ** 2
    return loss, w, b


def by_label(nodes):
    """{first label line: [(name, label lines, attrs)]}"""
    out = {}
    for name, (label, attrs) in nodes.items():
        lines = label.split("\n")
        out.setdefault(lines[0], []).append((name, lines, attrs))
    return out


@needs_graphviz
def test_logistic_unit_dot_node_by_node():
    torch = pytest.importorskip("torch")
    loss, w1, b = logistic(lg)
    # the same unit in torch, its intermediate gradients kept
    tw1 = torch.tensor([0.9], requires_grad=True)
    tb = torch.tensor([-0.2], requires_grad=True)
    tz = torch.tensor([1.4]) * tw1 + tb
    ta = torch.sigmoid(tz)
    tl = torch.nn.functional.binary_cross_entropy(ta, torch.tensor([0.0]))
    for t in (tz, ta):
        t.retain_grad()
    tl.backward()
    loss.backward()
    dot = viz.make_dot(loss, params={"w1": w1, "b": b}, show_values=True, show_grads=True)
    nodes, edges = parse(dot)
    labels = by_label(nodes)
    f32 = lambda v: str(np.float32(v))
    a = ta.item()
    assert labels["output"][0][1] == ["output", "() float32", "value " + f32(tl.item())]
    bce = labels["BinaryCrossEntropyBackward0"][0]
    assert bce[1][:4] == ["BinaryCrossEntropyBackward0", "() float32",
                          "value " + f32(tl.item()), "grad 1.0"]
    assert bce[2] == 'style="filled,dashed"'      # freed by the backward above
    sig = labels["SigmoidBackward0"][0]
    assert sig[1][1:3] == ["(1,) float32", "value [%s]" % f32(a)]
    assert sig[1][3] == "grad [%s]" % f32(ta.grad.item())          # 1 / (1 - a) at y = 0
    add = labels["AddBackward0"][0]
    assert add[1][1:] == ["(1,) float32", "value [%s]" % f32(tz.item()),
                          "grad [%s]" % f32(tz.grad.item())]
    mul = labels["MulBackward0"][0]
    assert mul[1][1:3] == ["(1,) float32", "value [%s]" % f32(np.float32(1.4) * np.float32(0.9))]
    assert labels["w1"][0][1] == ["w1", "(1,) float32", "value [0.9]",
                                  "→ w1.grad = [%s]" % f32(tw1.grad.item())]
    assert labels["b"][0][1] == ["b", "(1,) float32", "value [-0.2]",
                                 "→ b.grad = [%s]" % f32(tb.grad.item())]
    assert [lines for _, lines, _ in labels["AccumulateGrad"]] == [["AccumulateGrad"]] * 2
    # the tutorial's reading direction: loss on top, arrows toward the leaves,
    # each labelled with the gradient sent along it
    key = {lines[0]: n for n, lines, _ in sum(labels.values(), []) if lines[0] != "AccumulateGrad"}
    acc = {n for n, lines, _ in labels["AccumulateGrad"]}
    e = {(t, h): a for t, h, a in edges}
    assert e[(key["output"], key["BinaryCrossEntropyBackward0"])] == 'label=" 1.0 "'
    assert e[(key["BinaryCrossEntropyBackward0"], key["SigmoidBackward0"])] == \
        'label=" [%s] "' % sig[1][3][6:-1]
    assert e[(key["SigmoidBackward0"], key["AddBackward0"])] == 'label=" [%s] "' % f32(tb.grad.item())
    assert e[(key["AddBackward0"], key["MulBackward0"])] == 'label=" [%s] "' % f32(tb.grad.item())
    to_acc = {t: a for (t, h), a in e.items() if h in acc}
    assert to_acc == {key["AddBackward0"]: 'label=" [%s] "' % f32(tb.grad.item()),
                      key["MulBackward0"]: 'label=" [%s] "' % f32(tw1.grad.item())}
    assert {h for (t, h) in e if t in acc} == {key["w1"], key["b"]}
    assert len(edges) == 8 and set(nodes) == set(key.values()) | acc | {"legend"}
    legend = nodes["legend"][0].split("\n")
    assert legend[0] == "legend" and any(l.startswith("dashed: saved tensors freed by backward()")
                                         for l in legend)


@needs_graphviz
def test_linear_model_dot_and_text_have_the_tutorial_numbers():
    loss, w, b = linear_model()
    loss.backward()
    nodes, edges = parse(viz.make_dot(loss, params={"w": w, "b": b}, show_values=True,
                                      show_grads=True, legend=False))
    labels = by_label(nodes)
    assert labels["PowBackward0"][0][1][1:] == ["() float32", "value 16.0", "grad 1.0"]
    assert labels["SubBackward0"][0][1][1:] == ["() float32", "value -4.0", "grad -8.0"]
    assert labels["AddBackward0"][0][1][1:] == ["() float32", "value 2.0", "grad -8.0"]
    assert labels["MulBackward0"][0][1][1:] == ["() float32", "value 2.0", "grad -8.0"]
    assert labels["w"][0][1] == ["w", "() float32", "value 1.0", "→ w.grad = -16.0"]
    assert labels["b"][0][1] == ["b", "() float32", "value 0.0", "→ b.grad = -8.0"]
    assert sorted(a for _, _, a in edges if a) == sorted(
        'label=" %s "' % v for v in ("1.0", "-8.0", "-8.0", "-8.0", "-8.0", "-16.0"))
    f = io.StringIO()
    viz.print_graph(loss, {"w": w, "b": b}, file=f, show_values=True, show_grads=True)
    assert [re.sub(r"  \(saved tensors freed.*\)$", "", l) for l in f.getvalue().splitlines()] == [
        "PowBackward0 (output, shape ())  = 16.0  grad 1.0",
        "  SubBackward0  = -4.0  grad -8.0",
        "    AddBackward0  = 2.0  grad -8.0",
        "      MulBackward0  = 2.0  grad -8.0",
        "        AccumulateGrad (w, shape ())  = 1.0  grad -16.0  → w.grad = -16.0",
        "      AccumulateGrad (b, shape ())  = 0.0  grad -8.0  → b.grad = -8.0"]


def test_record_grads_after_forward_and_nothing_recorded():
    loss, w, b = linear_model(recorded=False)
    f = io.StringIO()
    viz.print_graph(loss, {"w": w, "b": b}, file=f, show_values=True, show_grads=True)
    lines = f.getvalue().splitlines()
    assert lines[1] == "  SubBackward0  = ?"          # before backward, nothing recorded
    assert lines[4].endswith("→ w.grad is None")
    assert viz.record_grads(loss) == 4               # Pow, Sub, Add, Mul
    assert viz.record_grads(loss) == 0               # once per node
    loss.backward()
    f = io.StringIO()
    viz.print_graph(loss, {"w": w, "b": b}, file=f, show_grads=True)
    assert f.getvalue().splitlines()[3] == "      MulBackward0  grad -8.0"


def test_value_text():
    vt = viz._graph.value_text
    assert vt(np.float32(0.7426905035972595)) == "0.7426905"
    assert vt(np.array([0.9], np.float32)) == "[0.9]"
    assert vt(np.array([[2]], np.int64)) == "[[2]]"
    assert vt(np.array([0.5, -0.3, 0.8], np.float32)) == "[0.5, -0.3, 0.8]"
    assert vt(np.arange(6.).reshape(2, 3) / 3) == "[[0, 0.3333, 0.6667], [1, 1.333, 1.667]]"
    big = np.arange(100, dtype=np.float64)
    assert vt(big) == "mean 49.5 std 28.87 min 0 max 99"
    big[:3] = [np.nan, np.inf, -np.inf]
    assert vt(big) == "mean 51 std 28 min 3 max 99 1 nan 2 inf"
    assert vt(np.ones(20, bool)) == "20 of 20 True"


# PyTorch's grad_fn._saved_* names for what each node keeps
_OPS = {
    "mul": lambda t, x, w: x * w,
    "mul_number": lambda t, x, w: x * 2,
    "div": lambda t, x, w: x / w,
    "pow": lambda t, x, w: x ** 2,
    "pow_tensor": lambda t, x, w: x.abs() ** w,
    "mm": lambda t, x, w: x @ w.reshape(3, 1),
    "bce": lambda t, x, w: t.nn.functional.binary_cross_entropy(x.sigmoid(), t.ones(2, 3)),
    "mse": lambda t, x, w: t.nn.functional.mse_loss(x, t.zeros(2, 3)),
    "sum_dim": lambda t, x, w: x.sum(1),
    "mean_dim": lambda t, x, w: x.mean(0, keepdim=True),
    "softmax": lambda t, x, w: x.softmax(1),
    "log_softmax": lambda t, x, w: x.log_softmax(0),
    "exp": lambda t, x, w: x.exp(),
    "sigmoid": lambda t, x, w: x.sigmoid(),
    "log": lambda t, x, w: x.abs().log(),
    "leaky_relu": lambda t, x, w: t.nn.functional.leaky_relu(x, 0.1),
    "clamp": lambda t, x, w: x.clamp(-1, 1),
    "unsqueeze": lambda t, x, w: x.unsqueeze(1),
    "permute": lambda t, x, w: x.permute(1, 0),
    "transpose": lambda t, x, w: x.transpose(0, 1),
    "view": lambda t, x, w: x.view(6),
}


@pytest.mark.parametrize("op", sorted(_OPS))
def test_saved_names_are_pytorchs(op):
    torch = pytest.importorskip("torch")
    got = {}
    for lib in (lg, torch):
        x = lib.tensor([[1.0, -2.0, 3.0], [0.5, 0.25, -1.0]], requires_grad=True)
        w = lib.tensor([0.5, 2.0, -1.5], requires_grad=True)
        fn = _OPS[op](lib, x, w).grad_fn
        got[lib.__name__] = dict(viz._graph.attributes(fn))
    mine, theirs = got["leafgrad"], got["torch"]
    assert set(mine) <= set(theirs), (mine.keys(), theirs.keys())
    assert mine, "nothing named"
    for k, v in mine.items():
        if hasattr(v, "shape"):
            np.testing.assert_allclose(np.asarray(v.detach()), theirs[k].detach().numpy(),
                                       rtol=1e-6)
        elif k == "reduction":
            assert {"none": 0, "mean": 1, "sum": 2}[v] == theirs[k]
        else:
            assert tuple(np.atleast_1d(v)) == tuple(np.atleast_1d(theirs[k])), k


@needs_graphviz
def test_module_given_names_leaves_and_collapses():
    lg.manual_seed(0)
    model = lg.nn.Sequential(lg.nn.Linear(4, 3), lg.nn.ReLU(), lg.nn.Linear(3, 1))
    with viz.record(model):
        out = model(lg.randn(5, 4)).sum()
    nodes, _ = parse(viz.make_dot(out, params=model))
    assert sorted(lab for lab, a in nodes.values() if a == "fillcolor=lightblue") == [
        "0.bias\n (3)", "0.weight\n (3, 4)", "2.bias\n (1)", "2.weight\n (1, 3)"]
    nodes, edges = parse(viz.make_dot(out, params=model, collapse=True, legend=False))
    boxes = {n: lab for n, (lab, a) in nodes.items() if a == "fillcolor=lightyellow"}
    assert sorted(boxes) == ["module_0", "module_1", "module_2"]
    assert boxes["module_0"].split("\n")[0] == "0: Linear"
    assert boxes["module_1"].split("\n")[:2] == ["1: ReLU", "1 nodes: ReluBackward0"]
    assert boxes["module_0"].split("\n")[-1] == "parameters: bias, weight"
    assert ("module_0", "module_1", "") in edges and ("module_1", "module_2", "") in edges
    # expand one module: its nodes are drawn again
    nodes, _ = parse(viz.make_dot(out, params=model, collapse=True, expand=("1",)))
    assert "module_1" not in nodes and any(l == "ReluBackward0" for l, _ in nodes.values())


@needs_graphviz
def test_big_graph_collapses_by_parameters_without_record():
    layers = [lg.nn.Linear(2, 2) for _ in range(120)]
    model = lg.nn.Sequential(*[m for l in layers for m in (l, lg.nn.Tanh())])
    out = model(lg.ones(1, 2)).sum()
    nodes, _ = parse(viz.make_dot(out, params=model))
    assert len(nodes) < 300
    assert sum(1 for _, a in nodes.values() if a == "fillcolor=lightyellow") == 120


@needs_graphviz
@needs_dot
def test_render_png_svg_and_notebook(tmp_path):
    loss, w1, b = logistic(lg)
    loss.backward()
    dot = viz.make_dot(loss, params={"w1": w1, "b": b}, show_values=True, show_grads=True)
    png = dot.save(str(tmp_path / "g.png"))
    svg = dot.save(str(tmp_path / "g.svg"))
    dot.save(str(tmp_path / "g.dot"))
    data = open(png, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
    text = open(svg).read()
    assert "<svg" in text and "w1.grad" in text
    assert open(str(tmp_path / "g.dot")).read() == dot.source
    assert dot._repr_svg_().startswith("<?xml") and "<svg" in dot._repr_html_()
    with pytest.raises(ValueError, match="format"):
        dot.save(str(tmp_path / "g.jpeg"))


def test_tensor_repr_html():
    w = lg.tensor([0.5, -0.3, 0.8], requires_grad=True)
    y = (w * 2).sum()
    y.backward()
    page = w._repr_html_()
    assert "tensor (3,) float32, leaf, requires_grad=True" in page
    assert "<pre" in page and "tensor([ 0.5000, -0.3000,  0.8000], requires_grad=True)" in page
    assert "<b>.grad</b> (3,) float32: [2, 2, 2]" in page
    assert "grad_fn=SumBackward0" in y._repr_html_() and ".grad" not in y._repr_html_()
    big = lg.arange(100.0)
    assert "constant (requires_grad=False)" in big._repr_html_()
    assert "mean 49.5 std 28.87 min 0 max 99" in big._repr_html_()


@needs_graphviz
@needs_dot
def test_render_as_the_readme_calls_it(tmp_path):
    """graphviz's render() calls save(filename, directory=..., skip_existing=None):
    leafgrad's save keeps that signature, so render writes the DOT file and the picture."""
    loss, w1, b = logistic(lg)
    loss.backward()
    dot = viz.make_dot(loss, params={"w1": w1, "b": b})
    out = dot.render(str(tmp_path / "graph"), format="png")
    assert out == str(tmp_path / "graph.png")
    assert open(out, "rb").read()[:8] == b"\x89PNG\r\n\x1a\n"
    assert open(str(tmp_path / "graph")).read() == dot.source


@needs_graphviz
def test_save_keeps_graphviz_signature(tmp_path):
    loss, w1, b = logistic(lg)
    dot = viz.make_dot(loss, params={"w1": w1, "b": b})
    path = dot.save("g.gv", directory=str(tmp_path))
    assert open(path).read() == dot.source and path.endswith("g.gv")
    assert open(dot.save(str(tmp_path / "g"))).read() == dot.source
    with pytest.raises(ValueError, match="format must be 'dot', 'svg' or 'png'"):
        dot.save(str(tmp_path / "g.x"), format="jpeg")


@needs_graphviz
def test_png_without_dot_is_drawn_by_matplotlib(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    loss, w1, b = logistic(lg)
    loss.backward()
    dot = viz.make_dot(loss, params={"w1": w1, "b": b}, show_values=True, show_grads=True)
    monkeypatch.setenv("PATH", str(tmp_path))          # no `dot` on the PATH
    with pytest.warns(UserWarning, match="`dot` program is not installed: the PNG is drawn"):
        png = dot.save(str(tmp_path / "g.png"))
    data = open(png, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
    with pytest.raises(RuntimeError, match="apt-get install graphviz"):
        dot.save(str(tmp_path / "g.svg"))
