"""Every class of every ``torch.nn.modules.<file>`` is reachable as
``leafgrad.nn.modules.<file>.<Class>`` (real code writes ``nn.modules.batchnorm._BatchNorm``,
``torch.nn.modules.activation.MultiheadAttention``), unless it is listed in LEFT_OUT
with a reason. The classes come from torch at test time, so a class PyTorch adds, or one
leafgrad defines in another file than PyTorch's, fails here."""
import importlib
import inspect
import pkgutil

import pytest
import torch

import leafgrad.nn.modules as LM

# Files of torch.nn.modules that are internals of PyTorch's C++ autograd or kernels.
SKIP_FILES = {"_functions", "linear_cross_entropy", "linear_cross_entropy_options", "utils"}

LEFT_OUT = {
    "_NormBase": "PyTorch's private base; leafgrad's batch and instance norms share no base",
    "_LazyNormBase": "PyTorch's private base of the lazy norms",
    "_ConvTransposeMixin": "deprecated private mixin of PyTorch",
    "_LazyConvXdMixin": "PyTorch's private mixin; leafgrad's lazy layers use their own",
    "_LazyProtocol": "a typing Protocol of PyTorch's lazy modules",
    "LazyModuleMixin": "not exported yet: leafgrad's lazy mixin has another interface",
    "_WrappedHook": "PyTorch's private hook wrapper",
    "_ReflectionPadNd": "PyTorch's private base of the reflection pads",
    "_ReplicationPadNd": "PyTorch's private base of the replication pads",
}


def _leafgrad_classes():
    out = {}
    for info in pkgutil.iter_modules(LM.__path__):
        mod = importlib.import_module("leafgrad.nn.modules." + info.name)
        for n, v in vars(mod).items():
            if inspect.isclass(v) and v.__module__ == mod.__name__:
                out[n] = v
    return out


def _torch_classes():
    for info in pkgutil.iter_modules(torch.nn.modules.__path__):
        if info.name in SKIP_FILES:
            continue
        tm = importlib.import_module("torch.nn.modules." + info.name)
        for n, v in vars(tm).items():
            if inspect.isclass(v) and v.__module__ == tm.__name__:
                yield info.name, n


TORCH = sorted(_torch_classes())


@pytest.mark.parametrize("torch_file,name", TORCH, ids=["%s.%s" % p for p in TORCH])
def test_each_torch_class_is_in_its_torch_file(torch_file, name):
    ours = _leafgrad_classes()
    if name not in ours:
        assert name in LEFT_OUT, (
            "torch.nn.modules.%s.%s has no leafgrad class: add it, or list it in LEFT_OUT "
            "with a reason" % (torch_file, name))
        return
    assert name not in LEFT_OUT, "%s exists now: remove it from LEFT_OUT" % name
    module = importlib.import_module("leafgrad.nn.modules." + torch_file)
    assert getattr(module, name, None) is ours[name], (
        "leafgrad.nn.modules.%s.%s is missing: define it in that file, as PyTorch"
        % (torch_file, name))


def test_public_ones_are_leafgrad_nn_names():
    import leafgrad.nn as nn
    for torch_file, name in TORCH:
        if name in LEFT_OUT:
            continue
        module = importlib.import_module("leafgrad.nn.modules." + torch_file)
        if not name.startswith("_") and hasattr(torch.nn, name):
            assert getattr(nn, name) is getattr(module, name), name


def test_torch_file_imports_under_leafgrad_run(tmp_path):
    import subprocess
    import sys
    script = tmp_path / "s.py"
    script.write_text("import torch\nimport torch.nn.modules.batchnorm as b\n"
                      "from torch.nn.modules.activation import MultiheadAttention\n"
                      "print(isinstance(torch.nn.BatchNorm1d(2), b._BatchNorm), "
                      "MultiheadAttention is torch.nn.MultiheadAttention)\n")
    out = subprocess.run([sys.executable, "-m", "leafgrad", "run", str(script)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True"]
