"""``torch.jit`` as eager code uses it, against PyTorch 2.13: decorators return the
function, script/trace give objects that run with the module's results and share its
parameters, fork/wait, the warnings, and save/load's clear refusal."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad


def _names(T):
    return sorted(T.jit.__all__)


def test_public_names_are_pytorchs():
    assert _names(leafgrad) == _names(torch)
    for name in torch.jit.__all__ + ["is_scripting", "is_tracing", "Final", "ScriptModule",
                                     "ScriptFunction", "TracedModule", "TopLevelTracedModule",
                                     "RecursiveScriptModule", "script_method"]:
        assert hasattr(leafgrad.jit, name), name


@pytest.mark.parametrize("T", [torch, leafgrad], ids=["torch", "leafgrad"])
def test_decorators_return_the_function(T):
    def f(x):
        return x
    assert T.jit.unused(f) is f and T.jit.export(f) is f and T.jit.ignore(f) is f
    assert T.jit.ignore(drop=False)(f) is f
    prop = property(lambda self: 1)
    assert T.jit.unused(prop) is prop
    assert T.jit.annotate(int, 3) == 3
    assert T.jit.is_scripting() is False and T.jit.is_tracing() is False
    w = T.jit.script_if_tracing(f)
    assert w.__wrapped__ is f and w(5) == 5 and w.__name__ == "f"
    assert T.jit.Final is __import__("typing").Final


def test_modifier_tags_are_pytorchs():
    for dec in ("unused", "export", "ignore"):
        def f(x):
            return x
        def g(x):
            return x
        getattr(torch.jit, dec)(f)
        getattr(leafgrad.jit, dec)(g)
        assert f._torchscript_modifier == g._torchscript_modifier


@pytest.mark.parametrize("bad", [3, "x"])
def test_ignore_refuses_what_pytorch_refuses(bad):
    with pytest.raises(RuntimeError) as a:
        torch.jit.ignore(bad)
    with pytest.raises(RuntimeError) as b:
        leafgrad.jit.ignore(bad)
    assert str(a.value) == str(b.value)


def test_interface_checks_as_pytorch():
    for T in (torch, leafgrad):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError, match="interface must be applied to a class"):
                T.jit.interface(3)


def _nets(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(3, 4), T.nn.ReLU(), T.nn.Linear(4, 2))


@pytest.mark.parametrize("how", ["script", "trace"])
def test_module_runs_with_the_modules_results_and_shares_parameters(how):
    out = {}
    for T in (torch, leafgrad):
        m = _nets(T)
        x = T.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=T.float32)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s = T.jit.script(m) if how == "script" else T.jit.trace(m, x)
        assert any(issubclass(i.category, DeprecationWarning)
                   and ("`torch.jit.%s` is deprecated" % how) in str(i.message) for i in w)
        assert isinstance(s, T.jit.ScriptModule) and isinstance(s, T.nn.Module)
        assert dict(s.named_parameters())["0.weight"] is m[0].weight
        kids = [type(c).__name__ for c in s.children()]
        assert list(s.state_dict()) == list(m.state_dict())
        y = s(x)
        y.sum().backward()
        s.eval()
        out[T] = (y.detach().numpy(), m[0].weight.grad.numpy(), m.training, s.training,
                  type(s).__name__, s.original_name, repr(s), kids)
    a, b = out[torch], out[leafgrad]
    np.testing.assert_allclose(a[0], b[0], rtol=1e-6)
    np.testing.assert_allclose(a[1], b[1], rtol=1e-6)
    assert a[2:] == b[2:]


def test_script_function_and_fork_wait():
    for T in (torch, leafgrad):
        def f(x):
            return x * 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = T.jit.script(f)
            fut = T.jit.fork(s, T.ones(2))
            r = T.jit.wait(fut)
        assert isinstance(s, T.jit.ScriptFunction)
        assert (s.name, s.qualified_name) == ("f", "__torch__.%s.f" % __name__)
        assert fut.done() and r.tolist() == [2.0, 2.0]
        assert T.jit.Future is T.futures.Future and issubclass(T.futures.Future, T.Future)
        assert type(fut) is T.Future


def test_isinstance_as_pytorch():
    from typing import Dict, List, Optional, Tuple
    cases = [([1, 2], List[int]), ([1, "a"], List[int]), ({"a": 1}, Dict[str, int]),
             ((1, 2.0), Tuple[int, float]), (None, Optional[int]), (3, Optional[int]),
             ("s", Optional[int]), ([], List[str])]
    for obj, tp in cases:
        assert leafgrad.jit.isinstance(obj, tp) == torch.jit.isinstance(obj, tp), (obj, tp)


def test_trace_without_examples_raises_as_pytorch():
    for T in (torch, leafgrad):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError):
                T.jit.trace(lambda x: x)


def test_save_and_load_refuse_with_the_way_out(tmp_path):
    m = leafgrad.jit.script(leafgrad.nn.Linear(2, 2))
    for call in (lambda: leafgrad.jit.save(m, tmp_path / "m.pt"), lambda: m.save("m.pt"),
                 lambda: m.code):
        with pytest.raises(NotImplementedError, match="TorchScript.*state_dict"):
            call()
    p = tmp_path / "m.pt"
    p.write_bytes(b"PK")
    with pytest.raises(NotImplementedError, match="cannot read TorchScript.*torch.load"):
        leafgrad.jit.load(str(p))
    for T in (torch, leafgrad):       # a missing file: PyTorch's own error first
        with pytest.raises(ValueError, match="does not exist"):
            T.jit.load(str(tmp_path / "missing.pt"))


def test_torch_jit_under_the_alias():
    import subprocess
    import sys
    code = ("import leafgrad; from leafgrad._compat import torch_alias as a; a.install()\n"
            "import torch, torch.jit\nfrom torch.jit import unused\n"
            "assert torch.jit is leafgrad.jit and unused is leafgrad.jit.unused\nprint('ok')")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(__import__("os").environ))
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"
