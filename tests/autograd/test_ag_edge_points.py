"""Gradients at the edge points where PyTorch fixes a convention, against real torch.

Kinks, ties and nan inputs: relu and the hardtanh family at nan and at their
bounds, max/min/amax/maximum with ties and nan, atan2 at (0, 0), abs and sign
at 0 and nan, sqrt at 0, clamp at its bounds (number and tensor bounds),
cosine_similarity at a zero vector, elu/celu/threshold/softplus/hardsigmoid/
hardswish at their switch points. Each case runs in float32 (forward and
gradient) and float64 (forward, gradient and second derivative); nan must be
nan in the same places.
"""
import warnings

import numpy as np
import pytest
import torch

import leafgrad

nan, inf = float("nan"), float("inf")


def _F(name, *a, **k):
    return lambda T, *xs: getattr(T.nn.functional, name)(*xs, *a, **k)


CASES = {
    # relu family: the gradient passes where the result is not <= 0 (so at nan)
    "relu": (lambda T, x: T.relu(x), [[nan, 0.0, -0.0, 1.0, -1.0]]),
    "F.relu": (_F("relu"), [[nan, 0.0, 1.0, -1.0]]),
    "relu_": (lambda T, x: (x * 1).relu_(), [[nan, 0.0, 1.0, -1.0]]),
    "F.relu:inplace": (lambda T, x: T.nn.functional.relu(x * 1, inplace=True), [[nan, 0.0, 2.0]]),
    "hardtanh": (_F("hardtanh"), [[-1.0, 1.0, 0.0, 2.0, -2.0, nan]]),
    "hardtanh:bounds": (_F("hardtanh", -0.5, 0.25), [[-0.5, 0.25, 0.0, nan]]),
    "hardtanh:inplace": (lambda T, x: T.nn.functional.hardtanh(x * 1, inplace=True),
                         [[-1.0, 1.0, 0.5, nan]]),
    "relu6": (_F("relu6"), [[0.0, 6.0, 3.0, 7.0, -1.0, nan]]),
    "leaky_relu": (_F("leaky_relu", 0.2), [[nan, 0.0, 1.0, -1.0]]),
    "threshold": (_F("threshold", 0.1, -2.0), [[0.1, 0.2, 0.0, nan]]),
    "elu": (_F("elu", 0.5), [[0.0, -1.0, 1.0, nan]]),
    "selu": (_F("selu"), [[0.0, -1.0, 1.0, nan]]),
    "celu": (_F("celu", 0.7), [[0.0, -1.0, 1.0, nan]]),
    "softplus:threshold": (_F("softplus"), [[20.0, 19.0, 21.0, nan]]),
    "softplus:beta": (_F("softplus", 2.0, 3.0), [[1.5, 1.0, 2.0]]),
    "hardsigmoid": (_F("hardsigmoid"), [[-3.0, 3.0, 0.0, 4.0, nan]]),
    "hardswish": (_F("hardswish"), [[-3.0, 3.0, 0.0, -4.0, 4.0, nan]]),
    # max / min: ties and nan
    "max:ties": (lambda T, x: x.max(), [[1.0, 3.0, 3.0, 2.0]]),
    "max:nan": (lambda T, x: x.max(), [[1.0, nan, 3.0, nan]]),
    "min:nan": (lambda T, x: x.min(), [[1.0, nan, -3.0, nan]]),
    "min:ties": (lambda T, x: T.min(x), [[[1.0, -3.0], [-3.0, 2.0]]]),
    "max:dim_ties": (lambda T, x: x.max(1), [[[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]]),
    "min:dim_ties": (lambda T, x: x.min(0, keepdim=True), [[[1.0, 2.0], [1.0, 2.0]]]),
    "max:dim_nan": (lambda T, x: x.max(1), [[[1.0, nan, 3.0], [nan, nan, 2.0]]]),
    "amax:ties": (lambda T, x: x.amax(1), [[[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]]),
    "amax:nan": (lambda T, x: x.amax(1), [[[1.0, nan, 3.0], [0.0, 1.0, 2.0]]]),
    "amin:ties_all": (lambda T, x: x.amin(), [[[1.0, 3.0], [1.0, 1.0]]]),
    "amin:nan": (lambda T, x: x.amin((0, 1)), [[[1.0, nan], [nan, 2.0]]]),
    "maximum:ties_nan": (lambda T, a, b: T.maximum(a, b),
                         [[nan, 1.0, nan, 2.0, 0.0], [1.0, nan, nan, 2.0, 1.0]]),
    "minimum:ties_nan": (lambda T, a, b: T.minimum(a, b),
                         [[nan, 1.0, nan, 2.0, 0.0], [1.0, nan, nan, 2.0, 1.0]]),
    "max:binary": (lambda T, a, b: T.max(a, b), [[nan, 1.0, 2.0], [1.0, 1.0, 3.0]]),
    "maximum:broadcast": (lambda T, a, b: T.maximum(a, b), [[[1.0], [2.0]], [1.0, 2.0, 3.0]]),
    # atan2 at the origin: 0 (PyTorch masks 1/(a^2+b^2) where the sum is 0)
    "atan2:origin": (lambda T, a, b: T.atan2(a, b),
                     [[0.0, 0.0, 1.0, -0.0, 1e-30], [0.0, 1.0, 0.0, -0.0, 1e-30]]),
    # abs / sign / sqrt
    "abs": (lambda T, x: T.abs(x), [[0.0, -0.0, 1.0, -2.0, nan]]),
    "sign": (lambda T, x: T.sign(x) * x, [[0.0, -0.0, 1.0, -2.0, nan]]),
    "sqrt": (lambda T, x: T.sqrt(x), [[0.0, 4.0, -1.0]]),
    # clamp: the gradient passes at the bounds, not at nan
    "clamp": (lambda T, x: T.clamp(x, -1.0, 1.0), [[-1.0, 1.0, 0.0, 2.0, -2.0, nan]]),
    "clamp:min": (lambda T, x: T.clamp(x, min=0.5), [[0.5, 1.0, 0.0, nan]]),
    "clamp:max": (lambda T, x: x.clamp_max(0.5), [[0.5, 1.0, 0.0, nan]]),
    "clamp:inverted": (lambda T, x: T.clamp(x, 1.0, -1.0), [[-1.0, 1.0, 0.0, 2.0]]),
    "clamp:tensors": (lambda T, x, lo, hi: T.clamp(x, lo, hi),
                      [[-1.0, 1.0, 0.0, 2.0, -2.0, nan, 0.0, 0.0],
                       [-1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 1.0],
                       [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, nan, -1.0]]),
    "clamp:tensor_min": (lambda T, x, lo: T.clamp(x, min=lo), [[-1.0, 0.0, 2.0, nan], [0.0] * 4]),
    "clamp:tensor_max": (lambda T, x, hi: T.clamp(x, max=hi), [[-1.0, 0.0, 2.0, nan], [0.0] * 4]),
    "clamp:tensor_broadcast": (lambda T, x, lo, hi: T.clamp(x, lo, hi),
                               [[[-1.0, 0.5, 2.0], [0.0, 0.5, 3.0]], [[0.0], [0.5]],
                                [1.0, 0.25, 2.0]]),
    # (torch raises when the input is smaller than the broadcast shape and max requires
    # grad: its clamp_backward_min_max ORs a broadcast mask into the input's in place)
    "clamp:0d_tensor_and_number": (lambda T, x: T.clamp(x, T.tensor(0.0), 1.0),
                                   [[-1.0, 0.0, 0.5, 1.0, 2.0]]),
    # cosine_similarity: each norm clamped to eps on its own, the clamp unseen by autograd
    "cosine_similarity:zero": (lambda T, a, b: T.nn.functional.cosine_similarity(a, b),
                               [[[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]],
                                [[1.0, 2.0], [3.0, 1.0], [0.0, 0.0]]]),
    "cosine_similarity:tiny": (lambda T, a, b: T.nn.functional.cosine_similarity(a, b, dim=0),
                               [[1e-5, 0.0], [1e-5, 2e-5]]),
    "cosine_similarity:broadcast": (lambda T, a, b: T.nn.functional.cosine_similarity(a, b, -1),
                                    [[[1.0, 2.0], [0.0, 0.0]], [3.0, -1.0]]),
    # already PyTorch's convention; kept here so they stay so
    "norm:zero": (lambda T, x: x.norm(), [[0.0, 0.0]]),
    "norm:inf_ties": (lambda T, x: x.norm(inf), [[1.0, -3.0, 3.0]]),
    "normalize:zero": (lambda T, x: T.nn.functional.normalize(x, dim=0), [[0.0, 0.0]]),
    "std:constant": (lambda T, x: x.std(), [[1.0, 1.0]]),
    "prod:zeros": (lambda T, x: x.prod(), [[0.0, 0.0, 2.0]]),
    "pow:zero_base": (lambda T, x: x ** 0.5 + x ** 2.0, [[0.0, 1.0]]),
    "l1_loss:tie": (lambda T, a, b: T.nn.functional.l1_loss(a, b), [[1.0, 2.0], [1.0, 3.0]]),
}

# Second derivatives where torch itself gives no number to compare with
NO_SECOND_ORDER = {
    # torch: "derivative for aten::hardsigmoid_backward is not implemented"
    "hardsigmoid",
    # leafgrad's known limit (xfail test_prod_second_order_with_zeros in test_ops_vs_torch)
    "prod:zeros",
}


def _outputs(out):
    outs = out if isinstance(out, tuple) else (out,)
    return [o for o in outs if o.requires_grad]


def _run(T, fn, vals, npdtype, second):
    xs = [T.tensor(np.array(v, npdtype), requires_grad=True) for v in vals]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(T, *xs)
        outs = _outputs(out)
        # distinct weights, so that a gradient sent to the wrong element shows
        loss = sum((o * T.arange(1, o.numel() + 1, dtype=o.dtype).reshape(o.shape)).sum()
                   for o in outs)
        grads = T.autograd.grad(loss, xs, create_graph=second, allow_unused=True)
        res = {"out": [o.detach() for o in (out if isinstance(out, tuple) else (out,))],
               "grad": [None if g is None else g.detach() for g in grads]}
        if second:
            gs = [g for g in grads if g is not None and g.requires_grad]
            # a gradient that does not require grad (a constant mask times g): second
            # derivatives are zero, where torch may still have recorded a graph
            res["grad2"] = [None] * len(xs)
            if gs:
                tot = sum((g * T.linspace(0.5, 1.5, g.numel(), dtype=g.dtype).reshape(g.shape))
                          .sum() for g in gs)
                res["grad2"] = [None if g is None else g.detach() for g in
                                T.autograd.grad(tot, xs, allow_unused=True)]
    return res


def _np(t):
    # clone: torch's zero second derivatives can be expanded tensors tolist() refuses
    return None if t is None else np.array(t.clone().tolist(), dtype=np.float64)


def _check(lres, tres, what, tol):
    assert len(lres) == len(tres), what
    for i, (a, b) in enumerate(zip(lres, tres)):
        a, b = _np(a), _np(b)
        if a is None and b is None:
            continue
        if a is None or b is None:     # an unused input: None is a zero gradient
            a = np.zeros_like(b) if a is None else a
            b = np.zeros_like(a) if b is None else b
        assert a.shape == b.shape, "%s %d: shape %s vs torch %s" % (what, i, a.shape, b.shape)
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b),
                                      err_msg="%s %d: nan in other places than torch\n"
                                      "leafgrad %s\ntorch    %s" % (what, i, a, b))
        # absolute tolerance relative to the largest value (cosine_similarity near 0: 1e5)
        scale = max(1.0, float(np.max(np.abs(b[np.isfinite(b)]), initial=0.0)))
        np.testing.assert_allclose(a, b, equal_nan=True, err_msg="%s %d" % (what, i),
                                   rtol=tol["rtol"], atol=tol["atol"] * scale)


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_point_matches_torch(name):
    fn, vals = CASES[name]
    for npdtype, tol in ((np.float32, dict(rtol=1e-5, atol=1e-5)),
                         (np.float64, dict(rtol=1e-10, atol=1e-12))):
        second = npdtype is np.float64 and name not in NO_SECOND_ORDER
        t = _run(torch, fn, vals, npdtype, second)
        lg = _run(leafgrad, fn, vals, npdtype, second)
        for key in t:
            assert key in lg, "%s: leafgrad gives no %s" % (name, key)
            _check(lg[key], t[key], "%s %s %s" % (name, np.dtype(npdtype).name, key), tol)
        for a, b in zip(lg["out"], t["out"]):
            assert str(a.dtype) == str(b.dtype)


