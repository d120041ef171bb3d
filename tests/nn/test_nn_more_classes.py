"""The torch.nn classes issue 13 found missing, against PyTorch 2.13:
AdaptiveLogSoftmaxWithLoss (forward, log_prob, predict, gradients, init stream, errors),
SyncBatchNorm (one process: batch_norm; convert_sync_batchnorm), LazyInstanceNorm1d/2d/3d,
CrossMapLRN2d (PyTorch's forward and its own backward formula), the deprecated Container
and NLLLoss2d, UninitializedBuffer. Reprs and state_dict keys/shapes everywhere.
"""
import warnings

import numpy as np
import pytest
import torch

import leafgrad


def _arr(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _same_structure(lm, tm):
    assert repr(lm) == repr(tm)
    assert {k: tuple(v.shape) for k, v in lm.state_dict().items()} == {
        k: tuple(v.shape) for k, v in tm.state_dict().items()}


def _load(lm, tm):
    lm.load_state_dict({k: leafgrad.tensor(v.detach().numpy()) for k, v in
                        tm.state_dict().items()})


@pytest.mark.parametrize("args", [(8, 20, [5, 12]), (6, 10, [3], 2.0, True),
                                  (16, 30, [4, 9, 20])])
def test_adaptive_log_softmax_matches_torch(args):
    torch.manual_seed(0)
    leafgrad.manual_seed(0)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(*args)
    lm = leafgrad.nn.AdaptiveLogSoftmaxWithLoss(*args)
    _same_structure(lm, tm)
    for (n, p), (_, q) in zip(lm.state_dict().items(), tm.state_dict().items()):
        np.testing.assert_array_equal(p.numpy(), q.numpy(), err_msg=n)   # one init stream
    x = _arr((9, args[0]))
    t = np.random.default_rng(1).integers(0, args[1], 9)
    t[0] = args[1] - 1
    tx, lx = torch.tensor(x, requires_grad=True), leafgrad.tensor(x, requires_grad=True)
    to, lo = tm(tx, torch.tensor(t)), lm(lx, leafgrad.tensor(t))
    assert type(lo).__name__ == type(to).__name__ == "_ASMoutput"
    np.testing.assert_allclose(lo.output.detach().numpy(), to.output.detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lo.loss.item(), to.loss.item(), rtol=1e-6)
    to.loss.backward()
    lo.loss.backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-6)
    for (n, p), (_, q) in zip(lm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=n)
    np.testing.assert_allclose(lm.log_prob(leafgrad.tensor(x)).detach().numpy(),
                               tm.log_prob(torch.tensor(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_array_equal(lm.predict(leafgrad.tensor(x)).numpy(),
                                  tm.predict(torch.tensor(x)).numpy())
    one_l, one_t = lm(leafgrad.tensor(x[0]), leafgrad.tensor(t[0])), tm(torch.tensor(x[0]),
                                                                         torch.tensor(t[0]))
    assert tuple(one_l.output.shape) == tuple(one_t.output.shape) == ()
    np.testing.assert_allclose(one_l.loss.item(), one_t.loss.item(), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda nn, T: nn.AdaptiveLogSoftmaxWithLoss(4, 10, []),
    lambda nn, T: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3]),
    lambda nn, T: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 10]),
    lambda nn, T: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 3]),
    lambda nn, T: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(T.ones(2, 4), T.tensor([0, 10])),
    lambda nn, T: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(T.ones(3, 4), T.tensor([0, 1])),
    lambda nn, T: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(T.ones(4), T.tensor([0])),
    lambda nn, T: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(T.ones(1, 4), T.tensor(0)),
    lambda nn, T: nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(T.ones(1, 4), T.zeros(1, 1).long()),
    lambda nn, T: nn.SyncBatchNorm(3)(T.ones(3)),
    lambda nn, T: nn.CrossMapLRN2d(3)(T.ones(2, 3, 4)),
])
def test_errors_match_torch(call):
    try:
        call(torch.nn, torch)
    except Exception as e:      # noqa: BLE001 (leafgrad's class must be the same)
        with pytest.raises(type(e)):
            call(leafgrad.nn, leafgrad)
        return
    raise AssertionError("torch did not raise")


