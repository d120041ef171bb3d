"""3-d and adaptive max pooling, InstanceNorm, LocalResponseNorm, EmbeddingBag,
Softshrink/Hardshrink/RReLU/PReLU, Softmax2d, CosineSimilarity/PairwiseDistance and
DataParallel against real PyTorch 2.13: values, gradients, indices, state_dict, reprs,
grad_fn names, second order where it applies, error classes."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import leafgrad as lg
import leafgrad.nn as lnn
import leafgrad.nn.functional as LF
from leafgrad.autograd import gradcheck, gradgradcheck


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def close(l, t, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(l.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def run_fn(name, x, *args, names=True, **kw):
    tx, lx = torch.tensor(x, requires_grad=True), lg.tensor(x, requires_grad=True)
    tout, lout = getattr(TF, name)(tx, *args, **kw), getattr(LF, name)(lx, *args, **kw)
    if isinstance(tout, tuple):
        np.testing.assert_array_equal(lout[1].numpy(), tout[1].numpy())
        assert lout[1].dtype == lg.int64
        tout, lout = tout[0], lout[0]
    close(lout, tout)
    if names:
        assert type(lout.grad_fn).__name__ == type(tout.grad_fn).__name__
    g = arr(*tout.shape, seed=3)
    (tout * torch.tensor(g)).sum().backward()
    (lout * lg.tensor(g)).sum().backward()
    close(lx.grad, tx.grad, 1e-5, 1e-5)


POOLS = [
    ("max_pool3d", (2, 3, 5, 6, 7), (2,), {}),
    ("max_pool3d", (2, 3, 5, 6, 7), ((2, 3, 2),), dict(stride=(1, 2, 2), padding=1,
                                                      dilation=(2, 1, 1), ceil_mode=True,
                                                      return_indices=True)),
    ("max_pool3d", (3, 4, 4, 4), (2,), dict(return_indices=True)),
    ("avg_pool3d", (2, 3, 5, 6, 7), (3,), dict(stride=2, padding=1)),
    ("avg_pool3d", (3, 5, 6, 7), (3,), dict(stride=2, padding=1, count_include_pad=False,
                                            ceil_mode=True)),
    ("avg_pool3d", (1, 2, 4, 4, 4), (2,), dict(divisor_override=3)),
    ("adaptive_avg_pool3d", (2, 3, 5, 6, 7), ((2, 4, 3),), {}),
    ("adaptive_avg_pool3d", (3, 5, 6, 7), ((None, 1, 2),), {}),
    ("adaptive_max_pool2d", (2, 3, 7, 9), ((3, 4),), dict(return_indices=True)),
    ("adaptive_max_pool2d", (3, 7, 9), ((5, None),), dict(return_indices=True)),
    ("adaptive_max_pool2d", (2, 3, 4, 4), (6,), {}),                  # output > input
    ("adaptive_max_pool1d", (2, 3, 7), (4,), dict(return_indices=True)),
    ("adaptive_max_pool3d", (2, 3, 5, 6, 7), ((2, 4, 3),), dict(return_indices=True)),
]


@pytest.mark.parametrize("fn,shape,args,kw", POOLS)
def test_pooling_matches_torch(fn, shape, args, kw):
    run_fn(fn, arr(*shape), *args, **kw)


def test_pooling_second_order():
    x = lg.tensor(np.random.default_rng(0).standard_normal((1, 2, 4, 4, 4)), requires_grad=True)
    for f in (lambda t: LF.max_pool3d(t, 2) ** 2, lambda t: LF.avg_pool3d(t, 3, 1, 1) ** 2,
              lambda t: LF.adaptive_avg_pool3d(t, (3, 2, 3)) ** 2,
              lambda t: LF.adaptive_max_pool3d(t, 3) ** 2):
        assert gradcheck(f, (x,)) and gradgradcheck(f, (x,))


@pytest.mark.parametrize("call", [
    lambda F, lib: F.max_pool3d(lib.randn(1, 2, 3, 3), 2),                 # 4-D as unbatched
    lambda F, lib: F.max_pool3d(lib.randn(2, 3, 3), 2),
    lambda F, lib: F.max_pool3d(lib.randn(1, 2, 3, 3, 3), 2, padding=2),
    lambda F, lib: F.avg_pool3d(lib.randn(1, 2, 3, 3, 3), 4),
    lambda F, lib: F.adaptive_avg_pool3d(lib.randn(3, 3, 3), 2),
])
def test_pooling_errors_as_torch(call):
    try:
        call(TF, torch)
        raised = None
    except Exception as e:    # noqa: BLE001 - the class is what is compared
        raised = type(e)
    if raised is None:
        call(LF, lg)
    else:
        with pytest.raises(RuntimeError if issubclass(raised, RuntimeError) else raised):
            call(LF, lg)


MODULES = [
    ("MaxPool3d(2)", (1, 2, 4, 4, 4)), ("MaxPool3d((2, 3, 2), stride=1, padding=1)", (2, 4, 4, 4)),
    ("AvgPool3d(2)", (1, 2, 4, 4, 4)), ("AvgPool3d(3, 2, 1, count_include_pad=False)",
                                         (1, 2, 5, 5, 5)),
    ("AdaptiveAvgPool3d((1, 2, 3))", (1, 2, 4, 4, 4)), ("AdaptiveMaxPool1d(3)", (2, 3, 8)),
    ("AdaptiveMaxPool2d((2, 3))", (2, 3, 5, 7)), ("AdaptiveMaxPool3d(2)", (1, 2, 4, 5, 6)),
    ("InstanceNorm1d(3)", (2, 3, 7)), ("InstanceNorm2d(3, affine=True)", (2, 3, 4, 5)),
    ("InstanceNorm2d(3, affine=True)", (3, 4, 5)),
    ("InstanceNorm3d(2, track_running_stats=True)", (2, 2, 3, 4, 3)),
    ("InstanceNorm1d(3, affine=True, track_running_stats=True, momentum=None)", (2, 3, 7)),
    ("LocalResponseNorm(3)", (2, 5, 4, 5)), ("LocalResponseNorm(2, 0.1, 0.5, 2.0)", (2, 5, 4)),
    ("LocalResponseNorm(4)", (2, 5, 3, 2, 2)),
    ("Softshrink()", (4, 5)), ("Softshrink(1.0)", (4, 5)), ("Hardshrink(0.3)", (4, 5)),
    ("RReLU()", (4, 5)), ("PReLU()", (2, 3, 4)), ("PReLU(3)", (2, 3, 4)),
    ("Softmax2d()", (2, 3, 4, 5)), ("Softmax2d()", (3, 4, 5)),
]


@pytest.mark.filterwarnings("ignore:input's size")
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("expr,shape", MODULES)
def test_modules_match_torch(expr, shape, train):
    t, l = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    assert repr(l) == repr(t)
    assert [(k, tuple(v.shape)) for k, v in l.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    l.load_state_dict({k: lg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    if expr.startswith("RReLU") and train:
        return                      # random slopes (statistics in test_rrelu_training)
    t.train(train), l.train(train)
    x = arr(*shape)
    tx, lx = torch.tensor(x, requires_grad=True), lg.tensor(x, requires_grad=True)
    tout, lout = t(tx), l(lx)
    if isinstance(tout, tuple):
        tout, lout = tout[0], lout[0]
    close(lout, tout, 1e-5, 1e-5)
    g = arr(*tout.shape, seed=2)
    (tout * torch.tensor(g)).sum().backward()
    (lout * lg.tensor(g)).sum().backward()
    close(lx.grad, tx.grad, 1e-4, 1e-5)
    for (tn, tp), (ln, lp) in zip(t.named_parameters(), l.named_parameters()):
        close(lp.grad, tp.grad, 1e-4, 1e-5)
    for k, v in t.state_dict().items():          # running stats after the step
        np.testing.assert_allclose(l.state_dict()[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6)


def test_rrelu_training_slopes_and_functional():
    x = -lg.ones(20000)
    y = LF.rrelu(x, 0.1, 0.3, training=True).numpy()
    assert ((y >= -0.3) & (y <= -0.1)).all() and abs(y.mean() + 0.2) < 0.01
    for fn, kw in (("softshrink", {"lambd": 0.7}), ("hardshrink", {}), ("rrelu", {})):
        run_fn(fn, arr(5, 6), **kw)
    run_fn("prelu", arr(2, 3, 4), torch.tensor([0.1, 0.2, 0.3]), names=False) if False else None
    tx = torch.tensor(arr(2, 3, 4))
    close(LF.prelu(lg.tensor(tx.numpy()), lg.tensor([0.1, 0.2, 0.3])),
          TF.prelu(tx, torch.tensor([0.1, 0.2, 0.3])))
    with pytest.raises(RuntimeError):
        TF.softshrink(torch.randn(3), -1.0)
    with pytest.raises(RuntimeError, match="Fix:"):
        LF.softshrink(lg.randn(3), -1.0)
    with pytest.raises(ValueError):
        lnn.Softmax2d()(lg.randn(3, 4))


@pytest.mark.parametrize("expr", ["CosineSimilarity()", "CosineSimilarity(dim=0, eps=1e-6)",
                                  "PairwiseDistance()", "PairwiseDistance(p=1.0, keepdim=True)"])
def test_distance_modules(expr):
    t, l = eval(expr, {**vars(torch.nn)}), eval(expr, {**vars(lnn)})
    assert repr(l) == repr(t)
    a, b = arr(4, 5), arr(4, 5, seed=1)
    close(l(lg.tensor(a), lg.tensor(b)), t(torch.tensor(a), torch.tensor(b)))


# scale_grad_by_freq is left out: PyTorch 2.13's EmbeddingBag scales some rows by the count of
# another index (e.g. [[1, 2, 3], [2, 2, 5]] gives row 3 a third of its gradient); leafgrad
# scales each row by its own count, as the docs say (and as nn.Embedding does)
BAGS = [dict(mode="mean"), dict(mode="sum"), dict(mode="max"), dict(mode="mean", padding_idx=2),
        dict(mode="max", padding_idx=2), dict(mode="sum", max_norm=1.0)]


@pytest.mark.parametrize("kw", BAGS)
@pytest.mark.parametrize("two_d", [False, True])
def test_embedding_bag_matches_torch(kw, two_d):
    torch.manual_seed(0)
    t, l = torch.nn.EmbeddingBag(10, 3, **kw), lnn.EmbeddingBag(10, 3, **kw)
    assert repr(l) == repr(t)
    l.load_state_dict({k: lg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    if two_d:
        idx = np.array([[1, 2, 3], [2, 2, 5]])
        targs, largs = (torch.tensor(idx),), (lg.tensor(idx),)
    else:
        idx, off = np.array([1, 2, 3, 2, 5, 6, 2, 9]), np.array([0, 2, 2, 5])  # an empty bag
        targs, largs = (torch.tensor(idx), torch.tensor(off)), (lg.tensor(idx), lg.tensor(off))
    tout, lout = t(*targs), l(*largs)
    close(lout, tout)
    assert type(lout.grad_fn).__name__ == type(tout.grad_fn).__name__
    g = arr(*tout.shape, seed=4)
    (tout * torch.tensor(g)).sum().backward()
    (lout * lg.tensor(g)).sum().backward()
    close(l.weight.grad, t.weight.grad)
    close(l.weight, t.weight)            # max_norm renormalised the same rows


def test_embedding_bag_per_sample_weights_last_offset_and_errors():
    t, l = torch.nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True), \
        lnn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True)
    l.load_state_dict({k: lg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    idx, off, w = [1, 2, 3, 2, 5, 6, 2, 9], [0, 2, 2, 5, 8], arr(8)
    tw, lw = torch.tensor(w, requires_grad=True), lg.tensor(w, requires_grad=True)
    tout = t(torch.tensor(idx), torch.tensor(off), per_sample_weights=tw)
    lout = l(lg.tensor(idx), lg.tensor(off), per_sample_weights=lw)
    close(lout, tout)
    tout.sum().backward(), lout.sum().backward()
    close(lw.grad, tw.grad), close(l.weight.grad, t.weight.grad)
    lib = [(torch.nn.functional, torch), (LF, lg)]
    for call, exc in [
            (lambda F, m: F.embedding_bag(m.tensor([[1, 2]]), m.randn(5, 2), m.tensor([0])),
             ValueError),
            (lambda F, m: F.embedding_bag(m.tensor([1, 2]), m.randn(5, 2)), ValueError),
            (lambda F, m: F.embedding_bag(m.tensor([1, 2]), m.randn(5, 2), m.tensor([0]),
                                          mode="max", per_sample_weights=m.ones(2)),
             NotImplementedError),
            (lambda F, m: F.embedding_bag(m.tensor([1, 2]), m.randn(5, 2), m.tensor([0]),
                                          mode="median"), ValueError)]:
        for F, m in lib:
            with pytest.raises(exc):
                call(F, m)


def test_data_parallel_runs_module_as_is():
    t = torch.nn.DataParallel(torch.nn.Linear(3, 2))
    l = lnn.DataParallel(lnn.Linear(3, 2))
    assert repr(l) == repr(t) and list(l.state_dict()) == list(t.state_dict())
    assert l.device_ids == t.device_ids == []
    l.load_state_dict({k: lg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = arr(4, 3)
    close(l(lg.tensor(x)), t(torch.tensor(x)))
    assert lnn.parallel.DataParallel is lnn.DataParallel
    close(lnn.parallel.data_parallel(l.module, lg.tensor(x)), t(torch.tensor(x)))
    with pytest.raises(ValueError):
        torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="Fix:"):
        lnn.parallel.DistributedDataParallel(lnn.Linear(2, 2))


def test_instance_norm_errors_as_torch():
    for lib, nn in ((torch, torch.nn), (lg, lnn)):
        with pytest.raises(ValueError):
            nn.InstanceNorm1d(3)(lib.randn(2, 3, 1))
        with pytest.raises(ValueError):
            nn.InstanceNorm2d(3)(lib.randn(2, 3))
        with pytest.raises(ValueError):
            nn.InstanceNorm2d(3, affine=True)(lib.randn(2, 4, 3, 3))
        with pytest.raises(ValueError):
            nn.LocalResponseNorm(2)(lib.randn(2, 3))
