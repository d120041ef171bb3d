"""The ``leafgrad`` command: ``train``, ``run``, ``--version``, and the torch alias."""
import importlib.util
import re
import struct
import subprocess
import sys
import textwrap

import pytest

from test_examples import ROOT, child_env, leafgrad_cmd

TIMEOUT = 120


def run(args, cwd=None, cmd=None, **kw):
    cmd = leafgrad_cmd() if cmd is None else cmd
    return subprocess.run(cmd + list(args), cwd=str(cwd or ROOT), env=child_env(),
                          capture_output=True, text=True, timeout=TIMEOUT, **kw)


def py(code, cwd=None):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=str(cwd or ROOT),
                          env=child_env(), capture_output=True, text=True, timeout=TIMEOUT)


def accuracy(stdout):
    m = re.search(r"^test accuracy: (\d\.\d{4})$", stdout.splitlines()[-1])
    assert m, "no final 'test accuracy' line in:\n" + stdout
    return float(m.group(1))


# ------------------------------------------------------------------- train
needs_sklearn = pytest.mark.skipif(importlib.util.find_spec("sklearn") is None,
                                   reason="scikit-learn is not installed")


@pytest.fixture(scope="module")
def cancer_run():
    return run(["train", "--no-progress", "--seed", "0"])


@needs_sklearn
def test_train_breast_cancer(cancer_run):
    p = cancer_run
    assert p.returncode == 0, p.stderr
    assert accuracy(p.stdout) >= 0.95
    assert "BCELoss" in p.stdout
    # the per-parameter gradient table of the last mini-batch
    for name in ("hidden1.weight", "hidden1.bias", "hidden2.weight", "hidden2.bias",
                 "output.weight", "output.bias"):
        assert re.search(r"^\s+%s\s+\(" % re.escape(name), p.stdout, re.M), name
    assert "grad mean" in p.stdout and "grad abs max" in p.stdout
    # one line per epoch without the bar
    assert len(re.findall(r"^epoch\s+\d+/\d+", p.stdout, re.M)) == 30


@needs_sklearn
def test_train_same_seed_same_output(cancer_run):
    again = run(["train", "--no-progress", "--seed", "0"])
    assert again.returncode == 0, again.stderr
    assert again.stdout == cancer_run.stdout


@needs_sklearn
def test_train_other_seed_other_numbers(cancer_run):
    other = run(["train", "--no-progress", "--seed", "1", "--epochs", "3"])
    assert other.returncode == 0, other.stderr
    def first_epoch(out):
        return re.search(r"^epoch\s+1/\d+\s+(.*)$", out, re.M).group(1)
    assert first_epoch(other.stdout) != first_epoch(cancer_run.stdout)


@needs_sklearn
def test_train_digits(tmp_path):
    path = tmp_path / "digits.safetensors"
    p = run(["train", "--dataset", "digits", "--save", str(path)])   # with the tqdm bar
    assert p.returncode == 0, p.stderr
    assert accuracy(p.stdout) >= 0.95
    assert "CrossEntropyLoss" in p.stdout
    assert "epoch " not in p.stdout          # progress went to the bar (stderr)
    q = py("""
        import leafgrad
        sd = leafgrad.load(%r)
        print(sorted((k, tuple(v.shape)) for k, v in sd.items()))
        """ % str(path))
    assert q.returncode == 0, q.stderr
    assert "('output.weight', (10, 32))" in q.stdout
    assert "('hidden1.weight', (32, 64))" in q.stdout


def test_train_help_with_python_m():
    p = run(["train", "--help"], cmd=[sys.executable, "-m", "leafgrad"])
    assert p.returncode == 0, p.stderr
    for opt in ("--dataset", "--epochs", "--lr", "--hidden", "--batch-size", "--seed", "--save",
                "--plot"):
        assert opt in p.stdout


def test_train_without_sklearn():
    p = py("""
        import sys
        sys.modules['sklearn'] = None        # makes `import sklearn` fail
        from leafgrad.cli import main
        sys.exit(main(['train']))
        """)
    assert p.returncode != 0
    assert "pip install leafgrad[demo]" in p.stderr
    assert "Traceback" not in p.stderr


@needs_sklearn
def test_train_without_tqdm_prints_epochs():
    p = py("""
        import sys
        sys.modules['tqdm'] = sys.modules['tqdm.auto'] = None
        from leafgrad.cli import main
        sys.exit(main(['train', '--epochs', '2']))
        """)
    assert p.returncode == 0, p.stderr
    assert len(re.findall(r"^epoch \d/2 ", p.stdout, re.M)) == 2


needs_matplotlib = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                                      reason="matplotlib is not installed")


