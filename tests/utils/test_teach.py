"""Teach mode (``leafgrad run --teach``, ``leafgrad.utils.teach``): each silent mistake is
reported at its line with the fix, stdout stays what a run without ``--teach`` prints, and
the correct version of each script stays silent."""
import io
import re
import subprocess
import sys
import textwrap

import pytest

from test_examples import child_env

TIMEOUT = 120
MARK = "# <- mistake"

# kind -> (a script that makes the mistake: each marked line must be reported with that
# kind; the same script done right: teach mode must say nothing)
SCRIPTS = {
    "zero_grad": ("""
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(8, 3), torch.randn(8, 1)
        for step in range(3):
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()  # <- mistake
            opt.step()
        print(round(loss.item(), 4))
        """, """
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(8, 3), torch.randn(8, 1)
        for step in range(3):
            opt.zero_grad()
            for half in (x[:4], x[4:]):          # gradient accumulation: two backward()s
                loss = ((model(half) - y[:4]) ** 2).mean()
                loss.backward()
            opt.step()
        for step in range(2):
            model.zero_grad(set_to_none=False)   # zeroed in place: also right
            ((model(x) - y) ** 2).mean().backward()
            opt.step()
        print(round(loss.item(), 4))

        class Critic(torch.nn.Module):           # a GAN: G's loss adds into D's gradients
            def __init__(self):                  # after D's step; D zeroes them before its
                super().__init__()               # next step, so no step uses them
                self.l = torch.nn.Linear(2, 2)

            def forward(self, h):
                return (h + self.l(h)).sum(dim=1)   # joins G's graph (before D's step)

        G, D = torch.nn.Linear(2, 2), Critic()
        opt_g = torch.optim.SGD(G.parameters(), lr=0.01)
        opt_d = torch.optim.SGD(D.parameters(), lr=0.01)
        for step in range(3):
            fake = G(torch.randn(4, 2))
            opt_d.zero_grad()
            d_loss = D(fake.detach()).mean() - D(torch.randn(4, 2)).mean()
            d_loss.backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = -D(fake).mean()
            g_loss.backward()
            opt_g.step()
        print(round(g_loss.item(), 4))
        """),
    "train_mode_eval": ("""
        import torch
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.5),
                                    torch.nn.Linear(8, 2))
        bn = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
        x = torch.randn(16, 4)
        with torch.no_grad():
            out = model(x)  # <- mistake
        with torch.inference_mode():
            z = bn(x)  # <- mistake
        print(round(out.sum().item(), 4), round(z.abs().sum().item(), 4))
        """, """
        import torch
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.5),
                                    torch.nn.Linear(8, 2))
        bn = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
        plain = torch.nn.Linear(4, 2)
        x = torch.randn(16, 4)
        model(x).sum().backward()                # training: dropout on, as it should be
        model.eval()
        bn.eval()
        with torch.no_grad():
            out = model(x)
            p = plain(x)                          # nothing that behaves differently
        with torch.inference_mode():
            z = bn(x)
        model.train()
        print(round(out.sum().item(), 4), round(z.sum().item(), 4), p.shape)
        """),
    "graph_kept": ("""
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(8, 3), torch.randn(8, 1)
        total = 0
        for step in range(4):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            total += loss  # <- mistake
        print(round(total.item(), 4))
        losses = []
        for step in range(3):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss)
        print(round(sum(losses).item(), 4))  # <- mistake
        """, """
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(8, 3), torch.randn(8, 1)
        total, kept = 0, 0
        for step in range(4):
            opt.zero_grad()
            out = model(x)
            loss = ((out - y) ** 2).mean() + 0.01 * (out ** 2).mean()   # one step's graph
            loss.backward()
            opt.step()
            total += loss.item()
            kept += loss.detach()
        print(round(total, 4), round(kept.item(), 4))
        G, D = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
        opt_g = torch.optim.SGD(G.parameters(), lr=0.01)
        opt_d = torch.optim.SGD(D.parameters(), lr=0.01)
        for step in range(3):
            fake = G(torch.randn(4, 2))
            l1 = (fake - 1).abs().mean()           # a term of G's loss, before D's step
            opt_d.zero_grad()
            D(fake.detach()).mean().backward()
            opt_d.step()
            opt_g.zero_grad()
            g_loss = l1 + D(fake).mean()           # joined after D's step: one loss
            g_loss.backward()
            opt_g.step()
        print(round(g_loss.item(), 4))
        """),
    "double_activation": ("""
        import torch
        import torch.nn.functional as F
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 3)
        x, y = torch.randn(6, 4), torch.tensor([0, 1, 2, 0, 1, 2])
        loss = torch.nn.CrossEntropyLoss()(torch.softmax(model(x), dim=1), y)  # <- mistake
        t = torch.rand(6, 3)
        loss2 = F.binary_cross_entropy_with_logits(model(x).sigmoid(), t)  # <- mistake
        loss3 = F.cross_entropy(F.log_softmax(model(x), dim=1), y)  # <- mistake
        (loss + loss2 + loss3).backward()
        print(round(loss.item(), 4), round(loss2.item(), 4), round(loss3.item(), 4))
        """, """
        import torch
        import torch.nn.functional as F
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 3)
        x, y = torch.randn(6, 4), torch.tensor([0, 1, 2, 0, 1, 2])
        loss = torch.nn.CrossEntropyLoss()(model(x), y)
        t = torch.rand(6, 3)
        loss2 = F.binary_cross_entropy_with_logits(model(x), t)
        loss3 = F.nll_loss(F.log_softmax(model(x), dim=1), y)
        loss4 = torch.nn.BCELoss()(torch.sigmoid(model(x)), t)
        (loss + loss2 + loss3 + loss4).backward()
        print(round(loss.item(), 4), round(loss2.item(), 4), round(loss3.item(), 4))
        """),
    "data_write": ("""
        import torch
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        x = torch.tensor([3.0, 4.0], requires_grad=True)
        y = (w * x).sum()
        w.data.mul_(0.5)  # <- mistake
        y.backward()
        v = torch.tensor([1.0, -1.0], requires_grad=True)
        z = (v * v).sum()
        v.data = torch.tensor([0.0, 0.0])  # <- mistake
        z.backward()
        print(x.grad, v.grad)
        u = torch.tensor([1.0], requires_grad=True)
        a = (u * u).sum()
        u.data.add_(1.0)  # <- mistake
        (torch.ones(1, requires_grad=True) * 2).sum().backward()   # another graph first
        a.backward()
        print(u.grad)
        """, """
        import torch
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        x = torch.tensor([3.0, 4.0])
        for step in range(3):
            y = ((w * x).sum() - 1) ** 2
            y.backward()
            w.data -= 0.01 * w.grad               # manual SGD after backward: fine
            w.grad.data.zero_()
        w.data = torch.tensor([1.0, 1.0])         # a reset between steps: fine
        print(w, w.data.sum())
        """),
    "no_grad_param": ("""
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.body = torch.nn.Linear(3, 4)
                self.head = torch.nn.Linear(4, 1)

            def forward(self, x):
                return self.body(x).relu().sum(dim=1, keepdim=True)   # head never used

        torch.manual_seed(0)
        net = Net()
        opt = torch.optim.Adam(net.parameters(), lr=0.01)
        x = torch.randn(5, 3)
        for step in range(2):
            opt.zero_grad()
            net(x).pow(2).mean().backward()
            opt.step()  # <- mistake
        print(net.head.weight.grad)
        w = torch.tensor([1.0, 2.0])              # forgot requires_grad=True
        opt2 = torch.optim.SGD([w], lr=0.1)
        opt2.step()  # <- mistake
        print(w)
        """, """
        import torch
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
        net[0].bias.requires_grad_(False)         # frozen on purpose
        opt = torch.optim.Adam(net.parameters(), lr=0.01)
        x = torch.randn(5, 3)
        for step in range(2):
            opt.zero_grad()
            net(x).pow(2).mean().backward()
            opt.step()
        print(net[0].bias.grad)
        lbfgs = torch.optim.LBFGS(net.parameters(), max_iter=3)

        def closure():                            # backward runs inside step()
            lbfgs.zero_grad()
            loss = net(x).pow(2).mean()
            loss.backward()
            return loss

        print(round(lbfgs.step(closure).item(), 4))
        """),
    "lr_explodes": ("""
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=3.0)
        x, y = torch.randn(32, 3), torch.randn(32, 1)
        for step in range(12):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()  # <- mistake
            opt.step()
        print(loss.item() > 1e3)
        """, """
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(32, 3), torch.randn(32, 1)
        for step in range(12):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
        print(loss.item() < 10)
        """),
}

