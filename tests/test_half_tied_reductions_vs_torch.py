"""float16 reductions over many tied values, and float16 times / divided by one value,
against real PyTorch (issue 27): a backward that splits the gradient among n ties
divides by n, and PyTorch computes ``half / n`` in float32 when n is one value
(``iter.original_scalar_value<float>``), so n = 66000 (inf in float16) still gives
1/66000; a count of several values is cast to float16 first (inf: 0), as here."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad

N = 66000       # beyond float16's largest finite value (65504)


def _grads(T, f, shape, gy):
    x = T.ones(shape, dtype=T.float16, requires_grad=True)
    y = f(x)
    g = T.full_like(y, gy)
    (gx,) = T.autograd.grad(y, x, g, create_graph=True)
    return x, gx


REDUCTIONS = {
    "max": ((N,), lambda x: x.max()),
    "min": ((N,), lambda x: x.min()),
    "amax": ((N,), lambda x: x.amax()),
    "amin_dim0": ((N,), lambda x: x.amin(0)),
    "amax_one_row": ((1, N), lambda x: x.amax(1)),
    "amax_two_rows": ((2, N), lambda x: x.amax(1)),          # PyTorch: 0 (count cast to half)
    "amin_two_cols_keepdim": ((N, 2), lambda x: x.amin(0, keepdim=True)),
    "amax_tuple": ((2, N // 2), lambda x: x.amax((0, 1))),
    "median": ((N,), lambda x: x.median()),
    "nanmedian": ((N,), lambda x: x.nanmedian()),
    "median_dim": ((2, N), lambda x: x.median(1).values),
    "mode": ((N,), lambda x: x.mode(0).values),
    "max_dim": ((2, N), lambda x: x.max(1).values),
    "kthvalue": ((N,), lambda x: x.kthvalue(5).values),
    "topk": ((N,), lambda x: x.topk(3).values),
    "sort": ((N,), lambda x: x.sort().values[:7]),
    "mean": ((N,), lambda x: x.mean()),
    "mean_dim": ((2, N), lambda x: x.mean(1)),
    "nanmean": ((N,), lambda x: x.nanmean()),
    "max_3001": ((3001,), lambda x: x.max()),
}


# which of the tied elements these return (and so which gets the gradient) PyTorch leaves
# open (its selection and sort algorithms): compared as the multiset of gradient values
WHICH_TIE_OPEN = {"kthvalue", "mode", "sort"}


@pytest.mark.parametrize("gy", [1.0, 3.0])
@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_tied_half_reduction_gradient(name, gy):
    shape, f = REDUCTIONS[name]
    _, want = _grads(torch, f, shape, gy)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)      # PyTorch is silent
        _, got = _grads(leafgrad, f, shape, gy)
    assert got.dtype == leafgrad.float16
    got, want = got.detach().numpy(), want.detach().numpy()
    if name in WHICH_TIE_OPEN:
        got, want = np.sort(got, axis=None), np.sort(want, axis=None)
    np.testing.assert_array_equal(got, want)


def test_the_reproducer():
    x = leafgrad.ones(N, dtype=leafgrad.float16, requires_grad=True)
    x.max().backward()
    assert x.grad[0].item() == 1.5139579772949219e-05


@pytest.mark.parametrize("op", ["mul", "div"])
@pytest.mark.parametrize("other", ["int", "float", "0d_int64", "0d_float32", "one_element",
                                   "one_element_2d", "full_int64", "tiny", "huge"])
def test_half_by_one_value(op, other):
    def run(T):
        a = T.tensor(np.linspace(-3, 1e3, 257), dtype=T.float16)
        b = {"int": 3001, "float": 0.1, "0d_int64": T.tensor(N), "0d_float32": T.tensor(1 / 3),
             "one_element": T.tensor([7e4]), "one_element_2d": T.tensor([[N]]),
             "full_int64": T.full((257,), N), "tiny": 1e-6, "huge": 1e5}[other]
        return getattr(T, op)(a, b).numpy()
    want = run(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = run(leafgrad)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape,dim", [((N,), None), ((2, N), 1), ((N, 2), 0)])
@pytest.mark.parametrize("value", [1.0, -2.5, 1e-3])
def test_half_mean_of_many_is_summed_in_float32(shape, dim, value):
    # PyTorch's CPU mean_out sums float16 in float32, divides, then rounds
    want = torch.full(shape, value, dtype=torch.float16).mean(dim).numpy()
    got = leafgrad.full(shape, value, dtype=leafgrad.float16).mean(dim).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
