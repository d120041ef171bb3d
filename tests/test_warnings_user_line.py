"""Warnings point at the user's line, as PyTorch's do: every leafgrad warning goes through
``_errors.warn``, whose stacklevel is the first frame outside the package. Each trigger
below is checked against PyTorch (it warns there too, with the same category) and the
recorded warning's filename must be this file (a fixed stacklevel pointed into leafgrad
whenever the call went through one more internal frame: Module.__call__, a loss module,
the optimizer's constructor, ...)."""
import warnings

import pytest
import torch

import leafgrad


def _triggers(T):
    nn, F = T.nn, T.nn.functional

    def dup_params():
        p = nn.Parameter(T.ones(2))
        T.optim.SGD([p, p], lr=0.1)

    def scheduler_before_step():
        o = T.optim.SGD([nn.Parameter(T.ones(2))], lr=0.1)
        T.optim.lr_scheduler.StepLR(o, 1).step()

    def clip_deprecated():
        p = nn.Parameter(T.ones(2))
        p.grad = T.ones(2)
        nn.utils.clip_grad_norm([p], 1.0)

    def out_resized():
        T.add(T.ones(2), 1, out=T.zeros(5))

    def backward_create_graph():
        x = T.ones(2, requires_grad=True)
        (x * x).sum().backward(create_graph=True)

    def non_full_hook():
        m = nn.Linear(2, 2)
        m.register_backward_hook(lambda *a: None)
        m(T.ones(1, 2, requires_grad=True)).sum().backward()

    return {
        "nonleaf_grad": lambda: (T.ones(2, requires_grad=True) * 2).grad,
        "softmax_nodim": lambda: F.softmax(T.ones(2, 3)),
        "log_softmax_nodim": lambda: F.log_softmax(T.ones(2, 3)),
        "softmin_nodim": lambda: F.softmin(T.ones(2, 3)),
        "module_softmax_nodim": lambda: nn.Softmax()(T.ones(2, 3)),
        "T_3d": lambda: T.ones(2, 3, 4).T,
        "var_dof": lambda: T.ones(1).var(),
        "std_dof": lambda: T.ones(1).std(),
        "cross_nodim": lambda: T.cross(T.ones(3, 3), T.ones(3, 3)),
        "meshgrid": lambda: T.meshgrid(T.ones(2), T.ones(3)),
        "mse_shapes": lambda: F.mse_loss(T.ones(3, 1), T.ones(3)),
        "mse_module_shapes": lambda: nn.MSELoss()(T.ones(3, 1), T.ones(3)),
        "dup_params": dup_params, "scheduler_before_step": scheduler_before_step,
        "clip_deprecated": clip_deprecated,
        "upsample": lambda: F.upsample(T.ones(1, 1, 2, 2), scale_factor=2),
        "random_split_zero": lambda: T.utils.data.random_split(range(3), [0.9, 0.1]),
        "pin_memory": lambda: iter(T.utils.data.DataLoader([1, 2], pin_memory=True)),
        "uint8_index": lambda: T.ones(3)[T.tensor([1, 0, 1], dtype=T.uint8)],
        "chain_matmul": lambda: T.chain_matmul(T.ones(2, 2), T.ones(2, 2)),
        "trunc_normal": lambda: nn.init.trunc_normal_(T.empty(3), mean=10.0, a=-2, b=2),
        "out_resized": out_resized, "backward_create_graph": backward_create_graph,
        "rnn_dropout": lambda: nn.LSTM(2, 2, num_layers=1, dropout=0.5),
        "non_full_hook": non_full_hook,
        "grad_scaler": lambda: T.cuda.amp.GradScaler(),
        "nll2d": lambda: nn.NLLLoss2d(),
        "weight_norm": lambda: nn.utils.weight_norm(nn.Linear(2, 2)),
        "float_requires_grad": lambda: float(T.ones(1, requires_grad=True)),
        "anomaly": lambda: T.autograd.detect_anomaly(),
        "container": lambda: nn.Container(),
        "mha_mask_types": lambda: nn.MultiheadAttention(4, 1, batch_first=True)(
            T.ones(1, 2, 4), T.ones(1, 2, 4), T.ones(1, 2, 4),
            key_padding_mask=T.zeros(1, 2, dtype=T.bool), attn_mask=T.zeros(2, 2)),
        "instance_norm_features": lambda: nn.InstanceNorm1d(3)(T.ones(2, 4, 5)),
        "nested_tensor": lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 1, 8), 1),
    }


def _record(fn):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        fn()
    return got


# PyTorch's TORCH_WARN_ONCE warnings: once per process, so torch (and leafgrad, where it
# keeps the once) is silent here when an earlier test in this worker triggered them
ONCE = {"T_3d", "chain_matmul", "cross_nodim", "float_requires_grad", "meshgrid",
        "backward_create_graph"}      # PyTorch warns about its reference cycle once too


@pytest.mark.parametrize("name", sorted(_triggers(torch)))
def test_warning_points_at_the_callers_line(name):
    theirs = _record(_triggers(torch)[name])
    ours = _record(_triggers(leafgrad)[name])
    if not ours:    # leafgrad keeps PyTorch's warn-once for some of them too
        assert name in ONCE
    if theirs and ours:
        assert [w.category for w in ours] == [w.category for w in theirs]
    elif not theirs:
        assert name in ONCE, "PyTorch does not warn here: the trigger is wrong"
    assert [w.filename for w in ours] == [__file__] * len(ours)


def test_warn_helper_skips_internal_frames():
    from leafgrad._core import errors as _errors

    def internal():
        _errors.warn("x")
    # a function defined here is outside leafgrad: its line is where the warning points
    with pytest.warns(UserWarning) as got:
        internal()
    assert got[0].filename == __file__ and got[0].lineno == internal.__code__.co_firstlineno + 1
