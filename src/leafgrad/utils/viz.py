"""Pictures and printouts of the autograd graph behind a tensor.

* :func:`make_dot` builds a ``graphviz.Digraph``, in the style (and with the
  signature) of ``torchviz.make_dot``; it needs the ``graphviz`` Python
  package (``pip install leafgrad[plot]``), and turning the result into an
  image (``dot.render(...)``) also needs Graphviz's ``dot`` program.
* :func:`print_graph` prints the same graph as an indented text tree and
  needs nothing beyond NumPy.

Both walk ``grad_fn.next_functions`` with an explicit stack, so graphs far
deeper than Python's recursion limit work, and they read only what PyTorch
exposes too (``grad_fn``, ``next_functions``, ``variable``, the saved
tensors), so they accept real ``torch`` tensors as well.

Example::

    >>> import leafgrad as torch
    >>> from leafgrad.utils.viz import print_graph
    >>> w = torch.ones(3, requires_grad=True)
    >>> loss = (w * 2).exp().sum()
    >>> print_graph(loss, params={"w": w})
    SumBackward0 (output, shape ())
      ExpBackward0
        MulBackward0
          AccumulateGrad (w, shape (3,))
"""
import sys

from ..autograd.graph import Node

__all__ = ["make_dot", "print_graph"]

_SAVED_PREFIX = "_saved_"
_NEED_GRAPHVIZ = ("make_dot needs the graphviz Python package: pip install leafgrad[plot] "
                  "(rendering the graph to an image also needs Graphviz's `dot` program)")


# ---------------------------------------------------------------- the walk
def _is_tensor(v):
    return hasattr(v, "grad_fn") and hasattr(v, "shape")


def _outputs(var, caller):
    outs = list(var) if isinstance(var, (tuple, list)) else [var]
    for v in outs:
        if not _is_tensor(v):
            raise TypeError("%s() expects a tensor or a tuple of tensors, got %s"
                            % (caller, type(v).__name__))
    return outs


def _param_names(params):
    """``{id(tensor): name}`` from a dict (or pairs) such as ``model.named_parameters()``."""
    if params is None:
        return {}
    params = dict(params.items() if hasattr(params, "items") else params)
    for name, p in params.items():
        if not _is_tensor(p):
            raise TypeError("params[%r] is a %s, not a tensor" % (name, type(p).__name__))
    return {id(p): name for name, p in params.items()}


def _walk(roots):
    """Every node reachable from ``roots`` through ``next_functions``, each once,
    in depth-first preorder (an explicit stack: no recursion)."""
    seen = set()
    order = []
    stack = [r for r in reversed(roots) if r is not None]
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        order.append(fn)
        for child, _ in reversed(fn.next_functions):
            if child is not None and child not in seen:
                stack.append(child)
    return order


def _shape(t):
    """torchviz's shape text: ``(3, 4)``, ``(3)``, ``()``."""
    return "(" + ", ".join("%d" % n for n in t.shape) + ")"


def _attributes(fn):
    """``(name, value)`` pairs of what ``fn`` keeps for its backward: the saved
    tensors (or numbers) and, for leafgrad nodes, the op constants ``args``.
    Nothing saved is listed once a backward pass has freed it."""
    items = []
    if not isinstance(fn, Node):        # a PyTorch node: its _saved_* attributes
        for attr in dir(fn):
            if attr.startswith(_SAVED_PREFIX):
                try:
                    items.append((attr[len(_SAVED_PREFIX):], getattr(fn, attr)))
                except RuntimeError:
                    pass
    try:        # leafgrad nodes, and the ctx of a custom Function
        saved = getattr(fn, "saved_tensors", ())
    except RuntimeError:                # freed by backward, or modified in place
        saved = ()
    items += [("saved_tensors[%d]" % i, v) for i, v in enumerate(saved)]
    if isinstance(fn, Node):
        if getattr(fn, "_out", None) is not None:
            try:
                items.append(("result", fn.result))
            except RuntimeError:
                pass
        if getattr(fn, "args", None) is not None:
            items.append(("args", fn.args))
    return items