def test_sync_batch_norm_is_batch_norm_in_one_process():
    tm, lm = torch.nn.SyncBatchNorm(3, momentum=0.3), leafgrad.nn.SyncBatchNorm(3, momentum=0.3)
    _same_structure(lm, tm)
    for shape in ((4, 3), (2, 3, 5), (2, 3, 2, 2, 2)):
        x = _arr(shape, len(shape))
        tx, lx = torch.tensor(x, requires_grad=True), leafgrad.tensor(x, requires_grad=True)
        to, lo = tm(tx), lm(lx)
        np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-5,
                                   atol=1e-5)
        (to * to).sum().backward()
        (lo * lo).sum().backward()
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(getattr(lm, name).numpy(), getattr(tm, name).numpy(),
                                   rtol=1e-5)
    tnet = torch.nn.Sequential(torch.nn.Conv2d(3, 3, 1), torch.nn.BatchNorm2d(3),
                               torch.nn.Sequential(torch.nn.BatchNorm1d(3, affine=False)),
                               torch.nn.InstanceNorm2d(3))
    lnet = leafgrad.nn.Sequential(leafgrad.nn.Conv2d(3, 3, 1), leafgrad.nn.BatchNorm2d(3),
                                  leafgrad.nn.Sequential(leafgrad.nn.BatchNorm1d(3,
                                                                                 affine=False)),
                                  leafgrad.nn.InstanceNorm2d(3))
    bn = lnet[1]
    tconv = torch.nn.SyncBatchNorm.convert_sync_batchnorm(tnet)
    lconv = leafgrad.nn.SyncBatchNorm.convert_sync_batchnorm(lnet)
    assert repr(lconv) == repr(tconv)
    assert lconv[1].weight is bn.weight and lconv[1].running_mean is bn.running_mean


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_lazy_instance_norm_matches_torch(nd):
    name = "LazyInstanceNorm%dd" % nd
    tm, lm = getattr(torch.nn, name)(), getattr(leafgrad.nn, name)()
    assert repr(lm) == repr(tm)
    x = _arr((2, 3) + (4,) * nd)
    to, lo = tm(torch.tensor(x)), lm(leafgrad.tensor(x))
    assert type(lm).__name__ == type(tm).__name__ == "InstanceNorm%dd" % nd
    _same_structure(lm, tm)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lm.running_var.numpy(), tm.running_var.numpy(), rtol=1e-5)


@pytest.mark.parametrize("args, shape", [((3,), (2, 6, 3, 4)), ((5, 1e-2, 0.6, 2.0), (1, 7, 2, 2)),
                                         ((2,), (2, 3, 2, 2)), ((4, 0.1), (1, 2, 3, 3))])
def test_cross_map_lrn2d_matches_torch(args, shape):
    tm, lm = torch.nn.CrossMapLRN2d(*args), leafgrad.nn.CrossMapLRN2d(*args)
    assert repr(lm) == repr(tm)
    x, g = _arr(shape), _arr(shape, 1)
    tx, lx = torch.tensor(x, requires_grad=True), leafgrad.tensor(x, requires_grad=True)
    to, lo = tm(tx), lm(lx)
    assert type(lo.grad_fn).__name__ == type(to.grad_fn).__name__
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    to.backward(torch.tensor(g))
    lo.backward(leafgrad.tensor(g))
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_deprecated_classes_warn_and_work():
    for nn in (torch.nn, leafgrad.nn):
        with pytest.warns(FutureWarning, match="deprecated"):
            c = nn.Container(a=nn.Linear(2, 2))
        assert list(dict(c.named_children())) == ["a"]
        with pytest.warns(FutureWarning, match="NLLLoss2d"):
            m = nn.NLLLoss2d(ignore_index=1)
        assert isinstance(m, nn.NLLLoss) and m.ignore_index == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        assert repr(leafgrad.nn.Container(a=leafgrad.nn.Linear(2, 2))) == repr(
            torch.nn.Container(a=torch.nn.Linear(2, 2)))
        x = _arr((2, 3, 4, 4))
        t = np.random.default_rng(0).integers(0, 3, (2, 4, 4))
        lv = leafgrad.nn.NLLLoss2d()(leafgrad.tensor(x).log_softmax(1), leafgrad.tensor(t))
        tv = torch.nn.NLLLoss2d()(torch.tensor(x).log_softmax(1), torch.tensor(t))
        np.testing.assert_allclose(lv.item(), tv.item(), rtol=1e-6)


