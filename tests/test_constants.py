"""torch.inf, nan, pi, e, newaxis: the same Python objects' values and types as PyTorch's."""
import math

import pytest
import torch

import leafgrad


@pytest.mark.parametrize("name", ["inf", "nan", "pi", "e", "newaxis"])
def test_constant_is_pytorchs(name):
    a, b = getattr(torch, name), getattr(leafgrad, name)
    assert type(a) is type(b)
    assert (math.isnan(a) and math.isnan(b)) if name == "nan" else a == b


def test_constants_in_use():
    x = leafgrad.tensor([1.0, 2.0])
    m = leafgrad.tensor([True, False])
    assert x.masked_fill(m, -leafgrad.inf).tolist() == [-math.inf, 2.0]
    assert tuple(x[leafgrad.newaxis].shape) == tuple(torch.ones(2)[torch.newaxis].shape)
