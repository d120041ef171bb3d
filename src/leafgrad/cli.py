"""The ``leafgrad`` command.

    leafgrad run SCRIPT.py [ARGS...]   run a PyTorch script with ``torch`` -> leafgrad
    leafgrad run -m MODULE [ARGS...]   run a module as ``python -m`` does (``-m pytest tests/``)
    leafgrad run --teach SCRIPT.py     the same, reporting the silent training mistakes on stderr
    leafgrad train [OPTIONS]           train the demo MLP (see ``leafgrad train --help``)
    leafgrad --version

``python -m leafgrad ...`` is the same command.
"""
import builtins
import io
import os
import sys
import types

from . import __version__

_USAGE = """\
usage: leafgrad [-h] [--version] {run,train} ...

Reverse-mode autodiff on NumPy with PyTorch's API.

commands:
  run SCRIPT.py [ARGS...]   run an unmodified PyTorch script with `import torch`
                            answered by leafgrad (sys.argv = [SCRIPT.py, ARGS...])
  run -m MODULE [ARGS...]   the same for a module, as `python -m MODULE` (e.g.
                            `leafgrad run -m pytest tests/` runs a library's tests)
  run --teach SCRIPT.py     run it in teach mode: the silent training mistakes
                            (no zero_grad, eval in training mode, ...) reported
                            on stderr with the line and the fix
  train [OPTIONS]           train a small MLP on scikit-learn data (needs
                            `pip install leafgrad[demo]`); see `leafgrad train --help`

options:
  -h, --help                show this help and exit
  --version                 print the version and exit
"""


def _prog():
    base = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "leafgrad"
    return "python -m leafgrad" if base in ("__main__.py", "-m", "-c") else "leafgrad"


# ----------------------------------------------------------------------- run
def _trim_traceback(tb, filename):
    """Drop the frames of this runner, so the traceback starts in the script."""
    cur = tb
    while cur is not None:
        if cur.tb_frame.f_code.co_filename == filename:
            return cur
        cur = cur.tb_next
    return tb


def run_script(path, args=()):
    """Run ``path`` as ``__main__`` with torch aliased to leafgrad; return an exit code.

    Behaves like ``python path args...``: ``sys.argv`` is ``[path, *args]``,
    the script's folder comes first on ``sys.path``, ``__name__`` is
    ``"__main__"``; ``sys.exit`` inside the script leaves with its code (the
    ``SystemExit`` propagates), an uncaught exception prints the usual
    traceback (starting at the script) through ``sys.excepthook`` and gives 1.
    """
    from ._compat import torch_alias as _torch_alias

    if not os.path.exists(path):
        sys.stderr.write("%s run: can't open file %r: [Errno 2] No such file or directory\n"
                         % (_prog(), path))
        return 2
    if os.path.isdir(path) or (not path.endswith((".py", ".pyw")) and _is_zip(path)):
        return _run_package(path, args)

    _torch_alias.install()
    with io.open_code(path) as fh:
        source = fh.read()
    filename = os.path.abspath(path)   # like the interpreter (3.9+): absolute __file__
    try:
        code = compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError:
        exc_type, exc, _ = sys.exc_info()
        sys.excepthook(exc_type, exc, None)
        return 1

    main = types.ModuleType("__main__")
    main.__dict__.update({"__file__": filename, "__builtins__": builtins,
                          "__spec__": None, "__package__": None, "__cached__": None,
                          "__loader__": None})
    sys.modules["__main__"] = main
    sys.argv = [path, *args]
    sys.path[0] = os.path.dirname(filename)
    try:
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - report it like the interpreter would
        tb = _trim_traceback(exc.__traceback__, filename)
        exc.__traceback__ = tb
        sys.stdout.flush()
        sys.excepthook(type(exc), exc, tb)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    return 0


def _is_zip(path):
    import zipfile
    return zipfile.is_zipfile(path)


def _run_package(path, args):
    """A directory or zip file with a ``__main__.py``, like ``python DIR``."""
    import runpy
    from ._compat import torch_alias as _torch_alias

    _torch_alias.install()
    sys.argv = [path, *args]
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001
        sys.stdout.flush()
        sys.excepthook(type(exc), exc, exc.__traceback__)
        return 1
    return 0


