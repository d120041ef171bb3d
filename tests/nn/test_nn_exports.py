"""The export list of ``leafgrad.nn.modules`` (derived from each family file's ``__all__``)
against the classes the files define and against ``torch.nn``."""
import importlib
import pkgutil

import torch

import leafgrad
from leafgrad.nn import modules as M
from leafgrad.nn.modules.module import Module

# Module classes a family file defines without exporting them, and why
NOT_EXPORTED = {
    "linear.NonDynamicallyQuantizableLinear": (
        "torch.nn has it only as torch.nn.modules.linear.NonDynamicallyQuantizableLinear "
        "(the out_proj of MultiheadAttention), not in torch.nn"),
}


def _family_files():
    for info in pkgutil.iter_modules(M.__path__):
        if not info.name.startswith("_") and info.name != "module":
            yield info.name, importlib.import_module("leafgrad.nn.modules." + info.name)


def test_each_family_exports_exactly_the_layers_it_defines():
    wrong = []
    for name, mod in _family_files():
        defined = {n for n, v in vars(mod).items()
                   if isinstance(v, type) and issubclass(v, Module) and not n.startswith("_")
                   and v.__module__ == mod.__name__}
        defined -= {k.split(".", 1)[1] for k in NOT_EXPORTED if k.startswith(name + ".")}
        exported = set(mod.__all__)
        if exported != defined:
            wrong.append((name, sorted(defined - exported), sorted(exported - defined)))
    assert not wrong, "(file, defined but not in __all__, in __all__ but not defined): %s" % wrong


def test_not_exported_entries_are_current():
    for key in NOT_EXPORTED:
        fam, cls = key.split(".")
        mod = importlib.import_module("leafgrad.nn.modules." + fam)
        assert isinstance(getattr(mod, cls, None), type) and cls not in mod.__all__, key


def test_every_layer_is_exported_from_nn_once():
    names = []
    for _, mod in _family_files():
        names += mod.__all__
    assert len(names) == len(set(names)), "a layer name exported by two files"
    assert sorted(M.__all__) == sorted(["Module"] + names)
    for n in M.__all__:
        assert getattr(leafgrad.nn, n) is getattr(M, n), n


def test_every_exported_layer_is_one_torch_nn_has():
    extra = [n for n in M.__all__ if not hasattr(torch.nn, n)]
    assert not extra, "exported from leafgrad.nn but not in torch.nn: %s" % extra
    assert len(M.__all__) > 140      # guards the tests above: they must see the layers
