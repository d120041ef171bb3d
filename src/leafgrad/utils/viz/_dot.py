"""``make_dot``: the autograd graph as a Graphviz picture, torchviz's drawing
by default, and with ``show_values``/``show_grads`` the numbers a learner
traces by hand: each node's output (shape, dtype, value), the gradient sent
along each edge, and each leaf's ``.grad``."""
import os

import numpy as np

from . import _graph as G
from ._record import grads_of, module_of, to_numpy, value_of

_NEED_GRAPHVIZ = ("make_dot needs the graphviz Python package: pip install leafgrad[plot] "
                  "(rendering the graph to an image also needs Graphviz's `dot` program)")
_NO_DOT = ("Graphviz's `dot` program is not installed (the graphviz Python package only writes "
           "DOT text). Fix: install it from the system packages (apt-get install graphviz, "
           "brew install graphviz, conda install graphviz), or save the DOT source with "
           "save('graph.dot').")

_DIRECTIONS = ("forward", "backward")
_GRAPH_CLASS = []


def _render(self, filename=None, directory=None, view=False, cleanup=False, format=None,
            *args, **kwargs):
    """``graphviz.Digraph.render``; without Graphviz's ``dot``, a PNG is drawn by
    matplotlib next to the saved DOT source (other formats raise RuntimeError).
    Returns the path of the picture."""
    from graphviz import Digraph, ExecutableNotFound
    try:
        return Digraph.render(self, filename, directory, view, cleanup, format, *args, **kwargs)
    except ExecutableNotFound as exc:
        if (format or self.format) != "png" or args or kwargs:
            raise RuntimeError(_NO_DOT) from exc
    source = os.path.join(directory or self.directory or "", filename or self.filename)
    out = source + ".png"
    with open(out, "wb") as f:
        f.write(self._pipe("png"))
    if cleanup:
        os.remove(source)
    return out


def _digraph_class():
    """``Graph``: a ``graphviz.Digraph`` with notebook display and ``save()``."""
    try:
        from graphviz import Digraph
    except ImportError as exc:
        raise ImportError(_NEED_GRAPHVIZ) from exc
    if _GRAPH_CLASS and _GRAPH_CLASS[0].__bases__[0] is Digraph:
        return _GRAPH_CLASS[0]

    class Graph(Digraph):
        """The drawing ``make_dot`` returns: a ``graphviz.Digraph`` (``.source`` is
        the DOT text) that also shows itself in a notebook and saves as DOT, SVG or PNG."""

        def __init__(self, *args, **kwargs):
            self._boxes, self._arrows = {}, []     # what draw_png needs without `dot`
            super().__init__(*args, **kwargs)

        def node(self, name, label=None, _attributes=None, **attrs):
            self._boxes[name] = (label, attrs.get("fillcolor"))
            super().node(name, label, _attributes, **attrs)

        def edge(self, tail_name, head_name, label=None, _attributes=None, **attrs):
            self._arrows.append((tail_name, head_name, label or attrs.get("label")))
            super().edge(tail_name, head_name, label, _attributes, **attrs)

        def to_svg(self):
            """The picture as SVG text (needs Graphviz's ``dot``)."""
            return self._pipe("svg").decode("utf-8")

        def to_png(self):
            """The picture as PNG bytes (Graphviz's ``dot``; without it, matplotlib's
            plainer layout, with a warning)."""
            return self._pipe("png")

        def _pipe(self, fmt):
            from graphviz import ExecutableNotFound
            try:
                return self.pipe(format=fmt)
            except ExecutableNotFound as exc:
                if fmt != "png":
                    raise RuntimeError(_NO_DOT) from exc
            import warnings
            from ._matplotlib_png import draw_png
            warnings.warn("Graphviz's `dot` program is not installed: the PNG is drawn with "
                          "matplotlib (a plainer layout). Install `dot` for Graphviz's drawing "
                          "(apt-get install graphviz, brew install graphviz).", stacklevel=3)
            return draw_png(self._boxes, self._arrows)

        def save(self, filename=None, directory=None, *, skip_existing=False, format=None):
            """Write the picture to ``filename``: ``format`` 'dot', 'svg' or 'png'
            (default: from the file name's extension; DOT text for a name without one).
            Returns the path written.

            Called as ``graphviz.Digraph.save`` (with ``directory``, or by
            ``render()``, which passes ``skip_existing=None``) it is that method: it
            writes the DOT source, to ``directory/filename``.
            """
            if directory is not None or skip_existing is not False:
                return super().save(filename, directory=directory, skip_existing=skip_existing)
            name = os.path.basename(str(filename)) if filename is not None else ""
            fmt = (format or (name.rsplit(".", 1)[-1] if "." in name else "dot")).lower()
            if fmt not in ("dot", "gv", "svg", "png"):
                raise ValueError("save(): format must be 'dot', 'svg' or 'png', got %r" % fmt)
            if fmt in ("dot", "gv"):
                return super().save(filename)
            data = self._pipe(fmt)
            with open(filename, "wb") as f:
                f.write(data)
            return filename

        render = _render

        def _repr_svg_(self):
            try:
                return self.to_svg()
            except RuntimeError:
                return None         # no `dot`: the notebook falls back to _repr_html_

        def _repr_html_(self):
            svg = self._repr_svg_()
            if svg is not None:
                return svg
            import html
            return "<pre>%s</pre><p>%s</p>" % (html.escape(self.source), html.escape(_NO_DOT))

        def _repr_mimebundle_(self, include=None, exclude=None, **_):
            svg = self._repr_svg_()
            if svg is not None:
                return {"image/svg+xml": svg}
            return {"text/html": self._repr_html_(), "text/plain": self.source}

    _GRAPH_CLASS[:] = [Graph]
    return Graph


