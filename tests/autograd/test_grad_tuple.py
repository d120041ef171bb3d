"""autograd.grad's tuple: a tuple for everything PyTorch's is (compared with torch), and
used as a number it raises Python's error class with the hint to index [0]. Error
classes show under leafgrad.errors in tracebacks."""
import copy
import pickle
import traceback

import pytest

import leafgrad as lg


def grads(torch):
    w = torch.tensor([0.9], requires_grad=True)
    b = torch.tensor([-0.2], requires_grad=True)
    loss = torch.sigmoid(torch.tensor([1.4]) * w + b).sum()
    return torch.autograd.grad(loss, b, retain_graph=True), b, loss, w


def test_behaves_as_a_tuple_like_torchs():
    torch = pytest.importorskip("torch")
    for lib in (lg, torch):
        g, b, loss, w = grads(lib)
        assert isinstance(g, tuple) and len(g) == 1 and type(g).__name__ == "tuple"
        assert repr(type(g)) == "<class 'tuple'>"
        assert len(g + (1,)) == 2 and len((1,) + g) == 2 and len(2 * g) == 2 and len(g * 3) == 3
        (only,) = g
        assert only is g[0] and g[0:1] == (g[0],) and list(g) == [g[0]]
        assert type(pickle.loads(pickle.dumps((1, 2)))) is tuple
        assert copy.copy(g) == g
    assert repr(grads(lg)[0]) == repr(grads(torch)[0])
    assert str(grads(lg)[0]) == str(grads(torch)[0])
    g = lg.autograd.grad(grads(lg)[2], [grads(lg)[1]], allow_unused=True)
    assert g == (None,)


@pytest.mark.parametrize("expr, cls", [
    ("0.1 * g", TypeError), ("b - 0.1 * g", TypeError), ("float(g)", TypeError),
    ("int(g)", TypeError), ("g - b", TypeError), ("b - g", TypeError), ("b * g", TypeError),
    ("g / 2", TypeError), ("g + 1.0", TypeError), ("1.0 + g", TypeError), ("-g", TypeError),
    ("sum([g])", TypeError), ("g ** 2", TypeError),
    ("format(g, '.3f')", TypeError), ("g.item()", AttributeError), ("g.numpy()", AttributeError),
    ("b.sub_(g)", TypeError), ("b.data -= 0.1 * g", TypeError),
])
def test_used_as_a_number_says_index_it(expr, cls):
    torch = pytest.importorskip("torch")
    g, b, _, _ = grads(torch)
    ns = {"g": g, "b": b.detach().clone()}
    with pytest.raises(cls):        # torch raises the same class (or the test is wrong)
        exec(expr, ns)
    g, b, _, _ = grads(lg)
    ns = {"g": g, "b": b.detach().clone()}
    with pytest.raises(cls) as info:
        exec(expr, ns)
    assert "[0]" in str(info.value), str(info.value)


def test_missing_attribute_is_plain():
    g = grads(lg)[0]
    with pytest.raises(AttributeError, match=r"^'tuple' object has no attribute 'foo'$"):
        g.foo


def test_error_classes_under_public_module():
    import leafgrad.errors as errors
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert cls.__module__ == "leafgrad.errors" and cls is getattr(lg, name, cls)
    x = lg.tensor(3.0, requires_grad=True)
    y = x ** 3
    y.backward()
    try:
        y.backward()
    except RuntimeError as exc:
        line = traceback.format_exception_only(type(exc), exc)[0]
    assert line.startswith("leafgrad.errors.GraphFreedError: Trying to backward")
