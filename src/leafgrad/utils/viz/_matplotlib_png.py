"""``make_dot``'s picture as a PNG through matplotlib, for machines without
Graphviz's ``dot`` program: the same boxes (labels, fill colours) and arrows
(edge labels), laid out in layers by the longest path from a source box (no
crossing reduction: plainer than ``dot``'s layout, but every box and edge is there)."""
import io

_NEED_MATPLOTLIB = ("drawing the graph as PNG without Graphviz's `dot` program needs matplotlib: "
                    "pip install -e '.[plot]' from a checkout (pip install leafgrad[plot] otherwise), "
                    "or install `dot` (apt-get install graphviz)")


def _layers(keys, edges):
    """Each box's layer: 0 for a box nothing points to, else one below its deepest tail."""
    heads = {k: [] for k in keys}
    for tail, head, _ in edges:
        if tail in heads and head in heads and tail != head:
            heads[tail].append(head)
    layer = {k: 0 for k in keys}
    for _ in range(len(keys)):          # relax; graphs from make_dot are acyclic
        changed = False
        for tail, hs in heads.items():
            for h in hs:
                if layer[h] < layer[tail] + 1:
                    layer[h], changed = layer[tail] + 1, True
        if not changed:
            break
    return layer


_X11_SHADES = {"darkolivegreen1": "#caff70", "darkolivegreen3": "#a2cd5a"}   # make_dot's greens


def _colour(name):
    """A Graphviz (X11) colour name as matplotlib knows it (X11's numbered shades
    have no matplotlib name: make_dot's from the table, others without the number)."""
    from matplotlib.colors import is_color_like
    name = _X11_SHADES.get(name, name or "lightgrey")
    if not is_color_like(name):
        name = name.rstrip("0123456789")
    return name if is_color_like(name) else "lightgrey"


def draw_png(boxes, edges):
    """PNG bytes of ``boxes`` ({key: (label, fillcolor)}, in drawing order) joined
    by ``edges`` ([(tail, head, label or None)]).

    Raises:
        RuntimeError: matplotlib is not installed (the message says how to install it).
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise RuntimeError(_NEED_MATPLOTLIB) from exc
    keys = list(boxes)
    layer = _layers(keys, edges)
    rows = {}
    for k in keys:
        rows.setdefault(layer[k], []).append(k)
    depth = max(rows, default=0) + 1
    width = max((len(r) for r in rows.values()), default=1)
    longest = max((max(len(s) for s in (boxes[k][0] or k).split("\n")) for k in keys), default=10)
    lines = max(((boxes[k][0] or k).count("\n") + 1 for k in keys), default=1)
    fig = Figure(figsize=(max(4, width * (1 + longest * 0.09)), max(3, depth * (0.6 + 0.18 * lines))))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    at = {}
    for d, row in rows.items():
        for i, k in enumerate(row):
            at[k] = ((i + 0.5) / len(row), 1 - (d + 0.5) / depth)
    for tail, head, label in edges:
        if tail not in at or head not in at:
            continue
        ax.annotate("", xy=at[head], xytext=at[tail],
                    arrowprops=dict(arrowstyle="->", color="0.3", shrinkA=12, shrinkB=12))
        if label:
            (x0, y0), (x1, y1) = at[tail], at[head]
            ax.text((x0 + x1) / 2, (y0 + y1) / 2, label, fontsize=7, family="monospace",
                    ha="center", va="center", color="0.25")
    for k in keys:
        label, colour = boxes[k]
        ax.text(*at[k], label or k, fontsize=8, family="monospace", ha="center", va="center",
                bbox=dict(boxstyle="round,pad=0.3", fc=_colour(colour), ec="0.3"))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()
