"""torch.cov's refusals as PyTorch (found by the op table's cov row): weights summing to
zero raise RuntimeError (it returned nan); with weights and one observation PyTorch's
kernel works in place on its input, refused for a leaf requiring grad."""
import pytest
import torch

import leafgrad


@pytest.mark.parametrize("kw", [{"fweights": [0, 0, 0]}, {"aweights": [0.0, 0.0, 0.0]},
                                {"fweights": [0, 1, 0], "aweights": [1.0, 0.0, 2.0]}])
def test_zero_weight_sum_raises_as_pytorch(kw):
    for T in (torch, leafgrad):
        x = T.tensor([[1.0, 2.0, 4.0], [0.0, 1.0, 3.0]])
        args = {k: T.tensor(v) for k, v in kw.items()}
        with pytest.raises(RuntimeError, match="weights sum to zero"):
            T.cov(x, **args)


def test_positive_weights_still_match_pytorch():
    out = []
    for T in (torch, leafgrad):
        x = T.tensor([[1.0, 2.0, 4.0], [0.0, 1.0, 3.0]])
        out.append(T.cov(x, fweights=T.tensor([0, 2, 1])).flatten().tolist())
    assert out[0] == pytest.approx(out[1], rel=1e-6)


@pytest.mark.parametrize("shape", [(1, 1), (2, 1), (1,)])
@pytest.mark.parametrize("leaf", [True, False])
@pytest.mark.parametrize("kinds", ["f", "a", "fa"])
def test_one_observation_with_weights_as_pytorch(shape, leaf, kinds):
    res = []
    for T in (torch, leafgrad):
        x = T.ones(shape, requires_grad=True)
        x = x if leaf else x * 2
        kw = {"fweights": T.tensor([2]) if "f" in kinds else None,
              "aweights": T.tensor([0.5]) if "a" in kinds else None}
        try:
            res.append(T.cov(x, correction=0, **kw).detach().flatten().tolist())
        except RuntimeError as e:
            res.append(("RuntimeError", "view of a leaf" in str(e)))
    assert res[0] == res[1]