# ------------------------------------------------------------------ labels
def _attr_rows(fn, max_attr_chars, with_values):
    attrs = {}
    for key, val in G.attributes(fn):
        if G.is_tensor(val):
            attrs[key] = ("%s %s" % (G.meta_text(val), G.value_text(to_numpy(val)))
                          if with_values else "[saved tensor]")
        elif isinstance(val, tuple) and any(G.is_tensor(v) for v in val):
            attrs[key] = "[saved tensors]"
        else:
            attrs[key] = str(val)
    if not attrs:
        return []
    max_attr_chars = max(max_attr_chars, 3)
    w1 = max(len(k) for k in attrs)
    w2 = min(max(len(v) for v in attrs.values()), max_attr_chars)
    return ["%-*s: %*s" % (w1, k, w2, v if len(v) <= w2 else v[:w2 - 3] + "...")
            for k, v in attrs.items()]


def _fn_label(fn, show_attrs, max_attr_chars, value=None, grad=None, numbers=False):
    """The node's class name; with numbers, its output's shape, dtype, value and
    gradient; with ``show_attrs``, a table of what it saved."""
    name = type(fn).__name__
    lines = [name]
    if numbers and not hasattr(fn, "variable"):     # AccumulateGrad: its leaf's box has them
        if value is not None:
            lines.append(G.meta_text(value))
            lines.append("value %s" % G.value_text(value))
        else:
            lines.append("value not recorded")
        if grad is not None:
            lines.append("grad %s" % G.value_text(grad))
    rows = _attr_rows(fn, max_attr_chars, numbers) if show_attrs else []
    note = G.freed_note(fn) if show_attrs else None
    if rows:
        width = max(len(r) for r in rows + lines)
        lines += ["-" * max(width, len(name))] + rows
    if note:
        lines.append(note)
    if not show_attrs and not numbers:
        return name
    if len(lines) == 1:
        return name
    if not numbers and rows and lines[1].startswith("-"):   # torchviz's layout
        lines[1] = "-" * max(max(len(r) for r in rows), len(name))
    return "\n".join(lines)


def _leaf_label(t, name, numbers, show_grads):
    if not numbers:
        return "%s\n %s" % (name, G.shape_text(t))
    lines = [name or "leaf", G.meta_text(t), "value %s" % G.value_text(to_numpy(t))]
    if show_grads:
        g = getattr(t, "grad", None)
        target = "%s.grad" % (name or "")
        lines.append("→ %s = %s" % (target, G.value_text(to_numpy(g))) if g is not None
                     else "→ %s is None" % target)
    return "\n".join(lines)


def _out_label(t, name, numbers):
    if not numbers:
        return "%s\n %s" % (name, G.shape_text(t))
    return "\n".join([name or "output", G.meta_text(t), "value %s" % G.value_text(to_numpy(t))])


def _recorded(fn, which, i):
    """Recorded gradient ``i`` of ``fn``'s outputs (which=0) or input edges (which=1)."""
    rec = grads_of(fn)
    if rec is None or i >= len(rec[which]):
        return None
    return rec[which][i]


def _edge_grad(fn, i):
    return _recorded(fn, 1, i)


def _out_grad(fn, nr):
    return _recorded(fn, 0, nr)


