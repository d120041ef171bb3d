"""``grad_report``: the gradient health of each parameter, as a table.

The tutorials' check (``for name, p in model.named_parameters(): print(
p.grad.mean(), p.grad.abs().max())``) with the numbers that tell vanishing and
exploding gradients apart, and a verdict per parameter with its likely cause.
NumPy only; accepts real ``torch`` modules and tensors as well.
"""
import html

import numpy as np

from .viz._graph import named_params, walk
from .viz._record import to_numpy

__all__ = ["grad_report", "GradReport"]

_CAUSES = {
    "requires_grad": (
        "requires_grad unset: autograd does not track this tensor, so backward() leaves .grad "
        "None. Fix: create it with requires_grad=True (torch.tensor(0.8, requires_grad=True)), "
        "call p.requires_grad_(), or make it an nn.Parameter"),
    "cleared": (
        "in the loss's graph, but .grad is None: zero_grad(set_to_none=True) ran before reading "
        "it (or backward() has not run). Fix: read the gradients after loss.backward() and "
        "before optimizer.zero_grad()"),
    "not_in_graph": (
        "not in the loss's graph: unused in the loss, or reached only through a detached path "
        "(.detach(), .data, torch.no_grad(), .item(), a NumPy round trip). Fix: compute the "
        "loss from this parameter without detaching in between"),
    "unknown": (
        "no gradient: not used in the loss, used through a detached path, or .grad cleared by "
        "zero_grad(set_to_none=True) before reading. Pass loss= to grad_report to tell these "
        "apart"),
}
_COLUMNS = ("name", "shape", "grad mean", "grad abs max", "grad norm", "grad/param norm",
            "zeros", "verdict")


def _in_graph(loss):
    """ids of the leaf tensors the loss's graph reaches (its AccumulateGrad variables)."""
    if loss is None or getattr(loss, "grad_fn", None) is None:
        return set() if loss is not None else None
    return {id(fn.variable) for fn in walk([loss.grad_fn]) if hasattr(fn, "variable")}


def grad_report(model_or_named_params, loss=None, *, vanishing=1e-7, exploding=1e3):
    """The gradient of each parameter, summarised, with a verdict.

    Args:
        model_or_named_params: an ``nn.Module`` (its ``named_parameters()``),
            a ``{name: tensor}`` dict, or ``(name, tensor)`` pairs; tensors
            without ``requires_grad`` are reported too (that is the mistake).
        loss: optional, the loss the gradients came from: tells apart the
            causes of a missing gradient (parameter not in its graph, or
            ``.grad`` cleared after ``backward()``).
        vanishing: a gradient whose L2 norm is at most this (default ``1e-7``)
            is ``vanishing`` (an all-zero gradient too: a dead ReLU layer).
        exploding: a gradient whose L2 norm is at least this (default ``1e3``)
            is ``exploding``.

    Returns:
        GradReport: one row per parameter with ``name``, ``shape``, ``grad
        mean``, ``grad abs max``, ``grad norm`` (L2), ``grad/param norm``
        (the L2 norms' ratio; inf for an all-zero parameter with a nonzero
        gradient), ``zeros`` (share of exact zeros in the gradient) and
        ``verdict``: ``ok``, ``no grad`` (with ``cause``), ``vanishing``,
        ``exploding`` or ``nan/inf`` (the statistics then cover the finite
        values). ``print(report)`` shows the table, a notebook its HTML, and
        ``to_dict()`` gives ``{name: row}``.

    Raises:
        TypeError: a value is not a tensor.
    """
    params = named_params(model_or_named_params)
    graph = _in_graph(loss)
    rows = []
    for name, p in params.items():
        row = {"name": name, "shape": tuple(int(n) for n in p.shape), "grad mean": None,
               "grad abs max": None, "grad norm": None, "grad/param norm": None, "zeros": None,
               "verdict": "ok", "cause": None}
        g = getattr(p, "grad", None)
        if g is None:
            row["verdict"] = "no grad"
            if not p.requires_grad:
                row["cause"] = _CAUSES["requires_grad"]
            elif graph is None:
                row["cause"] = _CAUSES["unknown"]
            else:
                row["cause"] = _CAUSES["cleared" if id(p) in graph else "not_in_graph"]
            rows.append(row)
            continue
        a = np.asarray(to_numpy(g), dtype=np.float64)
        w = np.asarray(to_numpy(p), dtype=np.float64)
        finite = np.isfinite(a)
        fa = a[finite] if not finite.all() else a
        norm = float(np.sqrt(np.sum(fa * fa)))
        pnorm = float(np.sqrt(np.sum(w * w)))
        row.update({"grad mean": float(fa.mean()) if fa.size else float("nan"),
                    "grad abs max": float(np.abs(fa).max()) if fa.size else float("nan"),
                    "grad norm": norm,
                    "grad/param norm": norm / pnorm if pnorm else (0.0 if norm == 0 else
                                                                   float("inf")),
                    "zeros": float(np.mean(a == 0)) if a.size else 0.0})
        if not finite.all():
            row["verdict"] = "nan/inf"
            row["cause"] = ("%d of %d gradient values are NaN or infinite (a NaN/inf input, "
                            "log(0), division by zero or an overflow upstream; "
                            "torch.autograd.detect_anomaly() names the op)"
                            % (int((~finite).sum()), a.size))
        elif norm <= vanishing:
            row["verdict"] = "vanishing"
            row["cause"] = "grad norm %.3g <= %g%s" % (norm, vanishing, (
                " (all zeros: a dead ReLU layer or a saturated activation?)"
                if row["zeros"] == 1.0 else ""))
        elif norm >= exploding:
            row["verdict"] = "exploding"
            row["cause"] = ("grad norm %.3g >= %g (huge weights or learning rate? "
                            "torch.nn.utils.clip_grad_norm_ caps it)" % (norm, exploding))
        rows.append(row)
    return GradReport(rows, vanishing, exploding)