REPORT = re.compile(r"^(?P<file>.+?):(?P<line>\d+): teach \[(?P<kind>\w+)\]: (?P<msg>.+)$")


def _run(script, teach, cwd):
    if teach is None:                    # real PyTorch
        args = [sys.executable, script]
    else:
        args = [sys.executable, "-m", "leafgrad", "run"] + (["--teach"] if teach else []) \
            + [script]
    return subprocess.run(args, cwd=str(cwd), env=child_env(), capture_output=True,
                          text=True, timeout=TIMEOUT)


def _reports(stderr):
    """(kind, file, line) of each report; every report has its fix on the next line."""
    lines = stderr.splitlines()
    out = []
    for i, ln in enumerate(lines):
        m = REPORT.match(ln)
        if m:
            assert i + 1 < len(lines) and lines[i + 1].startswith("    fix: "), stderr
            out.append((m["kind"], m["file"], int(m["line"])))
    return out


def _write(tmp_path, name, src):
    src = textwrap.dedent(src).lstrip("\n")
    path = tmp_path / name
    path.write_text(src)
    marked = [i for i, ln in enumerate(src.splitlines(), 1) if ln.rstrip().endswith(MARK)]
    return path, marked


@pytest.mark.parametrize("kind", sorted(SCRIPTS))
def test_mistake_reported_at_its_line(kind, tmp_path):
    path, marked = _write(tmp_path, "mistake.py", SCRIPTS[kind][0])
    taught, plain = _run(path.name, True, tmp_path), _run(path.name, False, tmp_path)
    assert taught.returncode == plain.returncode == 0, taught.stderr + plain.stderr
    assert taught.stdout == plain.stdout and taught.stdout
    assert plain.stderr == ""
    # and what PyTorch prints for the same script (the values are PyTorch's, taught or not)
    assert taught.stdout == _run(path.name, None, tmp_path).stdout
    got = _reports(taught.stderr)
    assert got == [(kind, path.name, n) for n in marked], taught.stderr   # as typed
    assert taught.stderr.count("teach [") == len(marked)     # once per (kind, line)


