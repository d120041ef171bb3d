"""PoissonNLLLoss, GaussianNLLLoss, TripletMarginLoss(WithDistance), MultiMarginLoss,
MultiLabelMarginLoss, MultiLabelSoftMarginLoss against real PyTorch 2.13: values,
gradients of every float input, reprs, buffers, second order, error classes."""
import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn
import leafgrad.nn.functional as LF
from leafgrad.autograd import gradgradcheck


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


POS = np.abs(arr(4, 5, seed=9)) * 3
MT = np.array([[3, 0, -1, 1, 1], [1, 2, 3, 4, 0], [-1, 1, 2, 3, 4], [4, 4, -1, 0, 0]])
T = np.array([1, 0, 4, 2])

CASES = [
    ("PoissonNLLLoss()", (arr(4, 5), POS)),
    ("PoissonNLLLoss(log_input=False, full=True, reduction='sum')",
     (np.abs(arr(4, 5)) + 0.1, np.round(POS) + 2)),
    ("PoissonNLLLoss(reduction='none', eps=1e-3)", (arr(4, 5), POS)),
    ("GaussianNLLLoss()", (arr(4, 5), arr(4, 5, seed=1), np.abs(arr(4, 5, seed=2)))),
    ("GaussianNLLLoss(full=True, reduction='none')",
     (arr(4, 5), arr(4, 5, seed=1), np.abs(arr(4, seed=2)))),
    ("GaussianNLLLoss(eps=0.5, reduction='sum')",
     (arr(4, 5), arr(4, 5, seed=1), np.abs(arr(4, 1, seed=2)))),
    ("TripletMarginLoss()", (arr(4, 5), arr(4, 5, seed=1), arr(4, 5, seed=2))),
    ("TripletMarginLoss(margin=2.0, p=1, swap=True, reduction='none')",
     (arr(4, 5), arr(4, 5, seed=1), arr(4, 5, seed=2))),
    ("TripletMarginWithDistanceLoss()", (arr(4, 5), arr(4, 5, seed=1), arr(4, 5, seed=2))),
    ("TripletMarginWithDistanceLoss(distance_function=CosineSimilarity(), swap=True)",
     (arr(4, 5), arr(4, 5, seed=1), arr(4, 5, seed=2))),
    ("MultiMarginLoss()", (arr(4, 5), T)),
    ("MultiMarginLoss(p=2, margin=0.5, reduction='none')", (arr(4, 5), T)),
    ("MultiMarginLoss()", (arr(5), np.array(2))),
    ("MultiLabelMarginLoss()", (arr(4, 5), MT)),
    ("MultiLabelMarginLoss(reduction='none')", (arr(4, 5), MT)),
    ("MultiLabelMarginLoss()", (arr(5), np.array([2, 1, -1, 0, 0]))),
    ("MultiLabelSoftMarginLoss()", (arr(4, 5), (arr(4, 5, seed=3) > 0).astype(np.float32))),
    ("MultiLabelSoftMarginLoss(reduction='none')",
     (arr(4, 5), (arr(4, 5, seed=3) > 0).astype(np.float32))),
]


@pytest.mark.parametrize("expr,inputs", CASES)
def test_losses_match_torch(expr, inputs):
    t, l = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    assert repr(l) == repr(t)
    tin = [torch.tensor(x, requires_grad=x.dtype.kind == "f") for x in inputs]
    lin = [lg.tensor(x, requires_grad=x.dtype.kind == "f") for x in inputs]
    tout, lout = t(*tin), l(*lin)
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-6)
    if "Margin" in expr and "Triplet" not in expr and "Soft" not in expr:
        assert type(lout.grad_fn).__name__ == type(tout.grad_fn).__name__
    g = arr(*tout.shape, seed=5) if tout.dim() else np.float32(1.5)
    (tout * torch.tensor(g)).sum().backward()
    (lout * lg.tensor(g)).sum().backward()
    for a, b in zip(tin, lin):
        if a.requires_grad:
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_weighted_losses_keep_weight_as_buffer():
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
    for cls in ("MultiMarginLoss", "MultiLabelSoftMarginLoss"):
        t = getattr(torch.nn, cls)(weight=torch.tensor(w))
        l = getattr(lnn, cls)(weight=lg.tensor(w))
        assert list(l.state_dict()) == list(t.state_dict()) == ["weight"]
        x = arr(4, 5)
        y = T if cls == "MultiMarginLoss" else (arr(4, 5, seed=3) > 0).astype(np.float32)
        np.testing.assert_allclose(l(lg.tensor(x), lg.tensor(y)).numpy(),
                                   t(torch.tensor(x), torch.tensor(y)).numpy(), rtol=1e-5)


