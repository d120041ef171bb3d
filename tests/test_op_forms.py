"""The surface derived from the op declarations (leafgrad/ops/_registry.py) against real
PyTorch: every form PyTorch has for a declared op (``torch.X``, ``Tensor.X``, ``Tensor.X_``)
exists in leafgrad unless listed below with a reason, no declared form is one PyTorch
lacks, and the Python-number argument rules of every binary op are PyTorch's."""
import numpy as np
import pytest
import torch

import leafgrad
from leafgrad.nn import functional as F_lg
from leafgrad.ops._registry import OPS

# Forms PyTorch has for a declared op that leafgrad leaves out, and why.
_ATEN_LOSS = ("ATen's form: reduction is an int enum (torch.nn._reduction); "
              "nn.functional.%s is the supported form")
LEFT_OUT = {
    "torch.binary_cross_entropy_with_logits": _ATEN_LOSS % "binary_cross_entropy_with_logits",
    "torch.kl_div": _ATEN_LOSS % "kl_div",
    "torch.margin_ranking_loss": _ATEN_LOSS % "margin_ranking_loss",
    "torch.hinge_embedding_loss": _ATEN_LOSS % "hinge_embedding_loss",
    "torch.cosine_embedding_loss": _ATEN_LOSS % "cosine_embedding_loss",
    "torch.layer_norm": "ATen's form takes cudnn_enable; nn.functional.layer_norm is the form",
    "torch.group_norm": "ATen's form takes cudnn_enabled; nn.functional.group_norm is the form",
    "torch.embedding": ("ATen's form takes (weight, indices), the reverse of "
                        "nn.functional.embedding, which is the form"),
    "torch.batch_norm": ("ATen's form orders weight, bias before the running stats and takes "
                         "cudnn_enabled; nn.functional.batch_norm is the form"),
    "torch.poisson_nll_loss": _ATEN_LOSS % "poisson_nll_loss",
    "torch.triplet_margin_loss": _ATEN_LOSS % "triplet_margin_loss",
    "torch.ctc_loss": _ATEN_LOSS % "ctc_loss",
    "torch.instance_norm": ("ATen's form requires every argument (use_input_stats, momentum, "
                            "eps, cudnn_enabled); nn.functional.instance_norm is the form"),
    "torch.embedding_bag": ("ATen's form takes (weight, indices, offsets), mode as an int, and "
                            "returns four tensors; nn.functional.embedding_bag is the form"),
    "torch.adaptive_max_pool1d": ("ATen's form always returns (values, indices); "
                                  "nn.functional.adaptive_max_pool1d is the form"),
    "torch.rrelu": ("ATen's form takes generator= where nn.functional.rrelu takes inplace=; "
                    "nn.functional.rrelu is the form"),
}


def _torch_has(form):
    where, name = form.split(".")
    if where == "torch":
        return hasattr(torch, name)
    if where == "F":
        return hasattr(torch.nn.functional, name)
    return hasattr(torch.Tensor, name)


def _leafgrad_has(form):
    where, name = form.split(".")
    if where == "torch":
        return hasattr(leafgrad, name)
    if where == "F":
        return hasattr(F_lg, name)
    return hasattr(leafgrad.Tensor, name)


def _forms(name):
    return ("torch." + name, "Tensor." + name, "Tensor." + name + "_")


def _declared_forms(d):
    out = set()
    for n in d.names():
        if d.form("function"):
            out.add("torch." + n)
        if d.form("method"):
            out.add("Tensor." + n)
        if d.inplace:
            out.add("Tensor." + n + "_")
        if d.form("functional"):
            out.add("F." + n)
    return out


def test_declarations_are_found():
    # guards the tests below: they must see the declared ops
    for name in ("exp", "add", "atan2", "clamp", "eq", "where"):
        assert name in OPS
    assert len(OPS) > 60


