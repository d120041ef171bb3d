"""Guards (each change between calls makes a new capture, never a stale result) and graph
breaks (each cause noted, the result eager's, fullgraph=True raising Unsupported)."""
import warnings

import pytest

import leafgrad as torch
from leafgrad._dynamo import exc


def _fresh(fn=lambda x: x * 2 + 1):
    return torch.compile(fn)


@pytest.mark.parametrize("change", [
    lambda x: x.reshape(3, 2),                       # shape
    lambda x: x.double(),                            # dtype
    lambda x: x.t(),                                 # strides
    lambda x: x.clone().requires_grad_(),            # requires_grad
])
def test_input_guard_recaptures(change):
    cf = _fresh()
    x = torch.arange(6.0).reshape(2, 3)
    cf(x)
    y = change(x)
    out = cf(y)
    assert cf.recompiles == 1
    assert torch.equal(out.detach(), y.detach() * 2 + 1)


@pytest.mark.parametrize("ctx", [torch.no_grad, torch.inference_mode])
def test_grad_mode_guard(ctx):
    cf = _fresh()
    x = torch.ones(2, requires_grad=True)
    assert cf(x).requires_grad
    with ctx():
        assert not cf(x).requires_grad
    assert cf.recompiles == 1


def test_default_dtype_guard():
    cf = _fresh(lambda x: x + torch.ones(2))
    cf(torch.ones(2))
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        assert cf(torch.ones(2, dtype=torch.float64)).dtype == torch.float64
        assert cf.recompiles == 1
    finally:
        torch.set_default_dtype(old)


def test_python_constant_guard():
    cf = _fresh(lambda x, k: x * k)
    x = torch.ones(2)
    cf(x, 2)
    assert torch.equal(cf(x, 3), x * 3) and cf.recompiles == 1


def test_module_training_guard():
    m = torch.nn.Dropout(0.5)
    c = torch.compile(m)
    x = torch.ones(100)
    c(x)
    c.eval()
    assert torch.equal(c(x), x)
    assert c.forward.recompiles == 1


def test_parameter_identity_and_shape_guard():
    m = torch.nn.Linear(2, 2)
    c = torch.compile(m)
    x = torch.ones(1, 2)
    c(x)
    m.weight = torch.nn.Parameter(torch.zeros(2, 2))
    assert torch.equal(c(x), m.bias.expand(1, 2))
    assert c.forward.recompiles == 1
    c(x)
    assert c.forward.recompiles == 1


def test_recompile_limit_then_eager_with_one_warning(monkeypatch):
    monkeypatch.setattr(torch._dynamo.config, "recompile_limit", 2)
    cf = _fresh()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(1, 6):
            assert torch.equal(cf(torch.ones(n)), torch.full((n,), 3.0))
    assert len(w) == 1 and "recompile_limit" in str(w[0].message)
    assert cf.recompiles == 1


_BREAKS = [
    (lambda x: x * x.sum().item(), "item()"),
    (lambda x: x * 2 if bool(x.sum() > 0) else x, "bool()"),
    (lambda x: x * len(x.tolist()), "tolist()"),
    (lambda x: x * float(x.numpy().sum()), "numpy()"),
    (lambda x: (print(x), x + 1)[1], "printing"),
    (lambda x: x.nonzero().float().sum() + x, "nonzero"),
    (lambda x: x[x > 0].sum() + x, "boolean mask"),
]


@pytest.mark.parametrize("fn,word", _BREAKS, ids=[w for _, w in _BREAKS])
def test_graph_break_is_reported_and_correct(fn, word, capsys):
    x = torch.tensor([1.0, -2.0, 3.0])
    cf = torch.compile(fn)
    assert torch.equal(cf(x), fn(x)) and torch.equal(cf(x), fn(x))
    assert len(cf.graph_breaks) == 1 and word.split()[0] in cf.graph_breaks[0].lower()
    assert torch._dynamo.explain(fn)(x).graph_break_count == 1
    with pytest.raises(exc.Unsupported):
        torch.compile(fn, fullgraph=True)(x)


def test_no_break_reports_none():
    e = torch._dynamo.explain(lambda x: x * 2)(torch.ones(2))
    assert (e.graph_count, e.graph_break_count) == (1, 0)


def test_fullgraph_refusal_leaves_buffers_unchanged():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = torch.nn.BatchNorm1d(2)

        def forward(self, x):
            y = self.bn(x)
            return y * y.sum().item()
    m = M()
    before = {k: v.clone() for k, v in m.state_dict().items()}
    with pytest.raises(exc.Unsupported):
        torch.compile(m, fullgraph=True)(torch.randn(4, 2))
    assert all(torch.equal(before[k], v) for k, v in m.state_dict().items())


def test_compiler_disable_is_a_break_and_runs_eagerly():
    @torch.compiler.disable
    def helper(x):
        return x + 1
    cf = torch.compile(lambda x: helper(x) * 2)
    assert torch.equal(cf(torch.ones(2)), torch.full((2,), 4.0))
    assert "disable" in cf.graph_breaks[0]


def test_eager_methods_are_not_wrapped_outside_a_capture():
    before = torch.Tensor.item
    torch.compile(lambda x: x.item())(torch.ones(()))
    assert torch.Tensor.item is before