def test_clamp_tensor_bounds_grad_fn_and_dtype():
    for T in (torch, leafgrad):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        assert type(T.clamp(x, T.tensor(1.5)).grad_fn).__name__ == "ClampBackward0"
        assert type(T.clamp(x, 1.5).grad_fn).__name__ == "ClampBackward1"
    for T in (torch, leafgrad):
        # an integer input with a float bound gives the bound's dtype; a 0-d float64
        # bound does not promote a float32 input
        assert str(T.clamp(T.tensor([1, 2, 3]), T.tensor(1.5)).dtype) == "torch.float32"
        assert str(T.clamp(T.tensor([1.0]), T.tensor(1.5, dtype=T.float64)).dtype) == \
            "torch.float32"
        with pytest.raises(RuntimeError):
            T.clamp(T.ones(3), T.ones(2))
        # a tensor and a number: torch's Number overload takes only 0-d tensors
        # that do not require grad
        with pytest.raises(TypeError):
            T.clamp(T.ones(3), T.zeros(3), 1.0)
        with pytest.raises(TypeError):
            T.clamp(T.ones(3), T.tensor(0.0, requires_grad=True), 1.0)
        assert type(T.clamp(T.ones(3, requires_grad=True), T.tensor(0.0), 1.0).grad_fn) \
            .__name__ == "ClampBackward1"


def test_cosine_similarity_integer_inputs_raise_like_torch():
    for T in (torch, leafgrad):
        with pytest.raises(RuntimeError, match="floating point"):
            T.nn.functional.cosine_similarity(T.tensor([[1, 2]]), T.tensor([[3, 4]]))
        r = T.nn.functional.cosine_similarity(T.tensor([[1, 2]]), T.tensor([[3.0, 4.0]]))
        assert str(r.dtype) == "torch.float32"


def test_activation_grad_fn_names():
    F_t, F_l = torch.nn.functional, leafgrad.nn.functional
    for name, args in (("threshold", (0.5, 2.0)), ("celu", ()), ("selu", ()), ("elu", ()),
                       ("hardswish", ()), ("hardsigmoid", ()), ("hardtanh", ()), ("relu6", ())):
        names = []
        for T, F in ((torch, F_t), (leafgrad, F_l)):
            x = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
            names.append(type(getattr(F, name)(x, *args).grad_fn).__name__)
        assert names[0] == names[1], (name, names)