# ------------------------------------------------------------------ make_dot
def _fn_label(fn, show_attrs, max_attr_chars):
    """The node's class name; with ``show_attrs``, a table of its attributes under it."""
    name = type(fn).__name__
    if not show_attrs:
        return name
    attrs = {}
    for key, val in _attributes(fn):
        if _is_tensor(val):
            attrs[key] = "[saved tensor]"
        elif isinstance(val, tuple) and any(_is_tensor(v) for v in val):
            attrs[key] = "[saved tensors]"
        else:
            attrs[key] = str(val)
    if not attrs:
        return name
    max_attr_chars = max(max_attr_chars, 3)
    w1 = max(len(k) for k in attrs)
    w2 = min(max(len(v) for v in attrs.values()), max_attr_chars)
    rows = ["%-*s: %*s" % (w1, k, w2, v if len(v) <= w2 else v[:w2 - 3] + "...")
            for k, v in attrs.items()]
    return "\n".join([name, "-" * max(w1 + w2 + 2, len(name))] + rows)


def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50):
    """The autograd graph behind ``var`` as a ``graphviz.Digraph`` (as ``torchviz.make_dot``).

    One box per backward node, labelled with its class name (``MulBackward0``,
    ``AccumulateGrad``, ...), with an arrow from each entry of its
    ``next_functions`` to it. Each leaf's ``AccumulateGrad`` gets a light
    blue box for the leaf tensor (its name in ``params``, and its shape),
    each output a green box (a view's base: dark green, dotted arrow). Node
    names in the DOT source are ``str(id(obj))`` of the node or tensor.

    Args:
        var: a tensor, or a tuple of tensors drawn into one graph.
        params: optional ``{name: tensor}`` (e.g. ``dict(model.named_parameters())``)
            used to name leaf tensors.
        show_attrs: list under each node's name what it saved for backward
            (for leafgrad nodes, also the op constants ``args``).
        show_saved: add an orange box for each saved tensor, joined to its
            node by an undirected edge (nothing once backward freed the graph).
        max_attr_chars: with ``show_attrs``, longer values are cut to this width.

    Returns:
        ``graphviz.Digraph``: ``.source`` is the DOT text; ``.render(path,
        format="png")`` draws it (that needs Graphviz's ``dot`` program).

    Raises:
        ImportError: the ``graphviz`` package is missing (``pip install leafgrad[plot]``).
        TypeError: ``var`` or a value of ``params`` is not a tensor.
    """
    try:
        from graphviz import Digraph
    except ImportError as exc:
        raise ImportError(_NEED_GRAPHVIZ) from exc
    outputs = _outputs(var, "make_dot")
    names = _param_names(params)

    tensors = {}    # node name -> label and colour; the first declaration wins
    keep = []       # the objects named by id(): kept alive so no id is reused
    edges = []

    def tensor_node(t, color, name=None):
        key = str(id(t))
        if key not in tensors:
            keep.append(t)
            label = names.get(id(t), "") if name is None else name
            tensors[key] = dict(label="%s\n %s" % (label, _shape(t)), fillcolor=color)
        return key

    roots = []
    for v in outputs:
        color = "darkolivegreen1"
        while v is not None:
            key = tensor_node(v, color)
            if v.grad_fn is not None:
                roots.append(v.grad_fn)
                edges.append(((str(id(v.grad_fn)), key), {}))
            base = getattr(v, "_base", None)
            if base is not None:
                edges.append(((tensor_node(base, "darkolivegreen3"), key), {"style": "dotted"}))
            v, color = base, "darkolivegreen3"
    nodes = _walk(roots)
    fn_nodes = []
    for fn in nodes:
        key = str(id(fn))
        fn_nodes.append((key, _fn_label(fn, show_attrs, max_attr_chars)))
        var = getattr(fn, "variable", None)
        if var is not None:
            edges.append(((tensor_node(var, "lightblue"), key), {}))
        for child, _ in fn.next_functions:
            if child is not None:
                edges.append(((str(id(child)), key), {}))
    if show_saved:
        for fn in nodes:
            for attr, val in _attributes(fn):
                vals = val if isinstance(val, tuple) else (val,)
                for i, t in enumerate(vals):
                    if _is_tensor(t):
                        name = attr if vals is not val else "%s[%d]" % (attr, i)
                        edges.append(((str(id(fn)), tensor_node(t, "orange", name)),
                                      {"dir": "none"}))

    node_attr = dict(style="filled", shape="box", align="left", fontsize="10", ranksep="0.1",
                     height="0.2", fontname="monospace")
    dot = Digraph(node_attr=node_attr, graph_attr=dict(size="12,12"))
    for key, attrs in tensors.items():
        dot.node(key, **attrs)
    for key, label in fn_nodes:
        dot.node(key, label)
    for (tail, head), attrs in edges:
        dot.edge(tail, head, **attrs)
    size = max(12, len(dot.body) * 0.15)   # grow the drawing with the graph
    dot.graph_attr.update(size="%s,%s" % (size, size))
    return dot


