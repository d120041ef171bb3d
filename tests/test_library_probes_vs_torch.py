"""Names and behaviours that libraries' own test suites probe (issue 28: torchdiffeq,
geoopt), each against PyTorch: torch.is_complex, torch._C._LinAlgError, ``t == None``,
torch.as_strided (with its gradient), torch.testing.assert_close (tolerances, messages)."""
import numpy as np
import pytest
import torch

import leafgrad


def test_is_complex():
    for name in ("float32", "float64", "int64", "bool", "complex64", "complex128"):
        ours = leafgrad.is_complex(leafgrad.zeros(2, dtype=getattr(leafgrad, name)))
        assert ours is torch.is_complex(torch.zeros(2, dtype=getattr(torch, name))), name
    for bad in (1.0, None, [1.0]):
        with pytest.raises(TypeError) as theirs:
            torch.is_complex(bad)
        with pytest.raises(TypeError) as ours:
            leafgrad.is_complex(bad)
        assert str(ours.value).startswith(str(theirs.value))


def test_linalg_error_is_torch_C_LinAlgError():
    assert leafgrad._C._LinAlgError is leafgrad.linalg.LinAlgError
    assert repr(leafgrad._C._LinAlgError) == repr(torch._C._LinAlgError)
    assert [c.__name__ for c in leafgrad._C._LinAlgError.__mro__] == \
        [c.__name__ for c in torch._C._LinAlgError.__mro__]
    with pytest.raises(torch._C._LinAlgError):
        torch.linalg.inv(torch.zeros(2, 2))
    with pytest.raises(leafgrad._C._LinAlgError):
        leafgrad.linalg.inv(leafgrad.zeros(2, 2))


@pytest.mark.parametrize("lib", [torch, leafgrad], ids=["torch", "leafgrad"])
def test_compare_with_none(lib):
    x = lib.ones(2)
    assert (x == None) is False and (x != None) is True        # noqa: E711
    assert (None == x) is False and (None != x) is True        # noqa: E711
    with pytest.raises(TypeError, match="'<' not supported between instances of 'Tensor' "
                                        "and 'NoneType'"):
        x < None                                                # noqa: B015
    assert (x == x).all()


# --------------------------------------------------------------- as_strided
AS_STRIDED = [  # (view of a leaf arange(12), size, stride, offset)
    (lambda t: t, (3, 3), (3, 1), None),
    (lambda t: t, (3, 3), (1, 1), 2),                          # overlapping windows
    (lambda t: t.reshape(3, 4).t(), (2, 3), (2, 1), 1),
    (lambda t: t[3:], (2, 2), (1, 2), None),                  # the view's own offset
    (lambda t: t[3:].reshape(3, 3).t(), (2, 2), (1, 2), None),
    (lambda t: t.reshape(3, 4), (4,), (0,), 5),                # stride 0
    (lambda t: t[:6], (0, 2), (1, 1), 1),
]


@pytest.mark.parametrize("case", range(len(AS_STRIDED)))
def test_as_strided_values_and_gradient(case):
    view, size, stride, offset = AS_STRIDED[case]
    outs = []
    for L in (torch, leafgrad):
        x = L.arange(12.0, dtype=L.float64, requires_grad=True)
        v = view(x)
        y = v.as_strided(size, stride) if offset is None else \
            L.as_strided(v, size, stride, offset)
        w = L.arange(float(y.numel()), dtype=L.float64).reshape(y.shape) + 1
        (y * w).sum().backward()
        outs.append((y.detach().numpy().copy(), x.grad.numpy().copy(), type(y.grad_fn).__name__,
                     y.stride(), y.storage_offset()))
    (ty, tg, tn, ts, to), (ly, lg, ln, ls, lo) = outs
    assert ln == tn == "AsStridedBackward0"
    assert (ly == ty).all() and (lg == tg).all() and ls == ts
    if ty.size:
        assert lo == to


def test_as_strided_of_an_overlapping_input_and_double_backward():
    grads = []
    for L in (torch, leafgrad):
        x = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        e = x.expand(2, 3)                  # stride 0: every element read twice
        y = e.as_strided((2, 2), (1, 1))
        g, = L.autograd.grad((y ** 3).sum(), x, create_graph=True)
        gg, = L.autograd.grad(g.sum(), x)
        grads.append((g.detach().numpy().copy(), gg.numpy().copy()))
    assert (grads[0][0] == grads[1][0]).all() and (grads[0][1] == grads[1][1]).all()


