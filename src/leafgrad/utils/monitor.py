"""``GradientMonitor``: per-layer gradient norms and update ratios during
training, recorded through hooks, and their plots (matplotlib, imported only
by ``plot*``)."""
import math

import numpy as np

from .viz._graph import named_params
from .viz._record import to_numpy

__all__ = ["GradientMonitor"]

_NEED_MATPLOTLIB = "GradientMonitor.plot needs matplotlib: pip install leafgrad[plot]"


def _layer_of(name):
    return name.rsplit(".", 1)[0] if "." in name else name


class GradientMonitor:
    """Record, each training step, every layer's gradient norm and update ratio.

    A layer is a module that owns parameters (``hidden1`` for
    ``hidden1.weight`` and ``hidden1.bias``); its gradient norm is the L2
    norm of all its parameters' gradients together, its update ratio
    ``||p_after - p_before|| / ||p_before||`` over the optimizer step.

    How: with ``optimizer`` given, its step pre-hook
    (``register_step_pre_hook``) reads the gradients the step is about to use
    and keeps a copy of the weights, its post-hook measures the update and
    records the step; without one, hooks on the parameters' gradients
    (``register_hook``) record one step per backward pass and the change of the
    weights between them. Nothing else is needed; ``monitor.step(loss)`` after
    ``optimizer.step()`` is optional and adds the loss to that step's record.
    The hooks store per-layer squared norms only (the series are computed when
    read). ``benchmarks/monitor_overhead.py`` measures the cost on the
    benchmarks' small MLP::

        monitor = GradientMonitor(model, optimizer)
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            monitor.step(loss)          # optional: the loss panel
        monitor.plot("monitor.png")

    Args:
        model: an ``nn.Module`` (or ``{name: tensor}`` / pairs).
        optimizer: optional optimizer of those parameters (exact per-step updates).
        track_updates: measure the update ratios (a copy of the weights per
            step: most of the monitor's cost); False records the gradient norms only.

    Attributes:
        layers: ``{layer: [parameter names]}``; ``labels``: ``{layer: "hidden1 (Linear)"}``.
        history: ``{"step": [...], "loss": [...], "grad_norm": {layer: [...]},
            "update_ratio": {layer: [...]}}``, the per-step series ``plot`` draws.
        steps: the recorded step numbers (1, 2, ...).
        losses: the loss per step (``nan`` where ``step(loss)`` was not called).
        grad_norms: ``{layer: [norm per step]}`` (``nan`` for a step without a gradient).
        update_ratios: ``{layer: [ratio per step]}`` (``nan`` when unknown).

    ``remove()`` unregisters the hooks.
    """

    def __init__(self, model, optimizer=None, track_updates=True):
        params = {n: p for n, p in named_params(model).items() if p.requires_grad}
        self._params = params
        self.layers = {}
        for n in params:
            self.layers.setdefault(_layer_of(n), []).append(n)
        kinds = dict((k, type(m).__name__) for k, m in model.named_modules()) \
            if hasattr(model, "named_modules") else {}
        self.labels = {layer: "%s (%s)" % (layer, kinds[layer]) if layer in kinds else layer
                       for layer in self.layers}
        self._losses = []            # per step: the loss as a 0-d array (read lazily)
        self._sq_steps = []          # per step: {layer: squared grad norm}
        self._upd_steps = []         # per step: {layer: (squared update, squared weight)}
        self._cache = (0, None)
        self._sq = {}                # layer -> squared grad norm in this step
        self._before = None          # parameter arrays before the update
        self._upd = None
        self._seen = set()           # parameters whose gradient this backward already gave
        self._await_loss = False     # the last record was closed by a hook: step(loss) adds to it
        # parameters ordered layer by layer: each layer is one slice of a flat buffer,
        # so a step costs a few NumPy calls in all, not a few per parameter
        self._names = [n for names in self.layers.values() for n in names]
        self._plist = [params[n] for n in self._names]
        self._layer_of_param = [_layer_of(n) for n in self._names]
        self._bufs = {}
        self._wsq = {}
        sizes = [int(np.prod(params[n].shape)) for n in self._names]
        bounds = np.cumsum([0] + sizes)
        self._param_slices = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        self._slices = {}
        k = 0
        for layer, names in self.layers.items():
            self._slices[layer] = slice(int(bounds[k]), int(bounds[k + len(names)]))
            k += len(names)
        self._handles = []
        self._optimizer = optimizer
        self._track = track_updates
        if optimizer is not None:
            self._handles.append(optimizer.register_step_pre_hook(self._pre_step))
            if track_updates:
                self._handles.append(optimizer.register_step_post_hook(self._post_step))
        else:
            if track_updates:
                self._before = self._snapshot()
            for layer, p in zip(self._layer_of_param, self._plist):
                self._handles.append(p.register_hook(self._grad_hook(layer, p)))

    # ----------------------------------------------------------------- hooks
    # The hooks and step() only store per-layer squared norms; the series are
    # computed when read (steps, losses, grad_norms, update_ratios).
    def _flat(self, tensors, key):
        """The tensors' values raveled into one reused buffer (``key``: which
        buffer); returns the buffer and its per-layer views (made once per
        buffer: slicing at every step costs as much as the dot products)."""
        arrays = [to_numpy(t).ravel() for t in tensors]
        entry = self._bufs.get(key)
        if entry is None or entry[0].dtype != np.result_type(*arrays):
            buf = np.concatenate(arrays)
            entry = self._bufs[key] = (buf, [buf[sl] for sl in self._slices.values()],
                                       [buf[sl] for sl in self._param_slices])
            return entry
        np.concatenate(arrays, out=entry[0])
        return entry

    def _layer_sq(self, views):
        return {layer: np.dot(v, v) for layer, v in zip(self._slices, views)}

    def _grads_of(self):
        # leafgrad tensors: the slot itself (the .grad property also checks for non-leaves)
        return [p._grad if hasattr(p, "_grad") else p.grad for p in self._plist]

    def _grad_norms_now(self):
        """{layer: squared norm of its gradients} from the .grad backward left
        (one ``vdot`` per parameter, which flattens without a copy)."""
        sq = {}
        for layer, g in zip(self._layer_of_param, self._grads_of()):
            if g is not None:
                g = to_numpy(g)
                sq[layer] = sq.get(layer, 0.0) + np.vdot(g, g)
        self._sq = sq

    def _snapshot(self):
        """Copy the weights; keep their squared norms per layer."""
        before = self._flat(self._plist, "before")
        self._wsq = self._layer_sq(before[1])
        return before

    def _updates_since(self, before):
        """{layer: (squared update, squared weight)}; the update is written over
        ``before`` (a ``_flat`` entry) in place: it is not needed afterwards."""
        buf, views, per_param = before
        for p, b in zip(self._plist, per_param):
            np.subtract(to_numpy(p).ravel(), b, out=b)
        return {layer: (np.dot(v, v), self._wsq[layer]) for layer, v in zip(self._slices, views)}

    def _pre_step(self, optimizer, args, kwargs):
        self._grad_norms_now()         # the gradients the step is about to use
        if self._track:
            self._before = self._snapshot()

    def _post_step(self, optimizer, args, kwargs):
        self._upd = self._updates_since(self._before) if self._track else None
        self._close(None)
        self._await_loss = True

    def _grad_hook(self, layer, p):
        """A gradient hook of ``p``: adds its squared norm to this backward's record
        (a parameter seen twice starts the next step's record)."""
        seen = self._seen

        def hook(g):
            if id(p) in seen:
                self._close_backward()
            seen.add(id(p))
            g = to_numpy(g).reshape(-1)
            self._sq[layer] = self._sq.get(layer, 0.0) + np.dot(g, g)
        return hook

    def _close_backward(self):
        """No optimizer: the backward pass recorded by the hooks becomes a step."""
        if self._track:
            self._upd = self._updates_since(self._before) if self._sq_steps else None
            self._before = self._snapshot()
        self._seen.clear()
        self._close(None)
        self._await_loss = True

    def _close(self, loss):
        self._upd_steps.append(self._upd)
        self._upd = None
        self._losses.append(None if loss is None else
                            to_numpy(loss) if hasattr(loss, "grad_fn") else float(loss))
        self._sq_steps.append(self._sq)
        self._sq = {}
        self._await_loss = False

    # ------------------------------------------------------------------ API
    def step(self, loss=None):
        """Optional: give the step just recorded its loss (call it after
        ``optimizer.step()``). Called when no hook has recorded a step since the
        last call, it records the current ``.grad`` as a step of its own."""
        if self._optimizer is None and self._sq:
            self._close_backward()
        if self._await_loss:
            self._await_loss = False
            if loss is not None:
                self._losses[-1] = to_numpy(loss) if hasattr(loss, "grad_fn") else float(loss)
            return
        self._grad_norms_now()
        self._close(loss)

    def _series(self):
        if self._optimizer is None and self._sq:
            self._close_backward()      # the last backward is a step once read
        n = len(self._sq_steps)
        if self._cache[0] == n and self._cache[1] is not None:
            return self._cache[1]
        norms = {layer: [] for layer in self.layers}
        ratios = {layer: [] for layer in self.layers}
        for sq, upd in zip(self._sq_steps, self._upd_steps):
            for layer in self.layers:
                v = sq.get(layer)
                norms[layer].append(math.nan if v is None else math.sqrt(float(v)))
                if upd is None:
                    ratios[layer].append(math.nan)
                    continue
                d, w = (float(x) for x in upd[layer])
                ratios[layer].append(math.sqrt(d / w) if w else (0.0 if d == 0 else math.inf))
        losses = [math.nan if v is None else float(v) for v in self._losses]
        series = (list(range(1, n + 1)), losses, norms, ratios)
        self._cache = (n, series)
        return series

    steps = property(lambda self: self._series()[0])
    losses = property(lambda self: self._series()[1])
    grad_norms = property(lambda self: self._series()[2])
    update_ratios = property(lambda self: self._series()[3])

    @property
    def history(self):
        steps, losses, norms, ratios = self._series()
        return {"step": steps, "loss": losses, "grad_norm": norms, "update_ratio": ratios}

    def remove(self):
        """Unregister all hooks (the records stay)."""
        for h in self._handles:
            h.remove()
        self._handles = []

    def _grads(self):
        """``{layer: all gradient values (1-d float64)}`` of the current ``.grad``."""
        out = {}
        grads = dict(zip(self._names, self._grads_of()))
        for layer, names in self.layers.items():
            parts = [np.asarray(to_numpy(grads[n]), np.float64).ravel()
                     for n in names if grads[n] is not None]
            if parts:
                out[layer] = np.concatenate(parts)
        return out

    # ----------------------------------------------------------------- plots
    def _figure(self, n, width=5.0):
        if not self.history["step"]:
            raise RuntimeError(
                "GradientMonitor.plot(): nothing recorded yet, so there is nothing to draw. "
                "Steps are recorded by the optimizer's step (GradientMonitor(model, optimizer)) "
                "or, without an optimizer, by each backward() through the model's parameters. "
                "Fix: create the monitor before training, with the optimizer the loop steps, "
                "and run at least one step (or call monitor.step() after each backward()).")
        try:
            from matplotlib.figure import Figure
        except ImportError as exc:
            raise ImportError(_NEED_MATPLOTLIB) from exc
        fig = Figure(figsize=(width * n, 3.8), layout="constrained")
        axes = fig.subplots(1, n)
        return fig, (axes if n > 1 else [axes])

    @staticmethod
    def _save(fig, path):
        if path is not None:
            fig.savefig(path, format=str(path).rsplit(".", 1)[-1].lower() if "." in str(path)
                        else "png", dpi=100)
        return fig

    def _draw_loss(self, ax):
        h = self.history
        if all(math.isnan(v) for v in h["loss"]):
            ax.text(0.5, 0.5, "no loss recorded:\ncall monitor.step(loss)\nafter optimizer.step()",
                    ha="center", va="center", transform=ax.transAxes)
        ax.plot(h["step"], h["loss"], color="C0", linewidth=1)
        ax.set_title("training loss per step")
        ax.set_xlabel("step (mini-batch)")
        ax.set_ylabel("loss (mean over the batch)")
        ax.grid(alpha=0.3)

    def _draw_per_layer(self, ax, series, title, ylabel):
        for layer in self.layers:
            ax.plot(self.history["step"], series[layer], linewidth=1, label=self.labels[layer])
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel("step (mini-batch)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)

    def _draw_norms(self, ax):
        self._draw_per_layer(ax, self.history["grad_norm"], "gradient norm per layer",
                             "L2 norm of the layer's gradient (log scale)")

    def _draw_histograms(self, ax, bins=50):
        grads = self._grads()
        for layer, g in grads.items():
            counts, edges = np.histogram(g, bins=bins)
            ax.stairs(counts, edges, label=self.labels[layer])
        ax.set_yscale("log")
        ax.set_title("gradient values, step %d" % (self.steps[-1] if self.steps else 0))
        ax.set_xlabel("gradient value (d loss / d parameter)")
        ax.set_ylabel("count of parameters (log scale)")
        ax.grid(alpha=0.3)
        if grads:
            ax.legend(fontsize=8)

    def plot(self, path=None, bins=50):
        """Three panels: the loss per step, each layer's gradient norm per step
        (log scale) and histograms of each layer's current gradient values.
        Returns the ``matplotlib.figure.Figure`` (written to ``path`` when
        given; PNG unless the name says .svg/.pdf). Raises ImportError without matplotlib."""
        fig, (a, b, c) = self._figure(3)
        self._draw_loss(a)
        self._draw_norms(b)
        self._draw_histograms(c, bins)
        return self._save(fig, path)

    def plot_loss(self, path=None):
        """The loss per step alone (see ``plot``)."""
        fig, (ax,) = self._figure(1, 7)
        self._draw_loss(ax)
        return self._save(fig, path)

    def plot_grad_norms(self, path=None):
        """Each layer's gradient norm per step (log scale) and its update ratio."""
        fig, (ax, ax2) = self._figure(2, 5.5)
        self._draw_norms(ax)
        self._draw_per_layer(ax2, self.history["update_ratio"], "update ratio per layer",
                             "||Δ weights|| / ||weights|| (log scale)")
        return self._save(fig, path)
