"""utils.grad_report verdicts on crafted models, and GradientMonitor's records and
figures against values computed directly."""
import importlib.util
import math

import numpy as np
import pytest

import leafgrad as lg
from leafgrad import nn
from leafgrad.utils import GradientMonitor, grad_report

needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                      reason="matplotlib is not installed")


class Net(nn.Module):
    def __init__(self, detach=False, unused=False):
        super().__init__()
        self.a = nn.Linear(3, 4)
        self.b = nn.Linear(4, 1)
        self.detach = detach
        if unused:
            self.extra = nn.Linear(2, 2)

    def forward(self, x):
        h = lg.tanh(self.a(x))
        return self.b(h.detach() if self.detach else h)


def run(model, x=None):
    lg.manual_seed(0)
    x = lg.randn(8, 3) if x is None else x
    loss = model(x).pow(2).mean()
    loss.backward()
    return loss


def test_ok_rows_match_direct_computation_and_torch():
    torch = pytest.importorskip("torch")
    lg.manual_seed(0)
    model = Net()
    loss = run(model)
    rep = grad_report(model, loss)
    assert set(rep.verdicts.values()) == {"ok"} and len(rep) == 4
    for name, p in model.named_parameters():
        g, w = p.grad.numpy().astype(np.float64), p.detach().numpy().astype(np.float64)
        row = rep[name]
        assert row["shape"] == tuple(p.shape)
        assert row["grad mean"] == pytest.approx(g.mean())
        assert row["grad abs max"] == pytest.approx(np.abs(g).max())
        assert row["grad norm"] == pytest.approx(np.linalg.norm(g))
        assert row["grad/param norm"] == pytest.approx(np.linalg.norm(g) / np.linalg.norm(w))
        assert row["zeros"] == np.mean(g == 0)
    # a torch model gives the same table
    tm = torch.nn.Linear(3, 1)
    tm(torch.ones(2, 3)).sum().backward()
    assert grad_report(tm).verdicts == {"weight": "ok", "bias": "ok"}
    d = rep.to_dict()
    assert list(d) == [n for n, _ in model.named_parameters()] and d["a.weight"]["verdict"] == "ok"
    text = str(rep).splitlines()
    assert text[0].split() == ["name", "shape", "grad", "mean", "grad", "abs", "max", "grad",
                               "norm", "grad/param", "norm", "zeros", "verdict"]
    assert text[1].startswith("a.weight  (4, 3)") and text[1].endswith("ok")
    assert "<table>" in rep._repr_html_() and "a.weight" in rep._repr_html_()
    assert rep.markdown().splitlines()[0].startswith("| name | shape |")


def test_detached_layer_and_unused_parameter():
    model = Net(detach=True, unused=True)
    loss = run(model)
    rep = grad_report(model, loss)
    assert rep.verdicts == {"a.weight": "no grad", "a.bias": "no grad", "b.weight": "ok",
                            "b.bias": "ok", "extra.weight": "no grad", "extra.bias": "no grad"}
    for name in ("a.weight", "extra.bias"):
        cause = rep[name]["cause"]
        assert cause.startswith("not in the loss's graph") and "detached" in cause and \
            "unused" in cause
    # without the loss the causes are listed together
    assert "Pass loss=" in grad_report(model)["a.bias"]["cause"]


def test_requires_grad_unset_and_set_to_none():
    w = lg.tensor(0.8)                  # the tutorial's mistake
    b = lg.tensor(0.1, requires_grad=True)
    loss = (w * 1.5 + b - 1.0) ** 2
    loss.backward()
    rep = grad_report({"w": w, "b": b}, loss)
    assert rep.verdicts == {"w": "no grad", "b": "ok"}
    assert rep["w"]["cause"].startswith("requires_grad unset") and "requires_grad=True" in \
        rep["w"]["cause"]
    model = Net()
    loss = run(model)
    opt = lg.optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad(set_to_none=True)     # cleared before the gradients were read
    rep = grad_report(model, loss)
    assert set(rep.verdicts.values()) == {"no grad"}
    assert all("zero_grad(set_to_none=True)" in r["cause"] and r["cause"].startswith(
        "in the loss's graph") for r in rep)


def test_huge_weights_explode_nan_input_and_vanishing():
    model = Net()
    with lg.no_grad():
        model.b.weight.mul_(1e5)
    loss = run(model)
    rep = grad_report(model, loss)
    assert rep["a.weight"]["verdict"] == "exploding" and "clip_grad_norm_" in rep["a.weight"]["cause"]
    assert grad_report(model, loss, exploding=1e30)["a.weight"]["verdict"] == "ok"

    model = Net()
    x = lg.randn(8, 3)
    x[2, 1] = float("nan")
    loss = run(model, x)
    rep = grad_report(model, loss)
    assert set(rep.verdicts.values()) == {"nan/inf"}
    assert rep["a.weight"]["cause"].startswith("12 of 12 gradient values are NaN")

    model = Net()
    with lg.no_grad():
        model.a.bias.fill_(50.0)        # tanh saturated: d tanh = 0 in float32
    loss = run(model)
    rep = grad_report(model, loss)
    assert rep["a.weight"]["verdict"] == "vanishing" and rep["a.weight"]["zeros"] == 1.0
    assert "all zeros" in rep["a.weight"]["cause"]
    assert rep["b.weight"]["verdict"] == "ok"
    assert grad_report(model, loss, vanishing=-1)["a.weight"]["verdict"] == "ok"