def test_second_order():
    rng = np.random.default_rng(0)
    x = lg.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    v = lg.tensor(np.abs(rng.standard_normal((3, 4))) + 0.5, requires_grad=True)
    y = lg.tensor(rng.standard_normal((3, 4)))
    assert gradgradcheck(lambda a, b: LF.gaussian_nll_loss(a, y, b), (x, v))
    assert gradgradcheck(lambda a: LF.multilabel_soft_margin_loss(a, (y > 0).double()), (x,))
    assert gradgradcheck(lambda a: LF.poisson_nll_loss(a, y.abs()), (x,))


@pytest.mark.parametrize("call,exc", [
    (lambda nn, m: nn.GaussianNLLLoss()(m.randn(3, 4), m.randn(3, 4), -m.ones(3, 4)),
     ValueError),
    (lambda nn, m: nn.GaussianNLLLoss()(m.randn(3, 4), m.randn(3, 4), m.ones(2, 4)), ValueError),
    (lambda nn, m: nn.TripletMarginLoss(margin=-1.0), ValueError),
    (lambda nn, m: nn.TripletMarginLoss()(m.randn(3, 4), m.randn(3, 4), m.randn(4)),
     RuntimeError),
    (lambda nn, m: nn.MultiMarginLoss(p=3), ValueError),
    (lambda nn, m: nn.MultiMarginLoss()(m.randn(3, 4), m.tensor([0, 5, 1])), RuntimeError),
    (lambda nn, m: nn.MultiLabelMarginLoss()(m.randn(3, 4), m.tensor([[0, 1, -1, 0]])),
     RuntimeError),
    (lambda nn, m: nn.PoissonNLLLoss(reduction="avg")(m.randn(3), m.ones(3)), ValueError),
])
def test_errors_as_torch(call, exc):
    with pytest.raises(exc):
        call(torch.nn, torch)
    with pytest.raises(exc):
        call(lnn, lg)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("fmt", ["padded", "concatenated"])
def test_ctc_loss_matches_torch(reduction, fmt):
    rng = np.random.default_rng(0)
    T, N, C, S = 12, 3, 5, 4
    x = rng.standard_normal((T, N, C)).astype(np.float32)
    tg = rng.integers(1, C, (N, S))
    tg[0, 1] = tg[0, 0]                       # a repeated label needs a blank between
    il, tl = np.array([12, 10, 7]), np.array([4, 2, 3])
    if fmt == "concatenated":
        tg = np.concatenate([tg[b, :tl[b]] for b in range(N)])
    tx, lx = torch.tensor(x, requires_grad=True), lg.tensor(x, requires_grad=True)
    tout = torch.nn.CTCLoss(reduction=reduction)(tx.log_softmax(2), torch.tensor(tg),
                                                 torch.tensor(il), torch.tensor(tl))
    lout = lnn.CTCLoss(reduction=reduction)(lx.log_softmax(2), lg.tensor(tg), lg.tensor(il),
                                            lg.tensor(tl))
    np.testing.assert_allclose(lout.detach().numpy(), tout.detach().numpy(), rtol=1e-5)
    tout.sum().backward(), lout.sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_ctc_unbatched_impossible_and_zero_infinity():
    x = arr(6, 4)
    t = torch.nn.CTCLoss()(torch.tensor(x).log_softmax(1), torch.tensor([1, 2]), torch.tensor(6),
                           torch.tensor(2))
    l = lnn.CTCLoss()(lg.tensor(x).log_softmax(1), lg.tensor([1, 2]), lg.tensor(6), lg.tensor(2))
    np.testing.assert_allclose(l.numpy(), t.numpy(), rtol=1e-5)
    x2 = arr(3, 1, 5)          # three frames cannot hold 1, 1, 1 (blanks needed between)
    for zi, want in ((False, np.inf), (True, 0.0)):
        lx = lg.tensor(x2, requires_grad=True)
        out = LF.ctc_loss(lx.log_softmax(2), lg.tensor([[1, 1, 1]]), [3], [3], reduction="sum",
                          zero_infinity=zi)
        tout = torch.nn.functional.ctc_loss(torch.tensor(x2).log_softmax(2),
                                            torch.tensor([[1, 1, 1]]), [3], [3],
                                            reduction="sum", zero_infinity=zi)
        assert out.item() == tout.item() == want
        if zi:
            out.backward()
            assert not lx.grad.numpy().any()