def test_every_pytorch_form_of_a_declared_op_exists():
    missing = []
    for d in OPS.values():
        for n in d.names():
            for form in _forms(n):
                if _torch_has(form) and not _leafgrad_has(form) and form not in LEFT_OUT:
                    missing.append(form)
    assert not missing, ("PyTorch has these forms of declared ops; declare them (ops/ "
                         "declaration) or list them in LEFT_OUT with a reason: %s" % missing)


def test_declared_forms_exist_and_pytorch_has_them():
    extra, absent = [], []
    for d in OPS.values():
        for form in _declared_forms(d):
            if not _torch_has(form):
                extra.append(form)
            if not _leafgrad_has(form):
                absent.append(form)
    assert not extra, "declared forms PyTorch does not have: %s" % sorted(extra)
    assert not absent, "declared forms missing from leafgrad: %s" % sorted(absent)


def _wraps(got, fn):
    """``got`` is ``fn`` or a thin wrapper of it (refusing out=, numpy's axis= aliases):
    its ``__wrapped__`` chain reaches ``fn``."""
    while got is not None:
        if got is fn:
            return True
        got = getattr(got, "__wrapped__", None)
    return False


def test_derived_forms_are_the_declared_functions():
    # bound to the declared op: at most thin wrappers (__wrapped__) between them
    for d in OPS.values():
        m, f = d.form("method"), d.form("function")
        for n in d.names():
            if m is not None and n not in ("sum", "mean"):
                assert _wraps(leafgrad.Tensor.__dict__[n], m), n
            if f is not None:
                assert _wraps(getattr(leafgrad, n), f), n


def test_left_out_entries_are_current():
    stale = [f for f in LEFT_OUT if _leafgrad_has(f) or not _torch_has(f)]
    assert not stale, "LEFT_OUT entries that leafgrad now has (or PyTorch lacks): %s" % stale


def test_help_is_meaningful():
    for name in ("exp", "sin", "add", "clamp"):
        assert leafgrad.Tensor.__dict__[name].__doc__
        assert leafgrad.Tensor.__dict__[name + "_"].__doc__ or name in ("exp",)
    assert "In-place" in leafgrad.Tensor.sin_.__doc__


# ----------------------------------------------------- Python numbers as operands
_BINARY = sorted(n for d in OPS.values() if d.numbers for n in d.names())


def _operand(T, name):
    if name.startswith("bitwise") or name in ("gcd", "lcm"):
        return T.tensor([3, 5, 6])
    return T.tensor([1.5, -2.0, 3.0])


def _call(T, name, pattern, method):
    t = _operand(T, name)
    args = [t if a == "t" else a for a in pattern]
    try:
        if method:
            return "ok", getattr(t, name)(*args[1:])
        return "ok", getattr(T, name)(*args)
    except TypeError:
        return "TypeError", None
    except (RuntimeError, NotImplementedError, ValueError) as e:
        return type(e).__name__, None


@pytest.mark.parametrize("name", _BINARY)
@pytest.mark.parametrize("pattern", [("t", 1.5), (1.5, "t"), ("t", 2), (2, "t"), ("t", True)])
@pytest.mark.parametrize("method", [False, True])
def test_number_operands_as_pytorch(name, pattern, method):
    if method and (pattern[0] != "t" or not hasattr(torch.Tensor, name)):
        pytest.skip("no method form")
    if not method and not hasattr(torch, name):
        pytest.skip("no torch.%s" % name)
    want, tv = _call(torch, name, pattern, method)
    got, lv = _call(leafgrad, name, pattern, method)
    assert got == want, "%s%s: PyTorch gives %s, leafgrad %s" % (name, pattern, want, got)
    if want == "ok" and isinstance(tv, torch.Tensor):
        assert str(lv.dtype) == str(tv.dtype)
        np.testing.assert_allclose(np.asarray(lv.tolist(), dtype=float),
                                   np.asarray(tv.tolist(), dtype=float), rtol=1e-6)


