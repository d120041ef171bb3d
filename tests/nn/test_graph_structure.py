"""Layers and losses record PyTorch's graph: nn.Linear is AddmmBackward0 /
MmBackward0 with edges (bias, input, TBackward0 -> weight); cross_entropy is
NllLossBackward0 -> LogSoftmaxBackward0. Code that walks
``grad_fn.next_functions`` (and graph pictures) sees the same nodes in the same
order as under torch."""
import numpy as np
import pytest
import torch

import leafgrad


def walk(t):
    """[(depth, node name)] in the order of next_functions, depth first."""
    out, stack = [], [(t.grad_fn, 0)]
    while stack:
        node, depth = stack.pop()
        if node is None:
            out.append((depth, None))
            continue
        out.append((depth, type(node).__name__))
        stack.extend((n, depth + 1) for n, _ in reversed(node.next_functions))
    return out


def model_and_loss(T, bias, input_grad, loss):
    T.manual_seed(0)
    m = T.nn.Sequential(T.nn.Linear(4, 3, bias=bias), T.nn.ReLU(), T.nn.Linear(3, 2),
                        T.nn.Tanh(), T.nn.Linear(2, 1, bias=bias))
    x = T.randn(5, 4, requires_grad=input_grad)
    y = m(x)
    if loss == "mse":
        return T.nn.functional.mse_loss(y, T.zeros(5, 1))
    if loss == "bce":
        return T.nn.functional.binary_cross_entropy(T.sigmoid(y), T.ones(5, 1))
    target = T.tensor([0, 1, 1, 0, 1])
    if loss == "ce":
        return T.nn.functional.cross_entropy(m[:3](x), target)
    if loss == "ce_weighted_none":
        return T.nn.functional.cross_entropy(m[:3](x), target, weight=T.tensor([0.3, 2.0]),
                                             reduction="none").sum()
    if loss == "nll":
        return T.nn.functional.nll_loss(T.log_softmax(m[:3](x), 1), target, ignore_index=1)
    return y.sum()


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("input_grad", [True, False])
@pytest.mark.parametrize("loss", ["mse", "bce", "sum", "ce", "ce_weighted_none", "nll"])
def test_mlp_graph_matches_torch(bias, input_grad, loss):
    assert walk(model_and_loss(leafgrad, bias, input_grad, loss)) == \
        walk(model_and_loss(torch, bias, input_grad, loss))


def test_weight_gradient_is_kept_not_copied():
    # the gradient of W^T passes TBackward0 as the transpose of a C-ordered array;
    # the weight gets that array itself (C-ordered, owning its memory)
    lin = leafgrad.nn.Linear(30, 20)
    lin(leafgrad.randn(8, 30)).sum().backward()
    g = lin.weight.grad.numpy()
    assert g.flags.c_contiguous and g.flags.owndata
    tl = torch.nn.Linear(30, 20)
    tl.load_state_dict({k: torch.from_numpy(v.detach().numpy().copy())
                        for k, v in lin.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((8, 30)).astype(np.float32)
    lin.zero_grad()
    lin(leafgrad.from_numpy(x)).pow(2).sum().backward()
    tl(torch.from_numpy(x)).pow(2).sum().backward()
    # float32 GEMM sums: elements near 0 differ in relative terms between CPU kernels
    # (PyTorch's own MKL paths included), so the tolerance is scaled by the largest entry
    for a, b in ((lin.weight.grad, tl.weight.grad), (lin.bias.grad, tl.bias.grad)):
        ref = b.numpy()
        np.testing.assert_allclose(a.numpy(), ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())


def test_second_order_through_linear_matches_torch():
    rng = np.random.default_rng(1)
    w, b = rng.standard_normal((2, 3)), rng.standard_normal(2)
    res = []
    for T in (leafgrad, torch):
        lin = T.nn.Linear(3, 2).double()
        with T.no_grad():
            lin.weight.copy_(T.from_numpy(w))
            lin.bias.copy_(T.from_numpy(b))
        x = T.arange(6.0, dtype=T.float64).reshape(2, 3).div(5).requires_grad_()
        gw, gx = T.autograd.grad(T.tanh(lin(x)).pow(2).sum(), (lin.weight, x), create_graph=True)
        res.append([t.detach().numpy() for t in
                    T.autograd.grad((gw * gw).sum() + gx.sum(), (lin.weight, lin.bias, x))])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10)


@pytest.mark.parametrize("kw", [dict(ignore_index=1), dict(weight=[0.0, 1.0, 2.0])])
def test_ignored_rows_get_positive_zero_gradient(kw):
    # printed gradients show 0., as PyTorch's, not -0.
    grads = []
    for T in (leafgrad, torch):
        x = T.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3], [-1.0, 3.0, 0.0]], requires_grad=True)
        kw2 = {k: (T.tensor(v) if k == "weight" else v) for k, v in kw.items()}
        T.nn.functional.cross_entropy(x, T.tensor([0, 1, 2]), **kw2).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(np.signbit(grads[0]), np.signbit(grads[1]))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


def test_layer_norm_prints_as_torch():
    # row moments accumulated as PyTorch's kernel does: the centre of an evenly
    # spaced row is exactly 0 (a float32 mean would print -1.4589e-06 there)
    out = []
    for T in (leafgrad, torch):
        x = T.tensor([[0.4, 0.5, 0.6], [1.2, 1.3, 1.4]], requires_grad=True)
        out.append(repr(T.nn.LayerNorm(3)(x)))
    assert out[0] == out[1]
    assert "NativeLayerNormBackward0" in out[0]


EXPRESSIONS = {
    "pow_scalar": lambda T, x: x ** 2,
    "pow_half": lambda T, x: x.pow(0.5),
    "scalar_pow": lambda T, x: 2 ** x,
    "pow_tensor": lambda T, x: x.pow(x),
    "rsub": lambda T, x: 1 - x,
    "mul_scalar": lambda T, x: x * 2,
    "add_scalar": lambda T, x: x + 1,
    "div_scalar": lambda T, x: x / 2,
    "rdiv": lambda T, x: 2 / x,
    "where_scalar": lambda T, x: T.where(x > 1, x, 0.0),
}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_scalar_operand_edges_match_torch(name):
    # Tensor-Scalar overloads: pow and rsub record one edge, mul/add/div two
    # (the number is a wrapped tensor there), as in PyTorch
    got = []
    for T in (leafgrad, torch):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        got.append(walk(EXPRESSIONS[name](T, x).sum()))
    assert got[0] == got[1]


@pytest.mark.parametrize("train", [True, False])
def test_batch_norm_output_names_torch_node(train):
    names = []
    for T in (leafgrad, torch):
        bn = T.nn.BatchNorm1d(3).train(train)
        y = bn(T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 7.0], [0.0, 1.0, 1.0]]))
        names.append(type(y.grad_fn).__name__)
    assert names[0] == names[1] == "NativeBatchNormBackward0"