# ------------------------------------------------------------------ groups
def _groups(nodes, names, modules, expand):
    """node -> module name (one box per module call) for nodes that belong to one."""
    group = {}
    for fn in nodes:
        m = module_of(fn)
        if m is None:       # not recorded: the module whose parameter it takes directly
            for child, _ in fn.next_functions:
                var = getattr(child, "variable", None) if child is not None else None
                pname = names.get(id(var)) if var is not None else None
                if pname and "." in pname:
                    m = pname.rsplit(".", 1)[0]
                    break
        var = getattr(fn, "variable", None)
        if m is None and var is not None:
            pname = names.get(id(var))
            if pname and "." in pname:
                m = pname.rsplit(".", 1)[0]
        if m is not None and not any(m == e or m.startswith(e + ".") for e in expand):
            group[fn] = m
    return group


def _legend(dot, direction, numbers, freed, saved, collapsed):
    """One note box saying what the colours, arrows and numbers mean."""
    lines = ["legend",
             "green: the output (the loss)%s" % (", its value" if numbers else ""),
             "grey: a backward node (grad_fn)%s" % (
                 ": its output's shape, dtype, value; grad = d loss / d output" if numbers else ""),
             "blue: a leaf tensor%s" % (": → name.grad is where its gradient lands"
                                        if numbers else "")]
    if saved:
        lines.append("orange: a tensor saved for backward")
    if collapsed:
        lines.append("yellow: one nn.Module call, collapsed (expand=(name,) draws it)")
    if freed:
        lines.append("dashed: %s" % freed)
    lines.append("arrows: %s" % ("the gradient's way, from the loss back to the leaves"
                                 if direction == "backward"
                                 else "the forward data flow, from the leaves to the output"))
    if numbers:
        lines.append("edge labels: the gradient sent along the edge")
    dot.node("legend", "\n".join(lines), shape="note", fillcolor="white")


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50, *,
             show_values=False, show_grads=False, direction=None, legend=None, collapse=None,
             expand=(), max_nodes=300):
    """The autograd graph behind ``var`` as a Graphviz drawing (as ``torchviz.make_dot``, and more).

    One box per backward node, labelled with its class name (``MulBackward0``,
    ``AccumulateGrad``, ...). Each leaf's ``AccumulateGrad`` gets a light
    blue box for the leaf tensor (its name in ``params``, and its shape),
    each output a green box (a view's base: dark green, dotted arrow). Node
    names in the DOT source are ``str(id(obj))`` of the node or tensor.

    With ``show_values``/``show_grads`` every box shows the numbers: its
    output's shape, dtype and value (0-d and one-element tensors in full, up
    to 8 elements abbreviated, larger ones as mean/std/min/max), the gradient
    of the loss with respect to it, the gradient sent along each edge (edge
    labels; its L2 norm for more than 8 elements), and at each leaf ``→ name.grad = ...``. Leaves' values and
    ``.grad`` and the outputs' values are always known; intermediate values and
    edge gradients are known when the forward pass ran inside
    ``leafgrad.utils.viz.record()`` (or, for gradients, ``record_grads(loss)``
    was called before ``backward()``), else shown as "not recorded".

    Args:
        var: a tensor, or a tuple of tensors drawn into one graph.
        params: names for the leaf tensors: ``{name: tensor}``, pairs such as
            ``model.named_parameters()``, or an ``nn.Module`` (its named parameters).
        show_attrs: list under each node what it saved for backward, under
            PyTorch's names (``self``, ``other``, ``exponent``, ``result``,
            ``dim``, ``reduction``, ...); a freed graph says so
            ("saved tensors freed by backward() at x.py:12").
        show_saved: an orange box per saved tensor, joined to its node by an
            undirected edge.
        max_attr_chars: with ``show_attrs``, longer values are cut to this width.
        show_values: each node's output shape, dtype and value.
        show_grads: gradients on the edges, at each node and at each leaf.
        direction: ``"forward"`` (torchviz: leaves on top, arrows toward the
            output) or ``"backward"`` (the tutorials' reading direction: the
            loss on top, arrows toward the leaves where the gradients land).
            Default: ``"backward"`` with numbers shown, else ``"forward"``.
        legend: add a legend box (default: when numbers are shown).
        collapse: draw one box per ``nn.Module`` call (its nodes and
            parameters inside). Default: when the graph has more than
            ``max_nodes`` nodes. Module calls are known from
            ``record(model)``, else from the parameters a node takes.
        expand: module names (e.g. ``("hidden1",)``) drawn in full when collapsing.
        max_nodes: the size above which ``collapse=None`` collapses.

    Returns:
        ``Graph``, a ``graphviz.Digraph``: ``.source`` is the DOT text,
        ``save("g.svg")``/``save("g.png")``/``save("g.dot")`` write it,
        ``to_svg()``/``to_png()`` return it, and a notebook displays it
        (``_repr_svg_``/``_repr_html_``). Images need Graphviz's ``dot``.

    Raises:
        ImportError: the ``graphviz`` package is missing (``pip install leafgrad[plot]``).
        TypeError: ``var`` or a value of ``params`` is not a tensor.
        ValueError: ``direction`` is not "forward" or "backward".
    """
    Graph = _digraph_class()
    outputs = G.outputs_of(var, "make_dot")
    names = G.param_names(params)
    numbers = bool(show_values or show_grads)
    if direction is None:
        direction = "backward" if numbers else "forward"
    if direction not in _DIRECTIONS:
        raise ValueError("make_dot(): direction must be 'forward' or 'backward', got %r"
                         % (direction,))
    if legend is None:
        legend = numbers
    d = _Drawing(names, numbers, show_grads, direction == "backward")
    roots, root_value = d.add_outputs(outputs)
    nodes = G.walk(roots)
    if collapse is None:
        collapse = len(nodes) > max_nodes
    group = _groups(nodes, names, None, tuple(expand)) if collapse else {}
    modules = {}
    if collapse and hasattr(params, "named_modules"):
        modules = {n: type(m).__name__ for n, m in params.named_modules()}
    members = d.add_nodes(nodes, group, root_value, show_attrs, max_attr_chars)
    d.add_modules(members, modules)
    if show_saved:
        d.add_saved(nodes, group)
    dot = d.render(Graph)
    if legend:
        _legend(dot, direction, numbers, d.freed, show_saved, bool(members))
    size = max(12, len(dot.body) * 0.15)   # grow the drawing with the graph
    dot.graph_attr.update(size="%s,%s" % (size, size))
    return dot