def test_number_rule_declared_as_pytorch_has_it():
    # the declaration's 'numbers' says what PyTorch accepts: 'both', 'other', 'none'
    wrong = []
    for d in OPS.values():
        if not d.numbers or not hasattr(torch, d.name):
            continue
        first = _call(torch, d.name, (2, "t"), False)[0] != "TypeError"
        second = _call(torch, d.name, ("t", 2), False)[0] != "TypeError"
        rule = "both" if first and second else "other" if second else "none"
        if rule != d.numbers:
            wrong.append((d.name, d.numbers, rule))
    assert not wrong, "declared numbers= differs from PyTorch (op, declared, PyTorch): %s" % wrong


# ----------------------------------------------- top-level in-place functions (torch.X_)
# torch.X_ functions PyTorch has that leafgrad leaves out, and why
LEFT_OUT_INPLACE = {
    "dropout_": "nn.functional.dropout(x, p, training, inplace=True) is the form",
    "alpha_dropout_": "nn.functional.alpha_dropout(x, inplace=True) is the form",
    "feature_dropout_": "nn.functional.dropout2d(x, inplace=True) is the form",
    "feature_alpha_dropout_": "nn.functional.feature_alpha_dropout(x, inplace=True) is the form",
    "embedding_renorm_": "nn.functional.embedding(max_norm=...) is the form",
    "resize_as_sparse_": "sparse tensors here are torch.sparse_coo_tensor only; no resize",
}


def _torch_inplace_functions():
    return sorted(n for n in dir(torch) if n.endswith("_") and not n.startswith("_")
                  and callable(getattr(torch, n)))


def test_every_torch_inplace_function_exists():
    # a Tensor.X_ leafgrad lacks is the Tensor-form tests' business (the op is not here
    # yet); once it exists, torch.X_ must follow (listed in ops/_forms.TORCH_INPLACE)
    missing = [n for n in _torch_inplace_functions() if not hasattr(leafgrad, n)
               and n not in LEFT_OUT_INPLACE and (hasattr(leafgrad.Tensor, n)
                                                  or not hasattr(torch.Tensor, n))]
    assert not missing, ("PyTorch has these torch.X_ functions: add them to "
                         "ops/_forms.TORCH_INPLACE or list them in LEFT_OUT_INPLACE with a "
                         "reason: %s" % missing)
    assert len(_torch_inplace_functions()) > 50      # guards the test: torch has them


def test_torch_inplace_functions_are_pytorchs():
    from leafgrad.ops import _forms
    extra = [n for n in _forms.TORCH_INPLACE if not hasattr(torch, n)]
    assert not extra, "torch.X_ declared that PyTorch lacks: %s" % extra
    stale = [n for n in LEFT_OUT_INPLACE if hasattr(leafgrad, n) or not hasattr(torch, n)]
    assert not stale, "LEFT_OUT_INPLACE entries leafgrad has (or PyTorch lacks): %s" % stale


@pytest.mark.parametrize("name,args", [("sin_", ()), ("clamp_", (-0.5, 0.5)),
                                       ("clamp_", ()), ("deg2rad_", ()), ("xlogy_", (2.0,)),
                                       ("logit_", (0.1,)), ("fill_", (3.0,)), ("relu_", ())])
def test_torch_inplace_function_as_pytorch(name, args):
    res = []
    for T in (torch, leafgrad):
        t = T.tensor([0.25, -0.75, 0.5])
        try:
            out = getattr(T, name)(t, *args)
        except Exception as e:
            res.append(type(e))
            continue
        assert out is t
        res.append(np.asarray(t.tolist()))
    if isinstance(res[0], type):
        assert res[1] is res[0]
    else:
        np.testing.assert_allclose(res[1], res[0], rtol=1e-6)
    with pytest.raises(TypeError):
        getattr(leafgrad, name)(1.5, *args)
    x = leafgrad.tensor([0.5], requires_grad=True)
    with pytest.raises(RuntimeError):       # a leaf that requires grad, as Tensor.X_
        getattr(leafgrad, name)(x, *args)