def _fmt(key, v):
    if v is None:
        return "-"
    if key == "shape":
        return str(v)
    if key == "zeros":
        return "%.0f%%" % (100 * v)
    if isinstance(v, float):
        return "%+.3e" % v if key == "grad mean" else "%.3e" % v
    return str(v)


class GradReport:
    """The table ``grad_report`` returns: ``rows`` (dicts), ``to_dict()``,
    ``report[name]`` (a row), ``verdicts`` (``{name: verdict}``), ``str()`` /
    ``print()`` (a text table with the causes under it) and ``_repr_html_``."""

    def __init__(self, rows, vanishing, exploding):
        self.rows = rows
        self.vanishing, self.exploding = vanishing, exploding

    def to_dict(self):
        return {r["name"]: dict(r) for r in self.rows}

    def __getitem__(self, name):
        for r in self.rows:
            if r["name"] == name:
                return r
        raise KeyError(name)

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    @property
    def verdicts(self):
        return {r["name"]: r["verdict"] for r in self.rows}

    def _cells(self):
        return [[_fmt(k, r[k]) for k in _COLUMNS] for r in self.rows]

    def lines(self, indent=""):
        cells = self._cells()
        widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(_COLUMNS)]
        left = (0, 1, 7)
        fmt = lambda row: indent + "  ".join(
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
        out = [fmt(_COLUMNS).rstrip()] + [fmt(row).rstrip() for row in cells]
        notes = [(r["name"], r["cause"]) for r in self.rows if r["cause"]]
        for name, cause in notes:
            out.append("%s%s: %s" % (indent, name, cause))
        return out

    def __str__(self):
        return "\n".join(self.lines())

    def __repr__(self):
        counts = {}
        for r in self.rows:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        return "<GradReport: %d parameters, %s>" % (
            len(self.rows), ", ".join("%d %s" % (n, v) for v, n in counts.items()) or "empty")

    def markdown(self):
        """The table in Markdown (causes as a list under it)."""
        out = ["| " + " | ".join(_COLUMNS) + " |", "|" + "---|" * len(_COLUMNS)]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"
                for row in self._cells()]
        notes = ["- `%s`: %s" % (r["name"], r["cause"]) for r in self.rows if r["cause"]]
        return "\n".join(out + ([""] + notes if notes else []))

    def _repr_html_(self):
        colours = {"ok": "#2e7d32", "no grad": "#c62828", "vanishing": "#ef6c00",
                   "exploding": "#c62828", "nan/inf": "#c62828"}
        head = "".join("<th>%s</th>" % html.escape(c) for c in _COLUMNS)
        body = []
        for r, row in zip(self.rows, self._cells()):
            tds = "".join("<td>%s</td>" % html.escape(c) for c in row[:-1])
            verdict = '<td style="color:%s"><b>%s</b>%s</td>' % (
                colours.get(r["verdict"], "black"), html.escape(row[-1]),
                "<br><small>%s</small>" % html.escape(r["cause"]) if r["cause"] else "")
            body.append("<tr>%s%s</tr>" % (tds, verdict))
        return "<table><thead><tr>%s</tr></thead><tbody>%s</tbody></table>" % (
            head, "".join(body))