def test_as_strided_is_a_view_and_gradcheck():
    x = leafgrad.arange(8.0)
    y = x.as_strided((2, 2), (2, 1), 1)
    y[0, 0] = 100.0
    assert x[1].item() == 100.0 and y._version == x._version
    z = leafgrad.randn(10, dtype=leafgrad.float64, requires_grad=True)
    assert leafgrad.autograd.gradcheck(lambda t: t.as_strided((3, 3), (2, 1), 1), (z,))
    assert leafgrad.autograd.gradgradcheck(lambda t: t.as_strided((3, 3), (2, 1), 1) ** 2, (z,))


@pytest.mark.parametrize("args", [((3, 3), (1, 1)), ((2,), (-1,)), ((2, 2), (1,)),
                                  ((2,), (1,), 5), ((2,), (1,), -1)])
def test_as_strided_errors(args):
    with pytest.raises(RuntimeError) as theirs:
        torch.as_strided(torch.arange(4.0), *args)
    with pytest.raises(RuntimeError) as ours:
        leafgrad.as_strided(leafgrad.arange(4.0), *args)
    assert str(ours.value).startswith(str(theirs.value))


# ---------------------------------------------------- torch.testing.assert_close
_nan, _inf = float("nan"), float("inf")
ASSERT_CLOSE = {  # name: a call on the library L (torch or leafgrad), and np
    "close_float32": lambda L: L.testing.assert_close(L.tensor([1.0, 2.0]),
                                                      L.tensor([1.0, 2.000001])),
    "far_float32": lambda L: L.testing.assert_close(L.tensor([1.0, 2.0, 3.0]),
                                                    L.tensor([1.0, 2.5, 3.0])),
    "2d_index": lambda L: L.testing.assert_close(L.tensor([[1.0, 2.0], [3.0, 4.0]]),
                                                 L.tensor([[1.0, 2.0], [3.0, 5.0]])),
    "float64": lambda L: L.testing.assert_close(L.tensor([1.0], dtype=L.float64),
                                                L.tensor([1.0 + 1e-6], dtype=L.float64)),
    "float16": lambda L: L.testing.assert_close(L.tensor([1.0], dtype=L.float16),
                                                L.tensor([1.002], dtype=L.float16)),
    "0d": lambda L: L.testing.assert_close(L.tensor(1.0), L.tensor(2.0)),
    "ints": lambda L: L.testing.assert_close(L.tensor([1, 2]), L.tensor([1, 3])),
    "uint8": lambda L: L.testing.assert_close(L.tensor([1], dtype=L.uint8),
                                              L.tensor([3], dtype=L.uint8)),
    "bools": lambda L: L.testing.assert_close(L.tensor([True]), L.tensor([False])),
    "complex": lambda L: L.testing.assert_close(L.tensor([1 + 1j]), L.tensor([1 + 2j])),
    "zero_expected": lambda L: L.testing.assert_close(L.tensor([0.0, 1.0]), L.tensor([1.0, 1.0])),
    "nan": lambda L: L.testing.assert_close(L.tensor([_nan]), L.tensor([_nan])),
    "nan_equal": lambda L: L.testing.assert_close(L.tensor([_nan]), L.tensor([_nan]),
                                                  equal_nan=True),
    "inf": lambda L: L.testing.assert_close(L.tensor([1.0, _inf]), L.tensor([1.0, -_inf])),
    "inf_same": lambda L: L.testing.assert_close(L.tensor([_inf]), L.tensor([_inf])),
    "shape": lambda L: L.testing.assert_close(L.zeros(2), L.zeros(3)),
    "dtype": lambda L: L.testing.assert_close(L.zeros(2), L.zeros(2, dtype=L.float64)),
    "dtype_unchecked": lambda L: L.testing.assert_close(
        L.tensor([1.0]), L.tensor([1.000001], dtype=L.float64), check_dtype=False),
    "stride": lambda L: L.testing.assert_close(L.zeros(2, 2).t(), L.zeros(2, 2),
                                               check_stride=True),
    "exact": lambda L: L.testing.assert_close(L.tensor([0.0, 1.0]), L.tensor([0.0, 2.0]),
                                              rtol=0, atol=0),
    "loose": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.5]), rtol=0.5,
                                              atol=0),
    "lone_rtol": lambda L: L.testing.assert_close(L.zeros(1), L.zeros(1), rtol=1e-3),
    "lone_atol": lambda L: L.testing.assert_close(L.zeros(1), L.zeros(1), atol=1e-3),
    "msg_str": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([2.0]), msg="custom"),
    "msg_callable": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([2.0]),
                                                     msg=lambda m: "X" + m[:12]),
    "requires_grad": lambda L: L.testing.assert_close(L.tensor([1.0], requires_grad=True),
                                                      L.tensor([1.0])),
    "parameter": lambda L: L.testing.assert_close(L.nn.Parameter(L.zeros(1)), L.zeros(1)),
    "no_subclasses": lambda L: L.testing.assert_close(L.nn.Parameter(L.zeros(1)), L.zeros(1),
                                                      allow_subclasses=False),
    "ndarrays": lambda L: L.testing.assert_close(np.zeros(2), np.ones(2)),
    "tensor_vs_ndarray": lambda L: L.testing.assert_close(L.zeros(2), np.zeros(2)),
    "tensor_vs_float": lambda L: L.testing.assert_close(L.zeros(()), 0.0),
    "floats": lambda L: L.testing.assert_close(1.0, 2.0),
    "float_zero": lambda L: L.testing.assert_close(0.0, 1.0),
    "int_vs_float": lambda L: L.testing.assert_close(1, 1.0),
    "int_vs_float_unchecked": lambda L: L.testing.assert_close(1, 1.0, check_dtype=False),
    "ints_py": lambda L: L.testing.assert_close(1, 2),
    "np_scalar": lambda L: L.testing.assert_close(np.float32(1.0), 1.0),
    "py_bools": lambda L: L.testing.assert_close(True, False),
    "none": lambda L: L.testing.assert_close(None, None),
    "none_vs_1": lambda L: L.testing.assert_close(None, 1),
    "strings": lambda L: L.testing.assert_close("a", "a"),
    "list_item": lambda L: L.testing.assert_close([L.zeros(1), L.ones(1)],
                                                  [L.zeros(1), L.zeros(1)]),
    "nested_item": lambda L: L.testing.assert_close([[L.zeros(1)]], [[L.ones(1)]]),
    "dict_item": lambda L: L.testing.assert_close({"a": L.zeros(1)}, {"a": L.ones(1)}),
    "dict_keys": lambda L: L.testing.assert_close({"a": 1}, {"b": 1}),
    "lengths": lambda L: L.testing.assert_close([1.0], [1.0, 2.0]),
    "tuple_vs_list": lambda L: L.testing.assert_close((1.0, 2.0), [1.0, 2.0]),
    "type_error_first": lambda L: L.testing.assert_close([L.zeros(1), L.zeros(1)],
                                                         [L.ones(1), 0.0]),
    "msg_not_for_lengths": lambda L: L.testing.assert_close([1], [1, 2], msg="m"),
    "empty": lambda L: L.testing.assert_close(L.zeros(0), L.zeros(0)),
}