class _Drawing:
    """What ``make_dot`` collects before it draws: the tensor boxes, the node
    boxes and the edges, in the chosen direction."""

    def __init__(self, names, numbers, show_grads, back):
        self.names, self.numbers, self.show_grads, self.back = names, numbers, show_grads, back
        self.tensors = {}    # node name -> label and colour; the first declaration wins
        self.keep = []       # the objects named by id(): kept alive so no id is reused
        self.edges = []
        self.fn_nodes = []
        self.freed = None

    def edge(self, src, dst, attrs=None, label=None):
        """An edge drawn in the chosen direction (``src`` feeds ``dst`` forward)."""
        attrs = dict(attrs or {})
        if label is not None:
            attrs["label"] = label
        self.edges.append(((dst, src) if self.back else (src, dst), attrs))

    def tensor_node(self, t, color, label):
        key = str(id(t))
        if key not in self.tensors:
            self.keep.append(t)
            self.tensors[key] = dict(label=label, fillcolor=color)
        return key

    def grad_label(self, g):
        if not self.show_grads or g is None:
            return None
        g = np.asarray(g)
        if g.size > 8:          # edges stay short: the norm (boxes have the statistics)
            return " norm %.4g " % np.linalg.norm(g.astype(np.float64).ravel())
        return " %s " % G.value_text(g)

    def add_outputs(self, outputs):
        """A green box per output (and per view's base, dotted). Returns the
        output's nodes and node -> its output's value."""
        names, numbers = self.names, self.numbers
        roots = []
        root_value = {}
        for v in outputs:
            color = "darkolivegreen1"
            while v is not None:
                key = self.tensor_node(v, color, _out_label(v, names.get(id(v), ""), numbers))
                if v.grad_fn is not None:
                    roots.append(v.grad_fn)
                    root_value.setdefault(v.grad_fn, to_numpy(v))
                    g = _out_grad(v.grad_fn, getattr(v, "output_nr", 0))
                    self.edge(str(id(v.grad_fn)), key, label=self.grad_label(g))
                base = getattr(v, "_base", None)
                if base is not None:
                    self.edge(self.tensor_node(base, "darkolivegreen3",
                                               _out_label(base, names.get(id(base), ""), numbers)),
                              key, {"style": "dotted"})
                v, color = base, "darkolivegreen3"
        return roots, root_value

    def add_nodes(self, nodes, group, root_value, show_attrs, max_attr_chars):
        """A box per backward node not inside a module's box, a blue box per
        leaf, and the edges between them. Returns module -> its nodes."""
        names, numbers, show_grads = self.names, self.numbers, self.show_grads
        box = {}         # node -> the key it is drawn under (its module's box when collapsed)
        members = {}
        for fn in nodes:
            m = group.get(fn)
            if m is not None:
                box[fn] = "module_" + m.replace(".", "_")
                members.setdefault(m, []).append(fn)
            else:
                box[fn] = str(id(fn))
        for fn in nodes:
            key = box[fn]
            if fn not in group:
                value = value_of(fn) if numbers else None
                if value is None and fn in root_value:
                    value = root_value[fn]
                grad = _out_grad(fn, 0) if show_grads else None
                note = G.freed_note(fn) if numbers else None
                self.freed = self.freed or note
                self.fn_nodes.append((key, _fn_label(fn, show_attrs, max_attr_chars, value, grad,
                                                     numbers),
                                      {"style": "filled,dashed"} if note else {}))
            var = getattr(fn, "variable", None)
            if var is not None and fn not in group:
                self.edge(self.tensor_node(var, "lightblue",
                                           _leaf_label(var, names.get(id(var), ""), numbers,
                                                       show_grads)), key)
            for i, (child, _) in enumerate(fn.next_functions):
                if child is None:
                    continue
                ck = box.get(child, str(id(child)))
                if ck == key and fn in group:
                    continue            # inside one module's box
                self.edge(ck, key,
                          label=self.grad_label(_edge_grad(fn, i) if show_grads else None))
        return members

    def add_modules(self, members, modules):
        """A yellow box per collapsed module call: its name, class, node kinds
        and parameters."""
        for m, fns in members.items():
            kinds = sorted({type(f).__name__ for f in fns if type(f).__name__ != "AccumulateGrad"})
            leaves = [self.names.get(id(f.variable), "") for f in fns if hasattr(f, "variable")]
            lines = ["%s%s" % (m, ": " + modules[m] if m in modules else ""),
                     "%d nodes: %s" % (len(fns), ", ".join(kinds[:4]) + (", ..." if len(kinds) > 4
                                                                         else ""))]
            if leaves:
                lines.append("parameters: "
                             + ", ".join(sorted(n.rsplit(".", 1)[-1] for n in leaves)))
            self.fn_nodes.append(("module_" + m.replace(".", "_"), "\n".join(lines),
                                  {"fillcolor": "lightyellow"}))

    def add_saved(self, nodes, group):
        """An orange box per saved tensor (or a dashed note where backward freed
        them), joined to its node by an undirected edge."""
        for fn in nodes:
            if fn in group:
                continue
            attrs = G.attributes(fn)
            for attr, val in attrs:
                vals = val if isinstance(val, tuple) else (val,)
                for i, t in enumerate(vals):
                    if G.is_tensor(t):
                        name = attr if vals is not val else "%s[%d]" % (attr, i)
                        label = ("%s\n%s\n%s" % (name, G.meta_text(t), G.value_text(to_numpy(t)))
                                 if self.numbers else "%s\n %s" % (name, G.shape_text(t)))
                        self.edges.append(((str(id(fn)), self.tensor_node(t, "orange", label)),
                                           {"dir": "none"}))
            note = G.freed_note(fn)
            if note and not attrs:
                key = "freed_%d" % id(fn)
                self.tensors[key] = dict(label=note, fillcolor="white", style="dashed")
                self.edges.append(((str(id(fn)), key), {"dir": "none", "style": "dashed"}))

    def render(self, Graph):
        """The ``Graph``: tensor boxes, node boxes, then the edges (one per
        pair of module boxes)."""
        node_attr = dict(style="filled", shape="box", align="left", fontsize="10",
                         ranksep="0.1", height="0.2", fontname="monospace")
        dot = Graph(node_attr=node_attr, graph_attr=dict(size="12,12"))
        if self.numbers:
            dot.edge_attr.update(fontsize="9", fontname="monospace")
        for key, attrs in self.tensors.items():
            dot.node(key, **attrs)
        seen_edges = set()
        for key, label, attrs in self.fn_nodes:
            dot.node(key, label, **attrs)
        for (tail, head), attrs in self.edges:
            if tail.startswith("module_") or head.startswith("module_"):
                if tail == head or (tail, head) in seen_edges:
                    continue
                seen_edges.add((tail, head))
            dot.edge(tail, head, **attrs)
        return dot
