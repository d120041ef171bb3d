"""utils.viz.explain: the tutorial's chain-rule numbers, and on random graphs (fan-out,
broadcasting) the sum over paths equals autograd.grad."""
import io

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import leafgrad as lg
from leafgrad.utils.viz import explain


def text(*args, **kw):
    f = io.StringIO()
    ex = explain(*args, file=f, **kw)
    return ex, f.getvalue().splitlines()


def test_linear_model_has_the_tutorials_numbers():
    w = lg.tensor(1.0, requires_grad=True)
    b = lg.tensor(0.0, requires_grad=True)
    x, y = lg.tensor(2.0), lg.tensor(6.0)
    y_hat = w * x + b
    loss = (y_hat - y) ** 2
    ex, lines = text(loss, w)
    assert lines == [
        "d loss / d w: 1 path",
        "path 1: PowBackward0 -> SubBackward0 -> AddBackward0 -> MulBackward0 -> w",
        "  PowBackward0  d out / d self = exponent·self^(exponent-1) = 2·(-4.0)^1 = -8.0",
        "  SubBackward0  d out / d self = 1 = 1.0",
        "  AddBackward0  d out / d self = 1 = 1.0",
        "  MulBackward0  d out / d self = other = 2.0",
        "  product: -8.0 × 1.0 × 1.0 × 2.0 = -16.0",
        "sum over 1 path: -16.0  (autograd.grad: -16.0)"]
    assert [float(s.local) for s in ex.paths[0][:4]] == [-8.0, 1.0, 1.0, 2.0]
    assert float(ex.total) == -16.0 and repr(ex) == "<Explanation: 1 path, d loss / d w = -16.0>"
    ex, lines = text(loss, b)
    assert lines[0] == "d loss / d b: 1 path" and lines[-2:] == [
        "  product: -8.0 × 1.0 × 1.0 = -8.0", "sum over 1 path: -8.0  (autograd.grad: -8.0)"]
    loss.backward()         # the graph is freed: explain says when to call it
    with pytest.raises(RuntimeError, match="before loss.backward"):
        explain(loss, w, quiet=True)


def test_weight_without_requires_grad_and_unused_weight():
    w = lg.tensor(0.8)          # the tutorial's mistake
    b = lg.tensor(0.1, requires_grad=True)
    u = lg.tensor(3.0, requires_grad=True)
    loss = (w * 2 + b) ** 2
    ex, lines = text(loss, w)
    assert ex.problem.startswith("w does not require grad") and "requires_grad=True" in lines[0]
    assert ex.paths == [] and ex.autograd is None
    ex, lines = text(loss, u)
    assert lines[0].startswith("d loss / d u: no gradient. the loss does not depend on u")
    ex, _ = text(loss, b.detach().requires_grad_())
    assert "does not depend" in ex.problem
    with pytest.raises(RuntimeError, match="reduce it first"):
        explain(lg.ones(2, requires_grad=True) * 2, b)


def test_vector_weights_elementwise_and_norms():
    W = lg.tensor([0.5, -0.3, 0.8], requires_grad=True)
    x = lg.tensor([1.0, 2.0, 3.0])
    ex, lines = text((W * x).sum() ** 2, W)
    assert lines[-2:] == ["  contribution: [4.6, 9.2, 13.8]",
                          "sum over 1 path: [4.6, 9.2, 13.8]  (autograd.grad: [4.6, 9.2, 13.8])"]
    big = lg.ones(20, requires_grad=True)
    ex, lines = text((big * 3).sum(), big)
    assert lines[-2] == "  contribution: norm 13.42 (mean 3 std 0 min 3 max 3)"


def test_fan_out_paths_and_max_paths():
    a = lg.tensor([[1.0, 2.0]], requires_grad=True)
    z = a * a + a.exp() * lg.ones(3, 1)        # three paths, one broadcast
    ex, _ = text(z.sum(), a)
    assert ex.n_paths == 3 and len(ex.paths) == 3
    np.testing.assert_allclose(ex.total, lg.autograd.grad(z.sum(), a)[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(sum(ex.contributions), ex.total)
    # 2**12 paths through a chain of diamonds: counted, a few listed, no sum
    y = a
    for _ in range(12):
        y = y * 0.5 + y * 0.5
    ex, lines = text(y.sum(), a, max_paths=5)
    assert ex.n_paths == 4096 and len(ex.paths) == 5 and ex.total is None
    assert "(4091 more paths not listed: max_paths=5)" in lines
    np.testing.assert_allclose(ex.autograd, [[1.0, 1.0]])


_UNARY = [lambda t: t.exp(), lambda t: t.sigmoid(), lambda t: t.tanh(), lambda t: t * t,
          lambda t: t.sum(0, keepdim=True), lambda t: t.mean(), lambda t: t ** 3,
          lambda t: (t * t + 1).sqrt(), lambda t: t.relu()]
_BINARY = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b,
           lambda a, b: a / (b * b + 1)]


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_random_graphs_sum_of_paths_equals_autograd_grad(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    shapes = [(2, 3), (1, 3), (2, 1), (3,), ()]
    leaves = [lg.tensor(rng.normal(size=data.draw(st.sampled_from(shapes))), requires_grad=True)
              for _ in range(3)]
    pool = list(leaves)
    for _ in range(data.draw(st.integers(1, 7))):     # fan-out: any earlier value is reused
        if data.draw(st.booleans()):
            f = data.draw(st.sampled_from(_UNARY))
            pool.append(f(data.draw(st.sampled_from(pool))))
        else:
            f = data.draw(st.sampled_from(_BINARY))
            pool.append(f(data.draw(st.sampled_from(pool)), data.draw(st.sampled_from(pool))))
    loss = sum(p.sum() for p in pool[3:]) if len(pool) > 3 else pool[0].sum()
    for w in leaves + pool[3:-1]:
        ex = explain(loss, w, quiet=True, max_paths=10 ** 6)
        if ex.problem:
            with pytest.raises(RuntimeError):
                lg.autograd.grad(loss, w, retain_graph=True)
            continue
        want = lg.autograd.grad(loss, w, retain_graph=True)[0].numpy()
        np.testing.assert_allclose(ex.total, want, rtol=1e-9, atol=1e-12)
        assert len(ex.paths) == ex.n_paths >= 1