@needs_sklearn
@needs_matplotlib
def test_train_plot_writes_a_png(tmp_path):
    from matplotlib.image import imread
    png = tmp_path / "curves.png"
    p = run(["train", "--no-progress", "--epochs", "3", "--plot", str(png)])
    assert p.returncode == 0, p.stderr
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    assert struct.unpack(">II", data[16:24]) == (900, 360)
    pixels = imread(str(png))            # decodes the whole file
    assert pixels.shape[:2] == (360, 900) and pixels.std() > 0    # not a blank image
    # the output of the same run without --plot, plus one line before the test results
    plain = run(["train", "--no-progress", "--epochs", "3"])
    assert plain.returncode == 0, plain.stderr
    note = "saved the loss and accuracy curves (3 epochs) to %s" % png
    lines = p.stdout.splitlines()
    assert lines[-3] == note
    assert [line for line in lines if line != note] == plain.stdout.splitlines()


@needs_sklearn
@needs_matplotlib
def test_train_plot_shows_the_recorded_history(tmp_path, monkeypatch, capsys):
    from leafgrad import train
    seen = {}
    plot_history = train.plot_history

    def spy(history, path=None, title=None):
        seen["history"] = list(history)
        seen["figure"] = plot_history(history, path, title)
        return seen["figure"]

    monkeypatch.setattr(train, "plot_history", spy)
    png = tmp_path / "digits.png"
    assert train.main(["--dataset", "digits", "--epochs", "4", "--no-progress",
                       "--plot", str(png)]) == 0
    assert png.stat().st_size > 0
    printed = [tuple(float(v) for v in m) for m in re.findall(
        r"^epoch \d/4  loss (\S+)  acc (\S+)  test loss (\S+)  test acc (\S+)$",
        capsys.readouterr().out, re.M)]
    history = seen["history"]
    assert len(history) == len(printed) == 4
    for row, shown in zip(history, printed):       # the history is what the epochs printed
        assert row == pytest.approx(shown, abs=5e-5)
    fig = seen["figure"]
    assert fig._suptitle.get_text() == "digits, leafgrad"
    ax_loss, ax_acc = fig.axes
    for ax, ylabel, cols in ((ax_loss, "loss", (0, 2)), (ax_acc, "accuracy", (1, 3))):
        assert ax.get_ylabel() == ylabel
        lines = ax.get_lines()
        assert [line.get_label() for line in lines] == ["train", "test"]
        for line, c in zip(lines, cols):
            assert list(line.get_xdata()) == [1, 2, 3, 4]
            assert list(line.get_ydata()) == [row[c] for row in history]


@pytest.mark.parametrize("option", ["--plot", "--report"])
def test_train_plot_without_matplotlib(tmp_path, option):
    png = tmp_path / "out"
    p = py("""
        import sys
        sys.modules['matplotlib'] = None        # makes `import matplotlib` fail
        from leafgrad.cli import main
        sys.exit(main(['train', %r, %r]))
        """ % (option, str(png)))
    assert p.returncode == 1
    # the option the user passed, and the install that works from a checkout
    assert "error: %s needs matplotlib" % option in p.stderr
    assert ".venv/bin/pip install -e '.[plot]'" in p.stderr
    assert "Traceback" not in p.stderr
    assert p.stdout == "" and not png.exists()     # refused before training


def test_train_bad_option():
    p = run(["train", "--epochs", "0"])
    assert p.returncode == 2 and "--epochs" in p.stderr


# --------------------------------------------------------------- top level
def test_version():
    import leafgrad
    for cmd in (leafgrad_cmd(), [sys.executable, "-m", "leafgrad"]):
        p = run(["--version"], cmd=cmd)
        assert p.returncode == 0
        assert p.stdout.strip() == "leafgrad %s" % leafgrad.__version__


def test_unknown_command():
    p = run(["frobnicate"])
    assert p.returncode == 2 and "unknown command" in p.stderr


def test_import_leafgrad_does_not_import_torch():
    p = py("""
        import sys
        import leafgrad, leafgrad.cli, leafgrad.train, leafgrad._compat.torch_alias
        import leafgrad.nn, leafgrad.optim, leafgrad.utils.data
        bad = sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.'))
        print(bad)
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


# --------------------------------------------------------------------- run
def test_run_argv_name_path_and_exit_code(tmp_path):
    (tmp_path / "helper_mod.py").write_text("VALUE = 42\n")
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import os, sys
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.autograd import grad
        from torch.utils.data import DataLoader
        import helper_mod                      # found next to the script
        print(sys.argv[1:])
        print(os.path.basename(sys.argv[0]), __name__)
        print(torch.__name__, nn.__name__, F.__name__, grad.__module__.split('.')[0])
        print(torch.nn.functional is F, torch.optim.SGD.__module__.split('.')[0])
        print(helper_mod.VALUE)
        sys.exit(int(sys.argv[1]))
        """))
    p = run(["run", str(script), "7", "--flag", "x y"], cwd=tmp_path.parent)
    assert p.returncode == 7, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "['7', '--flag', 'x y']"
    assert lines[1] == "script.py __main__"
    assert lines[2] == "leafgrad leafgrad.nn leafgrad.nn.functional leafgrad"
    assert lines[3] == "True leafgrad"
    assert lines[4] == "42"
    p = run(["run", str(script), "0"])
    assert p.returncode == 0, p.stderr