def run_module(name, args=()):
    """Run module ``name`` as ``python -m name args...`` with torch aliased; return an exit code.

    As the interpreter's ``-m``: the current directory comes first on
    ``sys.path``, ``sys.argv`` is ``[<the module's file>, *args]``, a package
    runs its ``__main__``; ``sys.exit`` leaves with its code (the
    ``SystemExit`` propagates); a module that cannot be found prints
    ``No module named ...`` and gives 1, as ``python -m`` does.
    """
    import runpy
    from ._compat import torch_alias as _torch_alias

    _torch_alias.install()
    sys.argv = [name, *args]      # runpy replaces argv[0] with the module's file
    sys.path[0] = os.getcwd()
    try:
        runpy._run_module_as_main(name, alter_argv=True)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - report it like the interpreter would
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            tb = tb.tb_next              # this runner's frames; runpy's stay, as with -m
        exc.__traceback__ = tb
        sys.stdout.flush()
        sys.excepthook(type(exc), exc, tb)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    return 0


def _run_command(rest, prog):
    """``leafgrad run [--teach] SCRIPT.py ARGS`` / ``run [--teach] -m MODULE ARGS``."""
    if rest and rest[0] in ("-h", "--help"):
        print("usage: %s run [--teach] SCRIPT.py [ARGS...]\n"
              "       %s run [--teach] -m MODULE [ARGS...]\n\nRun a PyTorch script unchanged, "
              "with `import torch` (and torch.nn, torch.optim, ...) answered by "
              "leafgrad.\nThe script sees sys.argv == [SCRIPT.py, ARGS...] and "
              "__name__ == '__main__';\nits exit status is leafgrad's. With -m, "
              "MODULE runs as `python -m MODULE` does:\n`%s run -m pytest tests/` "
              "runs a library's test suite on leafgrad.\n\nWith --teach (before SCRIPT.py or "
              "-m), the silent training mistakes are reported on stderr\nwith the line and "
              "the fix (forgotten zero_grad(), evaluation in training mode,\na running total "
              "that keeps graphs alive, softmax fed to cross_entropy, .data\nwrites, "
              "parameters without a gradient, a loss that explodes); stdout and\nthe "
              "results are unchanged." % (prog, prog, prog))
        return 0
    if not rest:
        sys.stderr.write("usage: %s run SCRIPT.py [ARGS...]\n%s run: error: missing "
                         "the script to run\n" % (prog, prog))
        return 2
    if rest[0] == "--teach":
        rest = rest[1:]
        if not rest:
            sys.stderr.write("usage: %s run --teach SCRIPT.py [ARGS...]\n%s run: error: "
                             "missing the script to run\n" % (prog, prog))
            return 2
        from .utils._teach import teach
        teach()
    if rest[0] == "--":
        rest = rest[1:]
    if rest and rest[0] == "-m":
        if len(rest) < 2:
            sys.stderr.write("usage: %s run -m MODULE [ARGS...]\n%s run: error: "
                             "argument -m expects a module name\n" % (prog, prog))
            return 2
        return run_module(rest[1], rest[2:])
    if rest and rest[0].startswith("-m") and len(rest[0]) > 2:   # -mpytest, as python
        return run_module(rest[0][2:], rest[1:])
    return run_script(rest[0], rest[1:])


# ---------------------------------------------------------------------- main
def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = _prog()
    if not argv or argv[0] in ("-h", "--help", "help"):
        (sys.stdout if argv else sys.stderr).write(
            _USAGE.replace("usage: leafgrad", "usage: " + prog))
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd in ("--version", "-V", "version"):
        print("leafgrad %s" % __version__)
        return 0
    if cmd == "run":
        return _run_command(rest, prog)
    if cmd == "train":
        from . import train
        return train.main(rest, prog="%s train" % prog)
    sys.stderr.write("%s: error: unknown command %r (choose from 'run', 'train'; see "
                     "%s --help)\n" % (prog, cmd, prog))
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
