"""``leafgrad train``: the tutorials' multilayer perceptron, trained end to end.

A fully connected network with two ReLU hidden layers, trained with
mini-batch SGD (momentum) through ``DataLoader``:

* ``--dataset breast_cancer`` (default): scikit-learn's breast-cancer data
  (569 samples, 30 features), one sigmoid output unit and ``nn.BCELoss``;
* ``--dataset digits``: scikit-learn's 8x8 digits (1797 samples, 64
  features), ten output logits and ``nn.CrossEntropyLoss``.

The data is split once, stratified (80/20 by default, with the seed), and
standardised with the training set's mean and standard deviation. A tqdm bar
(when tqdm is installed) follows loss and accuracy per epoch; the run ends
with the gradients of the last mini-batch per parameter (as in the
tutorial's ``named_parameters`` loop) and the line ``test accuracy: 0.xxxx``.
The same ``--seed`` gives the same numbers. ``--plot PATH`` also draws the
per-epoch loss and accuracy curves into a PNG (needs matplotlib:
``pip install leafgrad[plot]``).

The training code only uses the PyTorch API, so ``--backend torch`` runs it
unchanged on real PyTorch (when installed) for comparison.
"""
import argparse
import sys
import time

DATASETS = {
    # name: (default epochs, default lr)
    "breast_cancer": (30, 0.01),
    "digits": (15, 0.05),
}
_ALIASES = {"cancer": "breast_cancer", "breast-cancer": "breast_cancer", "bc": "breast_cancer"}

_NEED_SKLEARN = ("error: scikit-learn is not installed (the datasets come from it).\n"
                 "Install the demo extras:  pip install leafgrad[demo]")
_NEED_MATPLOTLIB = ("error: %s needs matplotlib, which is not installed.\n"
                    "Install the plot extras: from a checkout of leafgrad,  "
                    ".venv/bin/pip install -e '.[plot]'  (an installed leafgrad:  "
                    "pip install 'leafgrad[plot]')")


class DemoError(Exception):
    """A problem to report in one line (exit status 1), without a traceback."""


# ------------------------------------------------------------------ the data
def load_data(name, seed, test_size=0.2):
    """Return (X_train, X_test, y_train, y_test, n_classes) as NumPy arrays.

    Stratified split with ``random_state=seed``; features standardised with the
    training set's mean and standard deviation (constant features are left
    centred, not divided by zero).
    """
    try:
        import numpy as np
        from sklearn import datasets
        from sklearn.model_selection import train_test_split
    except ImportError as exc:
        raise DemoError(_NEED_SKLEARN) from exc

    loader = {"breast_cancer": datasets.load_breast_cancer,
              "digits": datasets.load_digits}[name]
    bunch = loader()
    X = np.asarray(bunch.data, dtype=np.float64)
    y = np.asarray(bunch.target, dtype=np.int64)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_size, stratify=y, random_state=seed)
    mean = X_train.mean(axis=0)
    std = X_train.std(axis=0)
    std[std == 0] = 1.0
    X_train = ((X_train - mean) / std).astype(np.float32)
    X_test = ((X_test - mean) / std).astype(np.float32)
    return X_train, X_test, y_train, y_test, int(y.max()) + 1


# ----------------------------------------------------------------- the model
def make_model(torch, n_in, hidden, n_out):
    """The tutorials' MLP: input -> hidden -> hidden -> output, ReLU in between.

    With one output unit the forward pass ends in a sigmoid (a probability,
    for ``nn.BCELoss``); with several it returns logits (``nn.CrossEntropyLoss``).
    """
    nn = torch.nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden1 = nn.Linear(n_in, hidden)
            self.hidden2 = nn.Linear(hidden, hidden)
            self.output = nn.Linear(hidden, n_out)

        def forward(self, x):
            x = torch.relu(self.hidden1(x))
            x = torch.relu(self.hidden2(x))
            x = self.output(x)
            return torch.sigmoid(x) if x.shape[-1] == 1 else x

    return MLP()


def _accuracy(torch, out, target, binary):
    pred = (out > 0.5).to(target.dtype) if binary else out.argmax(dim=1)
    return (pred == target).sum().item()


def evaluate(torch, model, loss_fn, X, y, binary):
    model.eval()
    with torch.no_grad():
        out = model(X)
        loss = loss_fn(out, y).item()
        acc = _accuracy(torch, out, y, binary) / len(y)
    model.train()
    return loss, acc


# ------------------------------------------------------------------ training
def _progress(epochs, use_bar):
    """A tqdm bar over epochs, or None (then one line per epoch is printed)."""
    if not use_bar:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(range(epochs), desc="training", unit="epoch", file=sys.stderr,
                dynamic_ncols=True)