def _outcome_of(call, lib):
    try:
        call(lib)
    except Exception as exc:                       # noqa: BLE001 - compared with torch's
        return type(exc).__name__, str(exc).replace("leafgrad.", "torch.")
    return "passed", ""


@pytest.mark.parametrize("name", sorted(ASSERT_CLOSE))
def test_assert_close_like_torch(name):
    theirs = _outcome_of(ASSERT_CLOSE[name], torch)
    ours = _outcome_of(ASSERT_CLOSE[name], leafgrad)
    assert ours == theirs


# ------------------------------------------------------------- matrix_power
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -2])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_matrix_power_values_grad_fn_and_gradient(n, shape):
    a = np.random.default_rng(0).standard_normal(shape) + 3 * np.eye(3)
    outs = []
    for L, f in ((torch, torch.matrix_power), (leafgrad, leafgrad.matrix_power),
                 (leafgrad, lambda t, k: t.matrix_power(k)),
                 (leafgrad, leafgrad.linalg.matrix_power)):
        A = L.tensor(a, requires_grad=True)
        r = f(A, n)
        r.backward(L.ones_like(r))
        outs.append((r.detach().numpy(), A.grad.numpy(), type(r.grad_fn).__name__, r.stride()))
    ty, tg, tn, ts = outs[0]
    for ly, lg, ln, ls in outs[1:]:
        np.testing.assert_allclose(ly, ty, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(lg, tg, rtol=1e-10, atol=1e-10)
        assert (ln, ls) == (tn, ts)


def test_matrix_power_integers_and_errors():
    ints = [[0, 1], [2, 3]]
    assert leafgrad.matrix_power(leafgrad.tensor(ints), 3).tolist() == \
        torch.matrix_power(torch.tensor(ints), 3).tolist()
    assert leafgrad.matrix_power(leafgrad.tensor(ints), 0).dtype == leafgrad.int64
    for args in ((lambda L: L.randn(2, 3), 2), (lambda L: L.randn(3), 2),
                 (lambda L: L.tensor(ints), -1), (lambda L: L.zeros(2, 2), -1),
                 (lambda L: L.eye(2), 1.5)):
        with pytest.raises(Exception) as theirs:
            torch.matrix_power(args[0](torch), args[1])
        with pytest.raises(Exception) as ours:
            leafgrad.matrix_power(args[0](leafgrad), args[1])
        assert type(ours.value).__name__ == type(theirs.value).__name__
        assert str(ours.value).split(".")[0].split(",")[0] == \
            str(theirs.value).split(".")[0].split(",")[0]


# ------------------------------------------------- AccumulateGrad's layout contract
def _first_grad_layouts(L, create_graph):
    out = []
    L.manual_seed(0)
    lin = L.nn.Linear(4, 2)
    lin(L.randn(3, 4)).pow(2).sum().backward(create_graph=create_graph)
    g = lin.weight.grad
    out.append((g.stride(), type(g.grad_fn).__name__ if g.grad_fn else None,
                g.view(1, -1).shape))
    w = L.randn(4, 3).t().detach().requires_grad_()      # a leaf with strides (1, 4)
    (w @ L.randn(4, 2)).sum().backward(create_graph=create_graph)
    out.append((w.stride(), w.grad.stride()))
    e = L.randn(3).requires_grad_()
    (e.expand(2, 3).t() @ L.randn(2, 3)).sum().backward(create_graph=create_graph)
    out.append(e.grad.stride())
    return out


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.filterwarnings("ignore:Using backward")
def test_first_grad_is_laid_out_like_the_parameter(create_graph):
    assert _first_grad_layouts(leafgrad, create_graph) == _first_grad_layouts(torch, create_graph)


# ----------------------------------------------- an optimizer that skips __init__
def _lookahead_run(L):
    class Lookahead(L.optim.Optimizer):       # wraps another optimizer, as torch-optimizer's
        def __init__(self, base):
            self.optimizer, self.steps = base, 0
            self.param_groups, self.state, self.defaults = (base.param_groups, base.state,
                                                            base.defaults)

        def step(self, closure=None):
            self.steps += 1
            return self.optimizer.step(closure)

    w = L.nn.Parameter(L.ones(2))
    base = L.optim.SGD([w], lr=0.1)
    calls = []
    base.register_step_pre_hook(lambda o, a, k: calls.append("base"))
    opt = Lookahead(base)
    for _ in range(2):
        # base.zero_grad, not opt's: PyTorch's Optimizer.zero_grad patches the class's
        # step on first use, and the patched step then fails on the missing hooks
        # (AttributeError); leafgrad's keeps stepping (the difference is documented)
        base.zero_grad()
        (w * w).sum().backward()
        opt.step()
    return w.tolist(), calls, opt.steps


def test_optimizer_subclass_skipping_init_steps():
    assert _lookahead_run(leafgrad) == _lookahead_run(torch)


# ---------------------------------------------- deprecated scalar-first call forms
_DEPRECATED_SCRIPT = """
import sys, warnings
L = __import__(sys.argv[1])
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    a = L.zeros(2)
    a.%s
    b = L.zeros(2)
    b.%s
print(a.tolist(), b.tolist())
for w in seen:
    print(w.category.__name__, repr(str(w.message).split(" (Triggered internally")[0]))
"""


@pytest.mark.parametrize("order", [
    ("add_(2.0, L.ones(2))", "addcmul_(0.5, L.ones(2), L.ones(2))"),
    ("addcmul_(0.5, L.ones(2), L.full((2,), 3.0))", "add_(-1.5, L.ones(2))")])
def test_deprecated_scalar_first_forms_warn_once(order):
    import subprocess
    import sys
    from test_examples import child_env
    script = _DEPRECATED_SCRIPT % order
    outs = [subprocess.run([sys.executable, "-c", script, lib], capture_output=True, text=True,
                           env=child_env(), timeout=120) for lib in ("torch", "leafgrad")]
    assert outs[0].returncode == 0 and outs[1].returncode == 0, outs[1].stderr
    assert outs[1].stdout == outs[0].stdout
    assert "UserWarning" in outs[0].stdout
