"""repr() of tensors equals PyTorch's, character for character."""
import pytest
import torch

import leafgrad

CASES = [
    # 0-d
    "T.tensor(3.)", "T.tensor(-0.5)", "T.tensor(7)", "T.tensor(True)", "T.tensor(1e-8)",
    "T.tensor(123456789.)", "T.tensor(2., dtype=T.float64)", "T.tensor(3, dtype=T.int32)",
    # ints and bools
    "T.tensor([1, 2, 3])", "T.tensor([-10, 200, 3000])", "T.tensor([True, False])",
    "T.tensor([[1, 2], [3, 4]], dtype=T.int32)", "T.tensor([1, 2], dtype=T.uint8)",
    "T.tensor([1, 2], dtype=T.int16)", "T.tensor([1, 2], dtype=T.int8)",
    # floats
    "T.tensor([1., 2., 3.])", "T.tensor([1.5, -2.25, 3.])", "T.tensor([0.1, 0.2, 0.3])",
    "T.tensor([1e-5, 1., 100.])", "T.tensor([1e-10, 1.])", "T.tensor([1e10, 1.])",
    "T.tensor([123456.7, 0.5])", "T.tensor([1e8, 2e8])", "T.tensor([0.001, 0.002])",
    "T.tensor([1.0001, 2.0])", "T.tensor([[1.5, 2.], [3., 4.25]])",
    "T.tensor([1., 2.], dtype=T.float64)", "T.tensor([0.1, 0.2], dtype=T.float64)",
    "T.tensor([1., 2.], dtype=T.float16)",
    "T.arange(6.).reshape(2, 3) / 7", "T.arange(24.).reshape(2, 3, 4)",
    # negative zero, nan, inf
    "T.tensor([-0., 0., 1.])", "T.tensor(-0.)", "T.tensor([float('nan'), 1., 2.])",
    "T.tensor([float('inf'), -float('inf'), 1.5])", "T.tensor([float('nan')])",
    "T.tensor([float('inf'), 1e-8])", "T.tensor([float('nan'), 1e10])",
    # large: summarised with ...
    "T.arange(1001)", "T.arange(2000.) / 3", "T.arange(1200.).reshape(40, 30)",
    "T.ones(3, 400)", "T.arange(5000).reshape(50, 100)",
    "T.arange(1000)",
    # empty
    "T.tensor([])", "T.zeros(0, 3)", "T.zeros(2, 0)", "T.tensor([], dtype=T.int64)",
    "T.zeros(0, dtype=T.float64)", "T.zeros(0, 2, 3)",
    # autograd suffixes
    "T.tensor([1., 2.], requires_grad=True)", "T.tensor(2., requires_grad=True)",
    "T.tensor([1., 2.], requires_grad=True) * 2", "T.tensor([1., 2.], requires_grad=True).sum()",
    "T.tensor([1., 2.], dtype=T.float64, requires_grad=True)",
    "T.tensor([1., 2.], dtype=T.float64, requires_grad=True).exp()",
    "T.tensor([[1., 2.]], requires_grad=True).t()",
    "T.tensor([1., 2.], requires_grad=True)[0]",
    "T.tensor([1., 2.], requires_grad=True).mean()",
    "T.tensor([1., 2.], requires_grad=True) @ T.tensor([3., 4.])",
    "T.tensor([1., 2.], requires_grad=True).detach()",
    "T.zeros(0, requires_grad=True)",
    "T.nn.functional.relu(T.tensor([-1., 2.], requires_grad=True))",
    "T.tensor([float('nan'), 1.], requires_grad=True) + 1",
    # mixed magnitude columns
    "T.tensor([[1e-3, 1e3], [5., 6.]])", "T.tensor([[1, -1000], [10, 5]])",
    "T.tensor([1e16, 1.])", "T.tensor([9007199254740993])", "T.tensor([-1e-4, 5e-5])",
    "T.tensor([[float('nan'), -0.], [1e-9, 3.]])", "T.tensor([2.5e-3, 7e2], dtype=T.float64)",
    "T.linspace(-1, 1, 7)",       # middle value -2.98e-08, bit for bit as torch's kernel
    "T.tensor([[[1.]]])", "T.ones(1, 1, 1, 1, dtype=T.int64)",
    # complex: one formatter for the real parts, one for the imaginary parts
    "T.tensor([1+2j, 3-4j])", "T.tensor(-1-1j)", "T.tensor(0.5j)", "T.tensor([1e-5+1j, -0.-0.j])",
    "T.tensor([[1.5+2j, 3-4.25j], [0j, 1e-3+1e5j]])", "T.zeros(3, dtype=T.complex128)",
    "T.tensor([1+2j], dtype=T.complex128)", "T.tensor([float('nan') + 1j, 2 + float('inf') * 1j])",
    "T.arange(2000.).reshape(1000, 2) @ T.ones(2, 1) * (1 + 1j)",
    "T.zeros(0, dtype=T.complex64)",
]


@pytest.mark.parametrize("expr", CASES)
def test_repr_matches_torch(expr):
    expected = repr(eval(expr, {"T": torch}))
    got = repr(eval(expr, {"T": leafgrad}))
    assert got == expected, "\nleafgrad:\n%s\ntorch:\n%s" % (got, expected)


@pytest.mark.parametrize("expr", ["T.tensor([1.5, 2.])", "T.tensor(3)", "T.arange(2000.)",
                                  "T.tensor([1., 2.], requires_grad=True) * 2"])
def test_str_matches_torch(expr):
    assert str(eval(expr, {"T": leafgrad})) == str(eval(expr, {"T": torch}))


def test_printoptions_precision():
    try:
        for T in (torch, leafgrad):
            T.set_printoptions(precision=2)
        assert repr(leafgrad.tensor([1.23456, 2.5])) == repr(torch.tensor([1.23456, 2.5]))
    finally:
        for T in (torch, leafgrad):
            T.set_printoptions(profile="default")
    assert repr(leafgrad.tensor([1.23456])) == repr(torch.tensor([1.23456]))


PRINTOPT_VALUES = ["T.tensor([1e-6, 1.0])", "T.tensor([1e-10, 1.])", "T.tensor([1e10, 1.])",
                   "T.tensor([1., 2., 3.])", "T.tensor([1e9, 3.])", "T.tensor([0.5, -2.25])",
                   "T.tensor([[1e-6, 123.456], [7., -0.001]])", "T.tensor([0., 0.])",
                   "T.tensor([float('nan'), 1e-6, float('inf')])", "T.tensor(1e-6)",
                   "T.tensor([1, 2000000])", "T.tensor([1e-6, 1.], dtype=T.float64)"]


@pytest.mark.parametrize("opts", [dict(sci_mode=False), dict(sci_mode=True), dict(sci_mode=None),
                                  dict(precision=2), dict(precision=6, sci_mode=False),
                                  dict(precision=1, sci_mode=True), dict(precision=0)],
                         ids=lambda o: ",".join("%s=%s" % kv for kv in o.items()))
def test_printoptions_sci_mode_and_precision(opts):
    try:
        for T in (torch, leafgrad):
            T.set_printoptions(**opts)
        for expr in PRINTOPT_VALUES:
            got, expected = repr(eval(expr, {"T": leafgrad})), repr(eval(expr, {"T": torch}))
            assert got == expected, "%s with %s\nleafgrad: %s\ntorch:    %s" % (
                expr, opts, got, expected)
    finally:
        for T in (torch, leafgrad):
            T.set_printoptions(profile="default")