def test_uninitialized_buffer():
    b, tb = leafgrad.nn.UninitializedBuffer(), torch.nn.UninitializedBuffer()
    assert repr(b) == repr(tb) == "<UninitializedBuffer>"
    assert isinstance(b, leafgrad.Tensor) and not b.requires_grad
    b.materialize((2, 3))
    assert type(b) is leafgrad.Tensor and tuple(b.shape) == (2, 3)
    assert b.dtype == leafgrad.float32


@pytest.mark.parametrize("name, args, kw, shape", [
    ("FractionalMaxPool2d", (3,), dict(output_ratio=0.5), (2, 3, 8, 8)),
    ("FractionalMaxPool2d", (2,), dict(output_size=(3, 4), return_indices=True), (3, 6, 7)),
    ("FractionalMaxPool3d", ((2, 1, 2),), dict(output_ratio=(0.5, 0.6, 0.7)), (1, 2, 6, 6, 6)),
])
def test_fractional_max_pool_modules_match_torch(name, args, kw, shape):
    tm, lm = getattr(torch.nn, name)(*args, **kw), getattr(leafgrad.nn, name)(*args, **kw)
    _same_structure(lm, tm)
    assert (lm.kernel_size, lm.output_size, lm.output_ratio) == (
        tm.kernel_size, tm.output_size, tm.output_ratio)
    x = _arr(shape)
    torch.manual_seed(1)
    leafgrad.manual_seed(1)
    tx, lx = torch.tensor(x, requires_grad=True), leafgrad.tensor(x, requires_grad=True)
    to, lo = tm(tx), lm(lx)
    to, lo = (to if isinstance(to, tuple) else (to,)), (lo if isinstance(lo, tuple) else (lo,))
    for a, b in zip(lo, to):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    to[0].sum().backward()
    lo[0].sum().backward()
    np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("call", [
    lambda nn, F, T: nn.FractionalMaxPool2d(2),
    lambda nn, F, T: nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
    lambda nn, F, T: nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda nn, F, T: nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0)),
    lambda nn, F, T: F.fractional_max_pool2d(T.ones(1, 1, 4, 4), 2),
    lambda nn, F, T: F.fractional_max_pool2d(T.ones(1, 1, 4, 4), 2, output_ratio=0.5),
    lambda nn, F, T: F.fractional_max_pool2d(T.ones(1, 1, 4, 4), 3, output_size=3),
    lambda nn, F, T: F.fractional_max_pool3d(T.ones(1, 1, 4, 4, 4), 2, output_size=3),
    lambda nn, F, T: F.fractional_max_pool2d(T.ones(4, 4), 2, output_size=2),
])
def test_fractional_errors_match_torch(call):
    import leafgrad.nn.functional as LF
    import torch.nn.functional as TF
    try:
        call(torch.nn, TF, torch)
    except Exception as e:      # noqa: BLE001 (leafgrad's class must be the same)
        with pytest.raises(type(e)):
            call(leafgrad.nn, LF, leafgrad)
        return
    raise AssertionError("torch did not raise")