def test_run_uncaught_exception_traceback(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text("import torch\n\ndef f():\n    return 1 / 0\n\nprint('before')\nf()\n")
    p = run(["run", str(script)])
    assert p.returncode == 1
    assert p.stdout == "before\n"
    err = p.stderr
    assert err.startswith("Traceback (most recent call last):"), err
    assert 'boom.py", line 7, in <module>' in err
    assert 'line 4, in f' in err
    assert err.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "cli.py" not in err          # the runner's own frames are left out


def test_run_exception_from_leafgrad_is_a_torch_like_error(tmp_path):
    script = tmp_path / "freed.py"
    script.write_text("import torch\nx = torch.tensor(2.0, requires_grad=True)\n"
                      "y = x * x\ny.backward()\ny.backward()\n")
    p = run(["run", str(script)])
    assert p.returncode == 1
    assert "Traceback" in p.stderr and "Error" in p.stderr.splitlines()[-1]


def test_run_missing_script_and_syntax_error(tmp_path):
    p = run(["run", str(tmp_path / "nope.py")])
    assert p.returncode == 2 and "nope.py" in p.stderr
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    p = run(["run", str(bad)])
    assert p.returncode == 1 and "SyntaxError" in p.stderr
    p = run(["run"])
    assert p.returncode == 2


def test_run_with_python_m_and_system_exit_message(tmp_path):
    script = tmp_path / "msg.py"
    script.write_text("import sys, torch\nsys.exit('bad input: ' + torch.__name__)\n")
    p = run(["run", str(script)], cmd=[sys.executable, "-m", "leafgrad"])
    assert p.returncode == 1
    assert p.stderr.strip() == "bad input: leafgrad"


def _module_tree(tmp_path):
    """A package with a ``__main__`` and a plain module, both reporting what ``-m`` gives them."""
    pkg = tmp_path / "probe_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    report = textwrap.dedent("""
        import os, sys
        import torch
        print(sys.argv[1:], os.path.basename(sys.argv[0]), __name__, __spec__.name)
        print(sys.path[0] == os.getcwd(), torch.__name__)
        sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
        """)
    (pkg / "__main__.py").write_text(report)
    (tmp_path / "probe_mod.py").write_text(report)
    return tmp_path


def test_run_m_is_python_m(tmp_path):
    cwd = _module_tree(tmp_path)
    for mod in ("probe_pkg", "probe_mod"):
        ours = run(["run", "-m", mod, "5", "--flag", "x y"], cwd=cwd)
        plain = subprocess.run([sys.executable, "-m", mod, "5", "--flag", "x y"],
                               cwd=str(cwd), env=child_env(), capture_output=True, text=True,
                               timeout=TIMEOUT)
        assert ours.returncode == plain.returncode == 5, ours.stderr
        # the same argv, __name__, spec and sys.path[0]; only torch differs: leafgrad here
        assert plain.stdout.splitlines()[1].endswith(" torch"), plain.stdout
        assert ours.stdout.splitlines()[1].endswith(" leafgrad"), ours.stdout
        assert ours.stdout.splitlines()[0] == plain.stdout.splitlines()[0]
        assert ours.stdout.split()[-2] == plain.stdout.split()[-2] == "True"


def test_run_m_forms_and_errors(tmp_path):
    cwd = _module_tree(tmp_path)
    p = run(["run", "-mprobe_mod", "0"], cwd=cwd)            # -mNAME, as python takes it
    assert p.returncode == 0 and "probe_mod" in p.stdout, p.stderr
    p = run(["run", "--", "-m", "probe_mod", "0"], cwd=cwd)
    assert p.returncode == 0, p.stderr
    p = run(["run", "-m", "no_such_module_here"], cwd=cwd)
    plain = subprocess.run([sys.executable, "-m", "no_such_module_here"], cwd=str(cwd),
                           env=child_env(), capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == plain.returncode == 1
    assert p.stderr.strip().endswith("No module named no_such_module_here"), p.stderr
    p = run(["run", "-m"], cwd=cwd)
    assert p.returncode == 2 and "-m expects a module name" in p.stderr
    (cwd / "boom_mod.py").write_text("import torch\n\ndef f():\n    return 1 / 0\n\nf()\n")
    p = run(["run", "-m", "boom_mod"], cwd=cwd)
    assert p.returncode == 1
    assert 'boom_mod.py", line 4, in f' in p.stderr
    assert p.stderr.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "cli.py" not in p.stderr


def test_run_m_pytest_runs_a_suite_on_leafgrad(tmp_path):
    (tmp_path / "test_lib.py").write_text(textwrap.dedent("""
        import torch
        import torch.nn as nn

        def test_torch_is_leafgrad():
            assert torch.__name__ == "leafgrad"
            x = torch.ones(2, requires_grad=True)
            (x * x).sum().backward()
            assert x.grad.tolist() == [2.0, 2.0]

        def test_module():
            assert nn.Linear(2, 3).weight.shape == (3, 2)

        def test_fails():
            assert torch.zeros(1).item() == 1.0
        """))
    p = run(["run", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_lib.py"],
            cwd=tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr        # pytest's code: a test failed
    assert re.search(r"1 failed, 2 passed", p.stdout), p.stdout
    p = run(["run", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_lib.py",
             "-k", "not fails"], cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr


# ------------------------------------------------------------------- alias
def test_alias_install_uninstall():
    p = py("""
        import importlib, sys
        import leafgrad
        from leafgrad._compat import torch_alias as _torch_alias
        _torch_alias.install(); _torch_alias.install()          # idempotent
        assert sum(isinstance(f, _torch_alias.TorchAlias) for f in sys.meta_path) == 1
        import torch, torch.nn.functional as F
        from torch.nn import Linear
        assert torch is leafgrad and F is leafgrad.nn.functional
        assert Linear is leafgrad.nn.Linear
        assert importlib.import_module('torch.optim') is leafgrad.optim
        # leafgrad keeps its own identity (relative imports, pickling)
        assert torch.__name__ == 'leafgrad' and torch.__spec__.name == 'leafgrad'
        assert F.__spec__.name == 'leafgrad.nn.functional'
        try:
            import torch.no_such_module
        except ModuleNotFoundError as e:
            assert e.name == 'torch.no_such_module', e.name
        else:
            raise AssertionError('no error')
        import torch.backends.cudnn as cudnn        # namespace objects import too
        import torch.cuda
        assert cudnn is leafgrad.backends.cudnn and not torch.cuda.is_available()
        for name in ('torch.Tensor', 'torch.float32', 'torch.tensor', 'torch.nn.nope'):
            try:
                importlib.import_module(name)
            except ModuleNotFoundError:
                pass
            else:
                raise AssertionError(name + ' imported')
        _torch_alias.uninstall()
        assert not any(m == 'torch' or m.startswith('torch.') for m in sys.modules)
        with _torch_alias.aliased():
            import torch
            assert torch is leafgrad
        assert 'torch' not in sys.modules and not _torch_alias.is_installed()
        print('ok')
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"


def test_alias_refuses_when_real_torch_is_loaded():
    p = py("""
        import sys, types
        sys.modules['torch'] = types.ModuleType('torch')    # stands for the real one
        from leafgrad._compat import torch_alias as _torch_alias
        try:
            _torch_alias.install()
        except RuntimeError as e:
            print('refused')
        """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "refused"


@needs_sklearn
@needs_matplotlib
def test_train_report_writes_valid_files(tmp_path):
    import shutil
    out = tmp_path / "rep"
    p = run(["train", "--no-progress", "--epochs", "2", "--report", str(out)])
    assert p.returncode == 0, p.stderr
    assert (out / "loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "grad_norms.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (out / "report.md").read_text()
    assert md.startswith("# leafgrad train report: breast_cancer, leafgrad")
    start, end = md.split("## Gradient health at the end")
    assert "## Gradient health at the start" in start
    for part in (start, end):
        assert "| hidden1.weight | (32, 30) |" in part and "| ok |" in part
    assert "![training loss per mini-batch](loss.png)" in md
    graph = "graph.svg" if shutil.which("dot") else "graph.dot"
    text = (out / graph).read_text()
    assert ("<svg" in text) if graph == "graph.svg" else text.startswith("digraph")
    assert "hidden1.weight.grad" in text and "BinaryCrossEntropyBackward0" in text
    for name in ("loss.png", "grad_norms.png", graph, "report.md"):
        assert "wrote %s" % (out / name) in p.stdout
    # the rest of the output is the run without --report
    plain = run(["train", "--no-progress", "--epochs", "2"])
    assert [l for l in p.stdout.splitlines() if not l.startswith("wrote ")] == \
        plain.stdout.splitlines()


def test_train_compile_prints_eager_numbers(cancer_run):
    compiled = run(["train", "--no-progress", "--seed", "0", "--compile"])
    assert compiled.returncode == 0, compiled.stderr
    assert compiled.stdout == cancer_run.stdout