def _targets(torch, y, binary):
    """The labels as a tensor; for BCELoss float and shaped like the output (N, 1)."""
    if binary:
        return torch.tensor(y, dtype=torch.float32).reshape(-1, 1)
    return torch.tensor(y)


def _train_epoch(torch, model, loader, optimizer, loss_fn, report, binary):
    """One pass over ``loader``: a step per mini-batch. Returns the mean loss,
    the accuracy and the size of the last mini-batch."""
    model.train()
    total_loss, correct, seen, last_batch = 0.0, 0, 0, 0
    for xb, yb in loader:
        optimizer.zero_grad()
        if report is not None and report.first:
            pred, loss = report.first_batch(loss_fn, xb, yb)
        else:
            pred = model(xb)
            loss = loss_fn(pred, yb)
            loss.backward()
        optimizer.step()
        if report is not None:
            report.monitor.step(loss)
        n = len(yb)
        total_loss += loss.item() * n
        correct += _accuracy(torch, pred.detach(), yb, binary)
        seen += n
        last_batch = n
    return total_loss / seen, correct / seen, last_batch


def train(args, torch, out=print):
    """Train per ``args``; returns a dict of results (test accuracy, gradient table, ...)."""
    nn = torch.nn
    from importlib import import_module
    data = import_module(torch.__name__ + ".utils.data")

    X_train, X_test, y_train, y_test, n_classes = load_data(args.dataset, args.seed,
                                                            args.test_size)
    binary = n_classes == 2
    torch.manual_seed(args.seed)

    Xtr, Xte = torch.tensor(X_train), torch.tensor(X_test)
    ytr, yte = _targets(torch, y_train, binary), _targets(torch, y_test, binary)
    n_out = 1 if binary else n_classes
    model = make_model(torch, Xtr.shape[1], args.hidden, n_out)
    loss_fn = nn.BCELoss() if binary else nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    loader = data.DataLoader(data.TensorDataset(Xtr, ytr), batch_size=args.batch_size,
                             shuffle=True)

    n_params = sum(p.numel() for p in model.parameters())
    out("%s: %d train / %d test samples, %d features, %d classes"
        % (args.dataset, len(ytr), len(yte), Xtr.shape[1], n_classes))
    out("model: %d -> %d -> %d -> %d%s (%d parameters), %s, SGD(lr=%g, momentum=%g), "
        "batch size %d, %d epochs, seed %d"
        % (Xtr.shape[1], args.hidden, args.hidden, n_out, " + sigmoid" if binary else "",
           n_params, type(loss_fn).__name__, args.lr, args.momentum, args.batch_size,
           args.epochs, args.seed))

    report = _Report(args.report, torch, model, optimizer) if getattr(args, "report", None) \
        else None
    bar = _progress(args.epochs, args.progress)
    epochs = bar if bar is not None else range(args.epochs)
    history = []
    t0 = time.perf_counter()
    last_batch = 0
    # --compile: the steps call torch.compile's wrapper; saving and the report use the model
    run = torch.compile(model) if getattr(args, "compile", False) else model
    for epoch in epochs:
        train_loss, train_acc, last_batch = _train_epoch(torch, run, loader, optimizer,
                                                         loss_fn, report, binary)
        test_loss, test_acc = evaluate(torch, run, loss_fn, Xte, yte, binary)
        history.append((train_loss, train_acc, test_loss, test_acc))
        if bar is not None:
            bar.set_postfix(loss="%.4f" % train_loss, acc="%.4f" % train_acc,
                            test_acc="%.4f" % test_acc)
        else:
            out("epoch %*d/%d  loss %.4f  acc %.4f  test loss %.4f  test acc %.4f"
                % (len(str(args.epochs)), epoch + 1, args.epochs, train_loss, train_acc,
                   test_loss, test_acc))
    if bar is not None:
        bar.close()
    elapsed = time.perf_counter() - t0

    # the gradients the last mini-batch left on the parameters, with a health verdict
    from .utils.grad_report import grad_report
    health = grad_report(model)
    rows = [(r["name"], r["shape"], r["grad mean"], r["grad abs max"]) for r in health
            if r["grad mean"] is not None]
    out("")
    out("gradients of the last mini-batch (%d samples):" % last_batch)
    for line in health.lines(indent="  "):
        out(line)
    out("")

    test_loss, test_acc = evaluate(torch, model, loss_fn, Xte, yte, binary)
    if report is not None:
        for path in report.finish(health, args, history, test_loss, test_acc):
            out("wrote %s" % path)
    if args.save:
        torch.save(model.state_dict(), args.save)
        out("saved the trained state_dict (%d tensors) to %s"
            % (len(model.state_dict()), args.save))
    if getattr(args, "plot", None):
        plot_history(history, args.plot, title="%s, %s" % (args.dataset, torch.__name__))
        out("saved the loss and accuracy curves (%d epochs) to %s" % (len(history), args.plot))
    out("test loss: %.4f" % test_loss)
    out("test accuracy: %.4f" % test_acc)
    return {"test_accuracy": test_acc, "test_loss": test_loss, "history": history,
            "gradients": rows, "health": health, "seconds": elapsed, "model": model,
            "report": report}


