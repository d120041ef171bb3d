"""torch.compile's surface against PyTorch 2.13: what it returns, what it refuses, reports."""
import warnings

import pytest
import torch as pt

import leafgrad as torch
from leafgrad._dynamo import exc


def test_module_comes_back_as_optimized_module_with_orig_mod_keys():
    m = torch.nn.Linear(2, 3)
    c = torch.compile(m)
    assert type(c) is torch._dynamo.eval_frame.OptimizedModule
    assert c._orig_mod is m and c.weight is m.weight
    ref = pt.compile(pt.nn.Linear(2, 3))
    assert list(c.state_dict()) == list(ref.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    assert repr(c) == repr(ref)


def test_state_dict_round_trip_through_optimized_module():
    torch.manual_seed(0)
    c = torch.compile(torch.nn.Linear(2, 3))
    d = torch.compile(torch.nn.Linear(2, 3))
    d.load_state_dict(c.state_dict())
    assert torch.equal(d._orig_mod.weight, c._orig_mod.weight)
    plain = torch.nn.Linear(2, 3)
    plain.load_state_dict(c._orig_mod.state_dict())
    assert torch.equal(plain.bias, c.bias)


def test_decorator_forms_and_disable():
    @torch.compile
    def f(x):
        return x * 2

    @torch.compile(fullgraph=True)
    def g(x):
        return x + 1
    assert torch.equal(f(torch.ones(2)), torch.full((2,), 2.0))
    assert torch.equal(g(torch.ones(2)), torch.full((2,), 2.0))
    m = torch.nn.Linear(1, 1)
    assert torch.compile(m, disable=True) is m
    assert torch.compile(disable=True)(m) is m


def test_refusals_are_pytorchs():
    m = torch.nn.Linear(1, 1)
    for kwargs in ({"backend": "nope"}, {"mode": "nope"}, {"mode": "default", "options": {}}):
        with pytest.raises(RuntimeError) as ours:
            torch.compile(m, **kwargs)
        with pytest.raises(RuntimeError) as theirs:
            pt.compile(pt.nn.Linear(1, 1), **kwargs)
        assert type(ours.value).__name__ == type(theirs.value).__name__
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(AssertionError):
        torch.compile(3)
    assert issubclass(exc.Unsupported, RuntimeError) and issubclass(exc.InvalidBackend, RuntimeError)


def test_settings_pytorch_accepts_warn_once():
    from leafgrad import compiler
    compiler._warned.clear()
    m = torch.nn.Linear(1, 1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.compile(m, backend="eager", mode="max-autotune")
        torch.compile(m, backend="aot_eager")
        torch.compile(m)
    assert len(w) == 1 and "ignored" in str(w[0].message)


def test_is_compiling_inside_a_compiled_call_only():
    seen = []

    def f(x):
        seen.append(torch.compiler.is_compiling())
        return x
    cf = torch.compile(f)
    cf(torch.ones(1))
    cf(torch.ones(1))
    assert seen == [True, True] and not torch.compiler.is_compiling()
    assert torch._dynamo.is_compiling is not None


def test_reset_forgets_captures():
    cf = torch.compile(lambda x: x + 1)
    cf(torch.ones(1))
    cf(torch.ones(2))
    assert cf.recompiles == 1
    torch._dynamo.reset()
    assert cf.recompiles == 0
    torch.compiler.reset()
    assert torch._dynamo.config.recompile_limit == pt._dynamo.config.recompile_limit


def test_grad_fn_and_training_through_compiled_module():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    c = torch.compile(m)
    x = torch.randn(5, 3)
    c(x).sum().backward()
    g = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    m(x).sum().backward()
    assert all(torch.equal(a, p.grad) for a, p in zip(g, m.parameters()))
    c.eval()
    assert not m.training and not m[0].training
    c.train()
    assert m.training