# --------------------------------------------------------------- print_graph
def print_graph(var, params=None, max_depth=None, file=None):
    """Print the autograd graph behind ``var`` as an indented tree (no extra needed).

    One line per backward node, its inputs (``next_functions``) indented
    under it, ``None`` edges skipped. A leaf's ``AccumulateGrad`` shows the
    leaf's name in ``params`` and its shape. A node reached along several
    paths is printed in full once, tagged ``[k]``; later it shows as
    ``Name [k] (shown above)``.

    Args:
        var: a tensor, or a tuple of tensors (one tree each).
        params: optional ``{name: tensor}``, e.g. ``dict(model.named_parameters())``.
        max_depth: print at most this many levels below each output; a
            deeper part shows as ``...`` (useful for very deep graphs, whose
            indentation otherwise grows with the depth).
        file: where to write (default: ``sys.stdout``).

    Raises:
        TypeError: ``var`` or a value of ``params`` is not a tensor.
    """
    outputs = _outputs(var, "print_graph")
    names = _param_names(params)
    file = sys.stdout if file is None else file
    roots = [v.grad_fn for v in outputs]
    indegree = {}
    for fn in roots + [c for fn in _walk(roots) for c, _ in fn.next_functions]:
        if fn is not None:
            indegree[fn] = indegree.get(fn, 0) + 1
    tags = {}
    for v in outputs:
        if v.grad_fn is None:
            print("%s (no grad_fn, shape %s)" % ("leaf tensor" if v.requires_grad else "tensor",
                                                 tuple(v.shape)), file=file)
            continue
        stack = [(v.grad_fn, 0, "output, shape %s" % (tuple(v.shape),))]
        while stack:
            fn, depth, note = stack.pop()
            line = "  " * depth + type(fn).__name__
            children = [c for c, _ in fn.next_functions if c is not None]
            if children and indegree[fn] > 1:
                if fn in tags:
                    print("%s [%d] (shown above)" % (line, tags[fn]), file=file)
                    continue
                tags[fn] = len(tags) + 1
                line += " [%d]" % tags[fn]
            leaf = getattr(fn, "variable", None)
            if leaf is not None:
                name = names.get(id(leaf))
                note = ("%s, " % name if name else "") + "shape %s" % (tuple(leaf.shape),)
            print(line + (" (%s)" % note if note else ""), file=file)
            if children and max_depth is not None and depth >= max_depth:
                print("  " * (depth + 1) + "...", file=file)
                continue
            stack.extend((c, depth + 1, None) for c in reversed(children))