def train(steps, with_optimizer=True, lr=0.1, call_step=True):
    lg.manual_seed(0)
    model = Net()
    opt = lg.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    mon = GradientMonitor(model, opt if with_optimizer else None)
    X = lg.randn(32, 3)
    Y = X.sum(1, keepdim=True)
    direct = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward()
        before = {n: p.detach().numpy().astype(np.float64).copy()
                  for n, p in model.named_parameters()}
        grads = {n: p.grad.numpy().astype(np.float64) for n, p in model.named_parameters()}
        opt.step()
        if call_step:
            mon.step(loss)
        row = {"loss": loss.item()}
        for layer in ("a", "b"):
            names = [layer + ".weight", layer + ".bias"]
            row["norm", layer] = math.sqrt(sum(np.sum(grads[n] ** 2) for n in names))
            d = sum(np.sum((model.get_parameter(n).detach().numpy() - before[n]) ** 2)
                    for n in names)
            row["ratio", layer] = math.sqrt(d / sum(np.sum(before[n] ** 2) for n in names))
        direct.append(row)
    return mon, direct


@pytest.mark.parametrize("with_optimizer", [True, False])
def test_monitor_records_equal_direct_computation(with_optimizer):
    mon, direct = train(6, with_optimizer)
    assert mon.layers == {"a": ["a.weight", "a.bias"], "b": ["b.weight", "b.bias"]}
    assert mon.labels == {"a": "a (Linear)", "b": "b (Linear)"}
    assert mon.steps == [1, 2, 3, 4, 5, 6]
    assert mon.losses == pytest.approx([r["loss"] for r in direct])
    for layer in ("a", "b"):
        assert mon.grad_norms[layer] == pytest.approx([r["norm", layer] for r in direct],
                                                       rel=1e-5)
        want = [r["ratio", layer] for r in direct]
        got = mon.update_ratios[layer]
        if not with_optimizer:      # without hooks on the optimizer: from the 2nd step on
            assert math.isnan(got[0])
            got, want = got[1:], want[1:]
        assert got == pytest.approx(want, rel=1e-4)
    mon.remove()


@pytest.mark.parametrize("with_optimizer", [True, False])
def test_monitor_records_without_step(with_optimizer):
    """Used as the README shows it, without monitor.step(): the hooks record each
    step (the losses are nan: only step(loss) gives them)."""
    mon, direct = train(6, with_optimizer, call_step=False)
    mine, _ = train(6, with_optimizer)
    h = mon.history
    assert sorted(h) == ["grad_norm", "loss", "step", "update_ratio"]
    assert h["step"] == [1, 2, 3, 4, 5, 6] and all(math.isnan(v) for v in h["loss"])
    for layer in ("a", "b"):
        assert h["grad_norm"][layer] == pytest.approx([r["norm", layer] for r in direct], 1e-5)
        np.testing.assert_allclose(h["update_ratio"][layer], mine.update_ratios[layer])
    assert mine.history["loss"] == pytest.approx([r["loss"] for r in direct])


def test_monitor_plot_with_nothing_recorded_says_why():
    model = Net()
    mon = GradientMonitor(model, lg.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(RuntimeError, match="nothing recorded yet"):
        mon.plot()
    with pytest.raises(RuntimeError, match="nothing recorded yet"):
        mon.plot_grad_norms()


@needs_matplotlib
def test_monitor_figures_show_the_records(tmp_path):
    mon, direct = train(5)
    fig = mon.plot(str(tmp_path / "m.png"))
    ax_loss, ax_norm, ax_hist = fig.axes
    assert list(ax_loss.get_lines()[0].get_ydata()) == pytest.approx([r["loss"] for r in direct])
    assert ax_norm.get_yscale() == "log"
    for line, layer in zip(ax_norm.get_lines(), ("a", "b")):
        assert line.get_label() == mon.labels[layer]
        assert list(line.get_ydata()) == pytest.approx([r["norm", layer] for r in direct], 1e-5)
        assert list(line.get_xdata()) == [1, 2, 3, 4, 5]
    for ax in fig.axes:
        assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    # the histograms count every gradient value of each layer
    assert len(ax_hist.patches) == 2
    for patch, layer in zip(ax_hist.patches, ("a", "b")):
        g = np.concatenate([mon._params[n].grad.numpy().astype(np.float64).ravel()
                            for n in mon.layers[layer]])
        values, edges, _ = patch.get_data()
        want, want_edges = np.histogram(g, bins=50)
        assert list(values) == list(want) and np.allclose(edges, want_edges)
        assert values.sum() == g.size
    assert open(tmp_path / "m.png", "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    fig = mon.plot_grad_norms(str(tmp_path / "g.png"))
    ax_ratio = fig.axes[1]
    assert list(ax_ratio.get_lines()[1].get_ydata()) == pytest.approx(
        [r["ratio", "b"] for r in direct], rel=1e-4)
    assert ax_ratio.get_ylabel().startswith("||Δ weights||")
