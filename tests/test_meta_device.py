"""The 'meta' device (leafgrad/_meta.py) against PyTorch 2.13: repr, device, the errors
on reading values, Module.to('meta') as a functional_call skeleton (the model-ensembling
tutorial), to_empty, deepcopy; and leafgrad's refusal to compute on meta tensors."""
import copy

import numpy as np
import pytest
import torch

import leafgrad as lg


@pytest.mark.parametrize("make", [
    lambda T: T.randn(2, 3, requires_grad=True).to("meta"),
    lambda T: T.randn(2, 3).to("meta"),
    lambda T: T.ones(4, dtype=T.float64).to(device="meta"),
    lambda T: T.zeros(2, 0).to(T.device("meta")),
    lambda T: T.tensor(3.0).to("meta"),
    lambda T: T.nn.Parameter(T.ones(2, 2)).to("meta"),
])
def test_repr_device_and_metadata_match_torch(make):
    a, b = make(lg), make(torch)
    assert repr(a) == repr(b)
    assert str(a.device) == str(b.device) == "meta"
    assert a.is_meta and b.is_meta
    assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
    assert a.requires_grad == b.requires_grad and a.is_leaf == b.is_leaf
    assert a.numel() == b.numel() and a.dim() == b.dim()


@pytest.mark.parametrize("read", [
    lambda t: t.item(),
    lambda t: t.tolist(),
    lambda t: t.numpy(),
    lambda t: t.to("cpu"),
])
def test_reading_values_raises_torch_class(read):
    def outcome(T):
        try:
            read(T.tensor([1.5]).to("meta"))
        except Exception as e:   # noqa: BLE001
            return type(e).__name__
        return "no error"
    assert outcome(lg) == outcome(torch) != "no error"


def test_module_to_meta_is_a_skeleton_for_functional_call():
    lg.manual_seed(0)
    torch.manual_seed(0)
    outs = []
    for T in (lg, torch):
        models = [T.nn.Sequential(T.nn.Linear(5, 4), T.nn.ReLU(), T.nn.Linear(4, 3))
                  for _ in range(3)]
        params, buffers = T.func.stack_module_state(models)
        base = copy.deepcopy(models[0]).to("meta")
        assert repr(base[0].weight) == ("Parameter containing:\ntensor(..., device='meta', "
                                       "size=(4, 5), requires_grad=True)")
        x = T.ones(2, 5) * T.arange(5.0)

        def fmodel(p, b, x):
            return T.func.functional_call(base, (p, b), (x,))
        out = T.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
        assert str(out.device) == "cpu"
        outs.append(out.detach().numpy())
        # the models themselves keep their values
        assert str(models[0][0].weight.device) == "cpu"
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)


def test_to_empty_gives_storage_of_the_same_shape():
    for T in (lg, torch):
        m = T.nn.Linear(3, 2).to("meta")
        m.to_empty(device="cpu")
        assert str(m.weight.device) == "cpu" and tuple(m.weight.shape) == (2, 3)
        assert isinstance(m.weight, T.nn.Parameter) and m.weight.is_leaf
        # readable now (PyTorch's storage is uninitialised: look at the array, not its values)
        assert m.weight.detach().numpy().shape == (2, 3)


def test_deepcopy_and_state_dict_stay_meta():
    m = lg.nn.Linear(3, 2).to("meta")
    c = copy.deepcopy(m)
    assert c.weight.is_meta and c.bias.is_meta
    assert m.state_dict()["weight"].is_meta


@pytest.mark.parametrize("op", [
    lambda t: t * 2, lambda t: t.sum(), lambda t: t @ t.T, lambda t: t[0],
    lambda t: t.reshape(3, 2), lambda t: t.clone(), lambda t: lg.relu(t),
    lambda t: t + lg.ones(2, 3), lambda t: lg.nn.Linear(3, 2).to("meta")(lg.ones(1, 3)),
])
def test_computing_on_meta_is_refused_not_faked(op):
    # PyTorch computes shapes on meta tensors; leafgrad refuses rather than hand out the
    # placeholder's values as numbers
    t = lg.randn(2, 3).to("meta")
    with pytest.raises(NotImplementedError, match="meta"):
        op(t)
