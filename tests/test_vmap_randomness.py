"""torch.func.vmap's randomness flag against real torch 2.13: random operations refused in
the default 'error' mode (also dropout, nested vmaps), 'same' (every element draws the
same numbers) and 'different' (the numbers of one batched uniform draw)."""
import numpy as np
import torch

import leafgrad
from _outcome import raised


def _refusals(T):
    x = T.ones(3, 2)
    return raised([lambda: T.vmap(lambda t: t + T.rand(2))(x),
                   lambda: T.vmap(lambda t: T.nn.functional.dropout(t, 0.5))(x),
                   lambda: T.vmap(lambda t: t + T.randn(2))(x),
                   lambda: T.vmap(lambda t: t * 2)(x),
                   lambda: T.vmap(T.vmap(lambda t: t + T.rand(1)), randomness="different")(x),
                   lambda: T.vmap(lambda t: t, randomness="bad")(x)])


def test_error_mode_matches_torch():
    assert _refusals(leafgrad) == _refusals(torch)
    try:
        leafgrad.vmap(lambda t: t + leafgrad.rand(2))(leafgrad.ones(3, 2))
    except RuntimeError as e:
        assert "randomness error mode" in str(e)


def _draws(T):
    T.manual_seed(0)
    same = T.vmap(lambda t: t + T.rand(2), randomness="same")(T.zeros(3, 2))
    after = T.rand(1)
    T.manual_seed(0)
    diff = T.vmap(lambda t: t + T.rand(2), randomness="different")(T.zeros(3, 2))
    return [same.numpy(), after.numpy(), diff.numpy()]


def test_same_and_different_match_torch():
    for g, w in zip(_draws(leafgrad), _draws(torch)):
        np.testing.assert_array_equal(g, w)