@pytest.mark.parametrize("kind", sorted(SCRIPTS))
def test_correct_script_is_silent(kind, tmp_path):
    path, marked = _write(tmp_path, "right.py", SCRIPTS[kind][1])
    assert marked == []
    taught = _run(path.name, True, tmp_path)
    assert taught.returncode == 0 and taught.stderr == "", taught.stderr
    assert taught.stdout


def test_script_in_a_folder_named_leafgrad(tmp_path):
    # the script's own frames are told from leafgrad's by the package's real directory
    folder = tmp_path / "leafgrad" / "src" / "leafgrad"
    folder.mkdir(parents=True)
    path, marked = _write(folder, "train.py", SCRIPTS["zero_grad"][0])
    taught = _run(str(path), True, tmp_path)
    shown = "leafgrad/src/leafgrad/train.py"        # under the current directory: relative
    assert _reports(taught.stderr) == [("zero_grad", shown, marked[0])], taught.stderr
    (tmp_path / "other").mkdir()
    elsewhere = _run(str(path), True, tmp_path / "other")   # not under it: the full path
    assert _reports(elsewhere.stderr) == [("zero_grad", str(path), marked[0])]


def test_teach_in_process_reports_and_restores():
    import leafgrad as torch
    from leafgrad._tensor import tensor as _tt
    from leafgrad.nn import functional as F
    from leafgrad.nn.modules.module import Module
    from leafgrad.optim import optimizer as _opt
    from leafgrad.utils import teach

    assert Module.__call__ is Module._call_impl       # off: nothing of teach mode in place
    before = (Module.__call__, _tt.Tensor.__dict__["data"], F.cross_entropy,
              _tt.Tensor.__iadd__, _tt._backward[0])
    buf = io.StringIO()
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with teach(file=buf) as t:
        assert teach.is_enabled()
        for _ in range(2):
            model(torch.ones(3, 2)).sum().backward()
            opt.step()
        assert Module.__call__ is not before[0]
    assert [r.kind for r in t.reports] == ["zero_grad"]
    assert t.reports[0].filename == __file__ and "zero_grad()" in t.reports[0].fix
    assert buf.getvalue() == str(t.reports[0]) + "\n"
    assert not teach.is_enabled()
    assert (Module.__call__, _tt.Tensor.__dict__["data"], F.cross_entropy,
            _tt.Tensor.__iadd__, _tt._backward[0]) == before
    assert not _opt._global_optimizer_pre_hooks and not _opt._global_optimizer_post_hooks


