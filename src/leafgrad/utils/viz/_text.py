"""``print_graph``: the autograd graph as an indented text tree (NumPy only)."""
import sys

from . import _graph as G
from ._record import grads_of, to_numpy, value_of


def _numbers(fn, value, edge_grad, show_values, show_grads):
    parts = []
    if show_values:
        parts.append("= %s" % G.value_text(value) if value is not None else "= ?")
    if show_grads and edge_grad is not None:
        parts.append("grad %s" % G.value_text(edge_grad))
    return ("  " + "  ".join(parts)) if parts else ""


def print_graph(var, params=None, max_depth=None, file=None, *, show_values=False,
                show_grads=False):
    """Print the autograd graph behind ``var`` as an indented tree (no extra needed).

    One line per backward node, its inputs (``next_functions``) indented
    under it, ``None`` edges skipped: the loss on top, the leaves at the
    bottom (the tutorials' reading direction). A leaf's ``AccumulateGrad``
    shows the leaf's name in ``params`` and its shape. A node reached along
    several paths is printed in full once, tagged ``[k]``; later it shows as
    ``Name [k] (shown above)``.

    With ``show_values`` each line ends with ``= VALUE`` (the node's output:
    in full for one element, abbreviated up to 8, else mean/std/min/max;
    ``?`` when not recorded: run the forward pass inside
    ``leafgrad.utils.viz.record()``); with ``show_grads``, ``grad G``: the
    gradient sent along the edge to that line's node (each line is one edge),
    and at each leaf ``→ name.grad = G``.

    Args:
        var: a tensor, or a tuple of tensors (one tree each).
        params: leaf names: ``{name: tensor}``, pairs, or an ``nn.Module``.
        max_depth: print at most this many levels below each output; a
            deeper part shows as ``...`` (useful for very deep graphs, whose
            indentation otherwise grows with the depth).
        file: where to write (default: ``sys.stdout``).
        show_values: the value of each node's output.
        show_grads: the gradient along each edge and each leaf's ``.grad``.

    Raises:
        TypeError: ``var`` or a value of ``params`` is not a tensor.
    """
    outputs = G.outputs_of(var, "print_graph")
    names = G.param_names(params)
    file = sys.stdout if file is None else file
    roots = [v.grad_fn for v in outputs]
    indegree = {}
    for fn in roots + [c for fn in G.walk(roots) for c, _ in fn.next_functions]:
        if fn is not None:
            indegree[fn] = indegree.get(fn, 0) + 1
    tags = {}
    for v in outputs:
        if v.grad_fn is None:
            print("%s (no grad_fn, shape %s)%s" % (
                "leaf tensor" if v.requires_grad else "tensor", tuple(v.shape),
                _numbers(None, to_numpy(v), None, show_values, False)), file=file)
            continue
        rec = grads_of(v.grad_fn)
        g0 = rec[0][0] if rec is not None and rec[0] else None
        stack = [(v.grad_fn, 0, "output, shape %s" % (tuple(v.shape),), to_numpy(v), g0)]
        while stack:
            fn, depth, note, value, egrad = stack.pop()
            line = "  " * depth + type(fn).__name__
            children = [(i, c) for i, (c, _) in enumerate(fn.next_functions) if c is not None]
            tail = ""
            leaf = getattr(fn, "variable", None)
            if leaf is not None:
                name = names.get(id(leaf))
                note = ("%s, " % name if name else "") + "shape %s" % (tuple(leaf.shape),)
                value = to_numpy(leaf)
                if show_grads:
                    g = getattr(leaf, "grad", None)
                    tail = "  → %s.grad %s" % (name or "", "is None" if g is None else
                                               "= " + G.value_text(to_numpy(g)))
            elif value is None and show_values:
                value = value_of(fn)
            nums = _numbers(fn, value, egrad, show_values, show_grads) + tail
            if show_values and leaf is None and show_grads is not None:
                freed = G.freed_note(fn)
                if freed:
                    nums += "  (%s)" % freed
            if children and indegree[fn] > 1:
                if fn in tags:
                    print("%s [%d] (shown above)%s" % (line, tags[fn], _numbers(
                        fn, None, egrad, False, show_grads)), file=file)
                    continue
                tags[fn] = len(tags) + 1
                line += " [%d]" % tags[fn]
            print(line + (" (%s)" % note if note else "") + nums, file=file)
            if children and max_depth is not None and depth >= max_depth:
                print("  " * (depth + 1) + "...", file=file)
                continue
            rec = grads_of(fn) if show_grads else None
            stack.extend((c, depth + 1, None, None,
                          rec[1][i] if rec is not None and i < len(rec[1]) else None)
                         for i, c in reversed(children))
