"""Issue 13's namespace check: every public name of ``torch.nn.functional``, every class
of ``torch.nn`` and every name of ``torch.linalg`` exists in leafgrad, except those listed
below with the reason (typing helpers and TorchScript machinery that torch's modules
import, docs fragments, CUDA-only FP8/grouped matmuls). A listed name that leafgrad gains,
or that PyTorch drops, fails the test (the list stays true).
"""
import inspect

import torch
import torch.nn.functional as TF

import leafgrad
import leafgrad.nn.functional as LF

_TYPING = "a typing/TorchScript helper torch.nn.functional imports, not part of its API"
_DOCS = "a docstring fragment (string) of PyTorch's documentation"
_MODULE = "a module torch.nn.functional happens to import"
LEFT_OUT_F = {
    "BroadcastingList1": _TYPING, "BroadcastingList2": _TYPING, "BroadcastingList3": _TYPING,
    "Callable": _TYPING, "DType": _TYPING, "Optional": _TYPING, "TYPE_CHECKING": _TYPING,
    "ScalingType": _TYPING, "SwizzleType": _TYPING, "boolean_dispatch": _TYPING,
    "assert_int_or_pair": _TYPING, "handle_torch_function": _TYPING,
    "has_torch_function": _TYPING, "has_torch_function_unary": _TYPING,
    "has_torch_function_variadic": _TYPING,
    "reproducibility_notes": _DOCS, "sparse_support_notes": _DOCS, "tf32_notes": _DOCS,
    "dataclasses": _MODULE, "importlib": _MODULE, "math": _MODULE, "torch": _MODULE,
    "warnings": _MODULE,
    "scaled_mm": "FP8 scaled matmul for CUDA tensor cores; leafgrad has no FP8 dtypes",
    "scaled_grouped_mm": "FP8 scaled grouped matmul for CUDA; no FP8 dtypes here",
    "grouped_mm": "a CUDA/bfloat16 grouped GEMM kernel; use torch.bmm / matmul per group",
}
LEFT_OUT_NN = {}
LEFT_OUT_LINALG = {"common_notes": _DOCS}


def _public(mod):
    return {n for n in dir(mod) if not n.startswith("_")}


def _check(missing, left_out, have):
    missing = sorted(missing - set(left_out))
    assert not missing, "PyTorch has these, leafgrad lacks them: %s" % missing
    stale = sorted(n for n in left_out if n in have)
    assert not stale, "listed as left out but present in leafgrad: %s" % stale


def test_every_functional_name_exists():
    have = _public(LF)
    _check(_public(TF) - have, LEFT_OUT_F, have)
    assert not [n for n in LEFT_OUT_F if n not in _public(TF)], "PyTorch dropped a name"


def test_every_nn_class_exists():
    classes = {n for n in _public(torch.nn) if inspect.isclass(getattr(torch.nn, n))}
    have = _public(leafgrad.nn)
    _check(classes - have, LEFT_OUT_NN, have)
    assert len(classes) > 150         # guards the test: it sees torch.nn's classes


def test_every_linalg_name_exists():
    have = _public(leafgrad.linalg)
    _check(_public(torch.linalg) - have, LEFT_OUT_LINALG, have)