# ---------------------------------------------------------------- --report
class _Report:
    """``--report DIR``: a GradientMonitor over the run, the graph and the
    gradient health of the first mini-batch, and at the end loss.png,
    grad_norms.png, graph.svg and report.md in DIR."""

    def __init__(self, directory, torch, model, optimizer):
        import os
        from .utils.monitor import GradientMonitor
        os.makedirs(directory, exist_ok=True)
        self.dir, self.torch, self.model = directory, torch, model
        self.monitor = GradientMonitor(model, optimizer)
        self.first = True
        self.start_health = None
        self.graph_path = self.dot_path = None

    def first_batch(self, loss_fn, xb, yb):
        """Forward and backward of the first mini-batch, recorded for the graph."""
        import os
        from .utils import viz
        from .utils.grad_report import grad_report
        with viz.record(self.model):
            pred = self.model(xb)
            loss = loss_fn(pred, yb)
        loss.backward()
        self.first = False
        self.start_health = grad_report(self.model, loss)
        try:
            dot = viz.make_dot(loss, params=self.model, show_values=True, show_grads=True)
        except ImportError:
            return pred, loss           # no graphviz package: no graph.svg
        try:
            self.graph_path = dot.save(os.path.join(self.dir, "graph.svg"))
        except RuntimeError:            # no `dot` program: the DOT source and matplotlib's PNG
            self.dot_path = dot.save(os.path.join(self.dir, "graph.dot"))
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")     # the report says which drawing it is
                self.graph_path = dot.save(os.path.join(self.dir, "graph.png"))
        return pred, loss

    def finish(self, health, args, history, test_loss, test_acc):
        import os
        title = "%s, %s" % (args.dataset, self.torch.__name__)
        loss_png = os.path.join(self.dir, "loss.png")
        norms_png = os.path.join(self.dir, "grad_norms.png")
        fig = self.monitor.plot_loss(None)
        fig.axes[0].set_title("training loss per mini-batch (%s)" % title)
        fig.savefig(loss_png, format="png", dpi=100)
        fig = self.monitor.plot_grad_norms(None)
        fig.suptitle("gradients per layer over training (%s)" % title)
        fig.savefig(norms_png, format="png", dpi=100)
        md = os.path.join(self.dir, "report.md")
        graph = os.path.basename(self.graph_path) if self.graph_path else None
        lines = ["# leafgrad train report: %s" % title, "",
                 "%d epochs, %d steps, SGD(lr=%g, momentum=%g), batch size %d, seed %d; "
                 "test loss %.4f, test accuracy %.4f." % (
                     args.epochs, len(self.monitor.steps), args.lr, args.momentum,
                     args.batch_size, args.seed, test_loss, test_acc), "",
                 "## Gradient health at the start (first mini-batch)", "",
                 self.start_health.markdown() if self.start_health else "(no batch)", "",
                 "## Gradient health at the end (last mini-batch)", "", health.markdown(), "",
                 "## Figures", "",
                 "![training loss per mini-batch](loss.png)", "",
                 "![gradient norm and update ratio per layer](grad_norms.png)", ""]
        if graph:
            lines += ["The graph of the first mini-batch with its values and gradients: "
                      "[%s](%s)" % (graph, graph), ""]
        with open(md, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        return [p for p in (loss_png, norms_png, self.dot_path, self.graph_path, md) if p]


# ---------------------------------------------------------------- the plot
def _matplotlib(option="--plot"):
    """``(Figure, MaxNLocator)``, or DemoError naming ``option`` when matplotlib is missing."""
    try:
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError as exc:
        raise DemoError(_NEED_MATPLOTLIB % option) from exc
    return Figure, MaxNLocator


def plot_history(history, path=None, title=None):
    """Draw the per-epoch curves of a run: loss on the left, accuracy on the right.

    Args:
        history: one ``(train_loss, train_acc, test_loss, test_acc)`` tuple per
            epoch, as in ``train(...)["history"]``.
        path: write the figure there as a PNG (``None``: do not write).
        title: optional title over both panels.

    Returns:
        matplotlib.figure.Figure: the figure; its two axes hold one line each
        for train and test (x = epochs 1..N). It is drawn with the Agg
        renderer and not registered with pyplot, so no display is needed and
        nothing has to be closed.

    Raises:
        DemoError: matplotlib is not installed (``pip install leafgrad[plot]``).
    """
    Figure, MaxNLocator = _matplotlib()
    epochs = list(range(1, len(history) + 1))
    train_loss, train_acc, test_loss, test_acc = (list(c) for c in zip(*history)) \
        if history else ([], [], [], [])
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    ax_loss, ax_acc = fig.subplots(1, 2)
    for ax, ylabel, (train_y, test_y) in ((ax_loss, "loss", (train_loss, test_loss)),
                                          (ax_acc, "accuracy", (train_acc, test_acc))):
        ax.plot(epochs, train_y, marker="o", markersize=3, label="train")
        ax.plot(epochs, test_y, marker="o", markersize=3, label="test")
        ax.set_xlabel("epoch")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    if path is not None:
        fig.savefig(path, format="png", dpi=100)
    return fig


# ----------------------------------------------------------------------- CLI
def _per_dataset(i):
    return ", ".join("%g for %s" % (v[i], k) for k, v in DATASETS.items())


def build_parser(prog="leafgrad train"):
    p = argparse.ArgumentParser(
        prog=prog,
        description="Train the tutorials' multilayer perceptron (two ReLU hidden layers) "
                    "with leafgrad on a scikit-learn dataset, then print the test accuracy "
                    "and the gradients of the last mini-batch.",
        epilog="Needs scikit-learn (pip install leafgrad[demo]); tqdm is optional.")
    p.add_argument("--dataset", default="breast_cancer",
                   choices=sorted(DATASETS) + sorted(_ALIASES), metavar="NAME",
                   help="breast_cancer (binary: sigmoid + BCELoss, default) or digits "
                        "(10 classes: CrossEntropyLoss)")
    p.add_argument("--epochs", type=int, default=None,
                   help="passes over the training set (default: %s)" % _per_dataset(0))
    p.add_argument("--lr", type=float, default=None,
                   help="SGD learning rate (default: %s)" % _per_dataset(1))
    p.add_argument("--momentum", type=float, default=0.9, help="SGD momentum (default: 0.9)")
    p.add_argument("--hidden", type=int, default=32,
                   help="units in each of the two hidden layers (default: 32)")
    p.add_argument("--batch-size", type=int, default=32, help="mini-batch size (default: 32)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed for the split, the initial weights and the shuffling (default: 0)")
    p.add_argument("--test-size", type=float, default=0.2,
                   help="share of the data held out for testing (default: 0.2)")
    p.add_argument("--save", metavar="PATH",
                   help="write the trained state_dict there (safetensors format)")
    p.add_argument("--plot", metavar="PATH",
                   help="draw the per-epoch loss and accuracy curves into a PNG there "
                        "(needs matplotlib: pip install leafgrad[plot])")
    p.add_argument("--report", metavar="DIR",
                   help="write loss.png, grad_norms.png, graph.svg (the first mini-batch's "
                        "graph with values and gradients) and report.md (gradient health at "
                        "the start and the end) to DIR (needs matplotlib; graphviz for the "
                        "graph)")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no tqdm bar: print one line per epoch instead")
    p.add_argument("--backend", choices=("leafgrad", "torch"), default="leafgrad",
                   help="run the same code on real PyTorch instead, for comparison")
    p.add_argument("--compile", action="store_true",
                   help="call the model through torch.compile (same numbers as eager)")
    return p


def main(argv=None, prog="leafgrad train"):
    args = build_parser(prog).parse_args(argv)
    args.dataset = _ALIASES.get(args.dataset, args.dataset)
    epochs, lr = DATASETS[args.dataset]
    args.epochs = epochs if args.epochs is None else args.epochs
    args.lr = lr if args.lr is None else args.lr
    for opt in ("epochs", "hidden", "batch_size"):
        if getattr(args, opt) < 1:
            sys.stderr.write("%s: error: --%s must be at least 1\n"
                             % (prog, opt.replace("_", "-")))
            return 2
    if not 0 < args.test_size < 1:
        sys.stderr.write("%s: error: --test-size must be between 0 and 1\n" % prog)
        return 2

    if args.backend == "torch":
        try:
            import torch
        except ImportError:
            sys.stderr.write("%s: error: --backend torch needs PyTorch installed\n" % prog)
            return 1
    else:
        import leafgrad as torch

    def out(line=""):
        print(line, flush=True)

    try:
        if args.plot or args.report:
            _matplotlib("--plot" if args.plot else "--report")  # fail before training
        result = train(args, torch, out=out)
    except DemoError as exc:
        sys.stderr.write("%s: %s\n" % (prog, exc))
        return 1
    sys.stderr.write("trained in %.2f s (%s %s)\n"
                     % (result["seconds"], torch.__name__, torch.__version__))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