def test_peeking_the_sequence_number_takes_none():
    import leafgrad as torch
    from leafgrad.utils._teach import _peek_seq

    x = torch.ones(1, requires_grad=True)
    y = x * 2                   # x's AccumulateGrad (kept alive by y) takes a number too
    n = _peek_seq()
    assert _peek_seq() == n and (x * 2).grad_fn._sequence_nr() == n and y.grad_fn is not None


def test_a_failing_check_is_said_once_and_skipped(monkeypatch):
    import leafgrad as torch
    from leafgrad.utils import _teach, teach

    def check_loss(self, t, where):
        raise ValueError("planted")

    monkeypatch.setattr(_teach._Teacher, "check_loss", _teach._guarded()(check_loss))
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    w = torch.ones(2, requires_grad=True)
    with teach():
        for _ in range(2):
            (w * 3).sum().backward()
    assert w.grad.tolist() == [6.0, 6.0]
    assert err.getvalue() == ("leafgrad teach mode: the check check_loss failed (ValueError: "
                              "planted) and was skipped\n")


def test_teach_switch_and_nesting():
    import leafgrad as torch
    from leafgrad.utils import teach

    buf = io.StringIO()
    outer = teach(file=buf)
    try:
        with teach() as inner:           # nested: the outer one keeps it on
            pass
        assert teach.is_enabled() and inner.reports == []
        w = torch.ones(2, requires_grad=True)
        y = (w * w).sum()
        w.data.add_(1.0)
        y.backward()
        assert [r.kind for r in outer.reports] == ["data_write"]
    finally:
        teach(False)                     # off, whatever is open
    assert not teach.is_enabled()
    outer.close()                        # closing after the switch-off is harmless
    w2 = torch.ones(2, requires_grad=True)
    y2 = (w2 * w2).sum()
    w2.data.add_(1.0)
    y2.backward()
    assert len(outer.reports) == 1 and "teach mode off" in repr(outer)


def test_cli_teach_usage(tmp_path):
    p = subprocess.run([sys.executable, "-m", "leafgrad", "run", "--teach"], cwd=str(tmp_path),
                       env=child_env(), capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 2 and "missing the script to run" in p.stderr
    h = subprocess.run([sys.executable, "-m", "leafgrad", "run", "--help"], cwd=str(tmp_path),
                       env=child_env(), capture_output=True, text=True, timeout=TIMEOUT)
    assert h.returncode == 0 and "run [--teach] SCRIPT.py" in h.stdout


def test_cli_teach_module(tmp_path):
    # --teach before -m: the module runs as `python -m` does, watched the same way
    path, marked = _write(tmp_path, "mistake_mod.py", SCRIPTS["graph_kept"][0])
    p = subprocess.run([sys.executable, "-m", "leafgrad", "run", "--teach", "-m",
                        "mistake_mod"], cwd=str(tmp_path), env=child_env(),
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr
    assert _reports(p.stderr) == [("graph_kept", path.name, n) for n in marked], p.stderr


def test_loss_turning_nan_is_reported():
    import leafgrad as torch
    from leafgrad.utils import teach

    w = torch.ones(1, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    with teach(file=io.StringIO()) as t:
        for v in (1.0, 2.0, float("nan"), float("nan")):
            opt.zero_grad()
            loss = (w * v).sum()
            loss.backward()
            opt.step()
    assert [r.kind for r in t.reports] == ["lr_explodes"]
    assert "to nan in 2 optimizer steps" in t.reports[0].message
    assert "lr=0.1" in t.reports[0].message