def test_fractional_given_samples_match_torch():
    import leafgrad.nn.functional as LF
    import torch.nn.functional as TF
    x = _arr((2, 3, 7, 7))
    u = np.random.default_rng(4).random((2, 3, 2)).astype(np.float32)
    lo, li = LF.fractional_max_pool2d(leafgrad.tensor(x), 2, output_size=(4, 3),
                                      return_indices=True, _random_samples=leafgrad.tensor(u))
    to, ti = TF.fractional_max_pool2d(torch.tensor(x), 2, output_size=(4, 3),
                                      return_indices=True, _random_samples=torch.tensor(u))
    np.testing.assert_array_equal(li.numpy(), ti.numpy())
    np.testing.assert_array_equal(lo.numpy(), to.numpy())


@pytest.mark.parametrize("kw, xs, ts", [
    (dict(), (6, 4), (6,)),
    (dict(out_features=(2,), bias=True, ignore_index=1, label_smoothing=0.1), (6, 4), (6, 2)),
    (dict(bias=True, reduction="sum"), (4,), ()),
    (dict(reduction="none", options=dict(batch_chunk_size=2)), (6, 4), (6,)),
])
def test_linear_cross_entropy_loss_matches_torch(kw, xs, ts):
    lkw, tkw = dict(kw), dict(kw)
    if "options" in kw:
        lkw["options"] = leafgrad.nn.LinearCrossEntropyOptions(**kw["options"])
        tkw["options"] = torch.nn.LinearCrossEntropyOptions(**kw["options"])
    torch.manual_seed(0)
    leafgrad.manual_seed(0)
    tm, lm = torch.nn.LinearCrossEntropyLoss(4, 5, **tkw), leafgrad.nn.LinearCrossEntropyLoss(
        4, 5, **lkw)
    _same_structure(lm, tm)
    for p, q in zip(lm.state_dict().values(), tm.state_dict().values()):
        np.testing.assert_array_equal(p.numpy(), q.numpy())
    x = _arr(xs)
    t = np.random.default_rng(2).integers(0, 5, ts)
    tx, lx = torch.tensor(x, requires_grad=True), leafgrad.tensor(x, requires_grad=True)
    to, lo = tm(tx, torch.tensor(t)), lm(lx, leafgrad.tensor(t))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    to.sum().backward()
    lo.sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lm.linear.weight.grad.numpy(), tm.linear.weight.grad.numpy(),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda nn, T: nn.LinearCrossEntropyOptions(acc_policy="fast"),
    lambda nn, T: nn.LinearCrossEntropyOptions(chunking_method="rows"),
    lambda nn, T: nn.LinearCrossEntropyOptions(batch_chunk_size=0),
    lambda nn, T: nn.LinearCrossEntropyOptions(acc_dtype=T.int32),
    lambda nn, T: nn.LinearCrossEntropyLoss(4, 5, weight=T.ones(4)),
    lambda nn, T: nn.LinearCrossEntropyLoss(4, 5, label_smoothing=1.5),
    lambda nn, T: nn.functional.linear_cross_entropy(T.ones(2, 3, 4), T.ones(5, 4),
                                                     T.zeros(2).long()),
    lambda nn, T: nn.functional.linear_cross_entropy(T.ones(2, 3), T.ones(5, 4),
                                                     T.zeros(2).long()),
    lambda nn, T: nn.functional.linear_cross_entropy(T.ones(2, 4), T.ones(5, 4),
                                                     T.zeros(2).long(), linear_bias=T.ones(4)),
    lambda nn, T: nn.functional.linear_cross_entropy(T.ones(4), T.ones(5, 2, 4),
                                                     T.zeros(2).long()),
    lambda nn, T: nn.functional.linear_cross_entropy(T.ones(2, 4), T.ones(5, 4),
                                                     T.ones(2, 5), ignore_index=1),
])
def test_linear_cross_entropy_errors_match_torch(call):
    test_errors_match_torch(call)
