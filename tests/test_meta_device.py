"""The 'meta' device (leafgrad/_tensor/meta.py) against PyTorch 2.13: repr, device, the errors
on reading values, Module.to('meta') as a functional_call skeleton (the model-ensembling
tutorial), to_empty, deepcopy; factories and modules made on meta (device='meta', with
torch.device('meta')), shapes and dtypes through ops without values (the recipe
reasoning_about_shapes), load_state_dict(assign=True); the refusals where the result
would depend on values."""
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



def _meta_repr(T, f):
    """repr of f(T) (a tensor, a tuple of them, or the exception class)."""
    try:
        r = f(T)
    except Exception as e:   # noqa: BLE001
        # the builtin class (leafgrad's ShapeError is a RuntimeError)
        return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
    if isinstance(r, tuple):
        return tuple(repr(e) for e in r)
    return repr(r)


_M = "meta"
OPS = [
    lambda T: T.randn(2, 3, device=_M) * 2,
    lambda T: T.randn(2, 3, device=_M, requires_grad=True).exp(),
    lambda T: T.randn(2, 3, device=_M).sum(),
    lambda T: T.randn(2, 3, device=_M).sum(0, keepdim=True),
    lambda T: T.randn(2, 3, device=_M, dtype=T.float64).mean(1),
    lambda T: T.ones(2, 3, device=_M, dtype=T.int64).sum(),
    lambda T: T.ones(2, 3, device=_M, dtype=T.int32) / 2,
    lambda T: T.ones(2, 3, device=_M, dtype=T.int64) + 1.5,
    lambda T: T.ones(2, 3, device=_M) + T.tensor(2.0),
    lambda T: T.ones(2, 3, device=_M) > 0,
    lambda T: (lambda t: t @ t.T)(T.randn(2, 3, device=_M, requires_grad=True)),
    lambda T: T.randn(4, 2, 3, device=_M) @ T.randn(3, 5, device=_M),
    lambda T: T.randn(3, device=_M) @ T.randn(3, 5, device=_M),
    lambda T: T.randn(2, 3, device=_M)[0],
    lambda T: T.randn(2, 3, device=_M)[:, None, 1:],
    lambda T: T.randn(4, 3, device=_M)[T.tensor([0, 2, 2], device=_M)],
    lambda T: T.randn(2, 3, device=_M).reshape(3, 2),
    lambda T: T.randn(2, 3, 4, device=_M).view(-1, 4),
    lambda T: T.randn(2, 3, 4, device=_M).permute(2, 0, 1),
    lambda T: T.randn(2, 3, 4, device=_M).flatten(1),
    lambda T: T.randn(2, 1, 4, device=_M).expand(2, 5, 4),
    lambda T: T.randn(2, 3, device=_M).unsqueeze(1).squeeze(),
    lambda T: T.randn(2, 3, device=_M).clone(),
    lambda T: T.randn(2, 3, device=_M).t().contiguous(),
    lambda T: T.cat([T.randn(2, 3, device=_M), T.randn(4, 3, device=_M)]),
    lambda T: T.stack([T.randn(2, 3, device=_M)] * 3, 1),
    lambda T: T.where(T.randn(2, 3, device=_M) > 0, T.randn(2, 3, device=_M), 0.0),
    lambda T: T.relu(T.randn(2, 3, device=_M, requires_grad=True)),
    lambda T: T.randn(2, 3, device=_M).softmax(-1),
    lambda T: T.randn(2, 3, device=_M).to(T.float64),
    lambda T: T.randn(2, 3, device=_M).float().long(),
    lambda T: T.nn.functional.conv2d(T.randn(2, 3, 10, 10, device=_M),
                                     T.randn(5, 3, 3, 3, device=_M), stride=2, padding=1),
    lambda T: T.nn.functional.conv1d(T.randn(3, 8, device=_M), T.randn(4, 3, 3, device=_M)),
    lambda T: T.nn.functional.max_pool2d(T.randn(2, 3, 9, 9, device=_M), 2),
    lambda T: T.nn.functional.max_pool2d(T.randn(2, 3, 9, 9, device=_M), 3, 2,
                                         return_indices=True),
    lambda T: T.nn.functional.avg_pool2d(T.randn(2, 3, 9, 9, device=_M), 3, ceil_mode=True),
    lambda T: T.nn.functional.linear(T.randn(4, 3, device=_M), T.randn(5, 3, device=_M),
                                     T.randn(5, device=_M)),
    lambda T: T.einsum("ij,jk->ik", T.randn(2, 3, device=_M), T.randn(3, 4, device=_M)),
    lambda T: T.nn.Linear(3, 2, device=_M)(T.randn(7, 3, device=_M)),
    # big shapes cost nothing (no memory)
    lambda T: T.nn.Conv2d(3, 5, 2, device=_M)(T.rand(2 ** 10, 3, 2 ** 16, 2 ** 16, device=_M)),
    lambda T: T.ones(2 ** 20, 2 ** 20, device=_M).sum(1),
    # factories
    lambda T: T.zeros(2, 3, device=_M),
    lambda T: T.full((2,), 7, device=_M),
    lambda T: T.empty(3, dtype=T.float64, device=_M),
    lambda T: T.tensor([1, 2], device=_M),
    lambda T: T.arange(5, device=_M),
    lambda T: T.eye(3, device=_M),
    lambda T: T.randint(0, 5, (3,), device=_M),
    lambda T: T.zeros_like(T.ones(2, device=_M)),
    lambda T: T.rand_like(T.ones(2, device=_M)),
    lambda T: T.empty(2, 3, device=_M).uniform_(),
    lambda T: T.empty(2, 3, device=_M).normal_().zero_(),
    lambda T: T.empty(2, 3, device=_M).fill_(2.0),
    # errors as PyTorch's: mixing devices, values
    lambda T: T.ones(2, 3, device=_M) + T.ones(2, 3),
    lambda T: T.ones(3) * T.ones(3, device=_M),
    lambda T: T.nn.Linear(3, 2).to(_M)(T.ones(1, 3)),
    lambda T: T.ones(2, device=_M).item(),
    lambda T: bool(T.ones(1, device=_M)),
    lambda T: T.ones(2, device=_M).tolist(),
    lambda T: T.nonzero(T.ones(2, device=_M)),
    lambda T: T.ones(2, device=_M)[T.ones(2, device=_M) > 0],
    lambda T: T.ones(2, 3, device=_M).reshape(4, 2),
    lambda T: T.ones(2, 3, device=_M) @ T.ones(2, 3, device=_M),
]


@pytest.mark.parametrize("i", range(len(OPS)))
def test_ops_on_meta_give_torch_shapes_dtypes_and_errors(i):
    assert _meta_repr(lg, OPS[i]) == _meta_repr(torch, OPS[i])


def test_meta_factories_leave_the_random_stream_alone():
    out = []
    for T in (lg, torch):
        T.manual_seed(0)
        T.rand(3, device="meta")
        T.nn.Linear(3, 3, device="meta")
        with T.device("meta"):
            T.nn.Conv2d(3, 4, 3)
            T.randn(5)
        out.append(T.rand(4).tolist())
    assert out[0] == out[1]


def test_device_meta_context_and_default_device():
    for T in (lg, torch):
        with T.device("meta"):
            m = T.nn.Linear(3, 2)
            x = T.randn(4, 3)
            assert str(T.get_default_device()) == "meta"
        assert m.weight.is_meta and m.bias.is_meta and x.is_meta
        assert isinstance(m.weight, T.nn.Parameter) and m.weight.requires_grad
        assert str(T.get_default_device()) == "cpu"
        assert not T.zeros(1).is_meta
        # *_like follow the input, not the default device
        with T.device("meta"):
            assert not T.zeros_like(T.ones(1, device="cpu")).is_meta
        T.set_default_device("meta")
        try:
            assert T.ones(2).is_meta
        finally:
            T.set_default_device("cpu")
        assert not T.ones(2).is_meta


def test_forward_hooks_on_a_meta_net_print_torch_shapes():
    # the recipe reasoning_about_shapes
    def run(T):
        F = T.nn.functional

        class Net(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = T.nn.Conv2d(3, 6, 5)
                self.pool = T.nn.MaxPool2d(2, 2)
                self.conv2 = T.nn.Conv2d(6, 16, 5)
                self.fc1 = T.nn.Linear(16 * 5 * 5, 120)
                self.fc2 = T.nn.Linear(120, 84)

            def forward(self, x):
                x = self.pool(F.relu(self.conv1(x)))
                x = self.pool(F.relu(self.conv2(x)))
                return F.relu(self.fc2(F.relu(self.fc1(T.flatten(x, 1)))))
        seen = []
        with T.device("meta"):
            net = Net()
            inp = T.randn((1024, 3, 32, 32))
        for _, layer in net.named_modules():
            layer.register_forward_hook(lambda m, i, o: seen.append(str(o.shape)))
        out = net(inp)
        return seen, repr(out)
    assert run(lg) == run(torch)


def test_load_state_dict_assign_into_a_meta_module():
    # the recipe module_load_state_dict_tips
    for T in (lg, torch):
        T.manual_seed(0)
        sd = T.nn.Linear(4, 3).state_dict()
        with T.device("meta"):
            m = T.nn.Linear(4, 3)
        m.load_state_dict(sd, assign=True)
        assert not m.weight.is_meta and isinstance(m.weight, T.nn.Parameter)
        assert m.weight.requires_grad and m.weight.is_leaf
        with T.no_grad():        # assign=True: the module holds the state dict's memory
            sd["weight"][0, 0] = 5.0
        assert m.weight[0, 0].item() == 5.0
        np.testing.assert_array_equal(m(T.ones(2, 4)).detach().numpy(),
                                      (T.ones(2, 4) @ sd["weight"].T + sd["bias"]).numpy())
        # without assign, copying values into meta parameters does nothing (PyTorch warns)
        with T.device("meta"):
            m2 = T.nn.Linear(4, 3)
        m2.to_empty(device="cpu")
        m2.load_state_dict(sd)
        np.testing.assert_array_equal(m2.weight.detach().numpy(), sd["weight"].numpy())


def test_load_state_dict_into_meta_without_assign_warns_as_torch():
    msgs = []
    for T in (lg, torch):
        sd = T.nn.Linear(4, 3).state_dict()
        with T.device("meta"):
            m = T.nn.Linear(4, 3)
        with pytest.warns(UserWarning) as rec:
            m.load_state_dict(sd)
        assert m.weight.is_meta
        msgs.append([str(w.message) for w in rec])
    assert msgs[0] == msgs[1]
