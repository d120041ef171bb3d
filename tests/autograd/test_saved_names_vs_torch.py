"""``grad_fn._saved_<name>`` of the common ops as PyTorch's: the same names in ``dir()``
(what torchviz walks, with ``show_attrs`` / ``show_saved``), each answering the same value
(a saved tensor: the op's own input where PyTorch's is, equal values and dtype; a constant:
equal), and ``hasattr`` false for the names PyTorch's node lacks."""
import numpy as np
import pytest
import torch

import leafgrad

LIBS = (torch, leafgrad)


def _leaves(T):
    a = T.tensor([[1.5, -2.0], [0.5, 3.0]], dtype=T.float64, requires_grad=True)
    b = T.tensor([[0.5, 1.0], [2.0, -1.0]], dtype=T.float64, requires_grad=True)
    v = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    return a, b, v


CASES = {
    "add": lambda T, a, b, v: a + b,
    "add_number": lambda T, a, b, v: a + 2,
    "sub": lambda T, a, b, v: a - b,
    "rsub": lambda T, a, b, v: 2 - a,
    "mul": lambda T, a, b, v: a * b,
    "mul_int": lambda T, a, b, v: a * 3,
    "mul_float": lambda T, a, b, v: a * 2.5,
    "div": lambda T, a, b, v: a / b,
    "div_number": lambda T, a, b, v: a / 2,
    "pow": lambda T, a, b, v: a ** 2,
    "pow_float": lambda T, a, b, v: a ** 0.5,
    "sqrt": lambda T, a, b, v: b.abs().sqrt(),
    "exp": lambda T, a, b, v: a.exp(),
    "log": lambda T, a, b, v: b.abs().log(),
    "tanh": lambda T, a, b, v: a.tanh(),
    "sigmoid": lambda T, a, b, v: a.sigmoid(),
    "relu": lambda T, a, b, v: a.relu(),
    "F.relu": lambda T, a, b, v: T.nn.functional.relu(a),
    "abs": lambda T, a, b, v: a.abs(),
    "neg": lambda T, a, b, v: -a,
    "sin": lambda T, a, b, v: a.sin(),
    "cos": lambda T, a, b, v: a.cos(),
    "matmul": lambda T, a, b, v: a @ b,
    "mm": lambda T, a, b, v: a.mm(b),
    "mv": lambda T, a, b, v: a.mv(v),
    "dot": lambda T, a, b, v: v.dot(v * 2),
    "bmm": lambda T, a, b, v: a[None].bmm(b[None]),
    "addmm": lambda T, a, b, v: T.addmm(v, a, b),
    "linear": lambda T, a, b, v: T.nn.functional.linear(a, b),
    "linear_bias": lambda T, a, b, v: T.nn.functional.linear(a, b, v),
    "sum": lambda T, a, b, v: a.sum(),
    "sum_dim": lambda T, a, b, v: a.sum(1),
    "sum_keepdim": lambda T, a, b, v: a.sum(0, keepdim=True),
    "mean": lambda T, a, b, v: a.mean(),
    "mean_dim": lambda T, a, b, v: a.mean(1),
    "max": lambda T, a, b, v: a.max(),
    "softmax": lambda T, a, b, v: a.softmax(1),
    "log_softmax": lambda T, a, b, v: a.log_softmax(0),
    "clamp": lambda T, a, b, v: a.clamp(0, 1),
    "clamp_min": lambda T, a, b, v: a.clamp(min=0),
    "leaky_relu": lambda T, a, b, v: T.nn.functional.leaky_relu(a, 0.1),
    "view": lambda T, a, b, v: a.view(4),
    "reshape": lambda T, a, b, v: a.reshape(4),
    "t": lambda T, a, b, v: a.t(),
    "transpose": lambda T, a, b, v: a.transpose(0, 1),
    "permute": lambda T, a, b, v: a.permute(1, 0),
    "unsqueeze": lambda T, a, b, v: a.unsqueeze(0),
    "cat": lambda T, a, b, v: T.cat([a, b]),
    "stack": lambda T, a, b, v: T.stack([a, b], 1),
    "expand": lambda T, a, b, v: v.expand(2, 2),
    "max_dim": lambda T, a, b, v: a.max(1)[0],
    "min_dim": lambda T, a, b, v: a.min(0, keepdim=True)[0],
    "amax": lambda T, a, b, v: a.amax(1),
    "logsumexp": lambda T, a, b, v: a.logsumexp(1),
    "squeeze_all": lambda T, a, b, v: a[None].squeeze(),
    "hardtanh": lambda T, a, b, v: T.nn.functional.hardtanh(a),
    "cumsum": lambda T, a, b, v: a.cumsum(1),
    "flip": lambda T, a, b, v: a.flip(0),
    "roll": lambda T, a, b, v: a.roll(1, 0),
    "repeat": lambda T, a, b, v: a.repeat(2, 1),
    "unbind": lambda T, a, b, v: a.unbind(1)[0],
    "index_select": lambda T, a, b, v: a.index_select(0, T.tensor([1, 1])),
    "masked_fill": lambda T, a, b, v: a.masked_fill(a > 0, 0.0),
    "where": lambda T, a, b, v: T.where(a > 0, a, b),
    "maximum": lambda T, a, b, v: T.maximum(a, b),
    "prod": lambda T, a, b, v: a.prod(),
    "silu": lambda T, a, b, v: T.nn.functional.silu(a),
    "log1p": lambda T, a, b, v: b.abs().log1p(),
    "atan": lambda T, a, b, v: a.atan(),
    "erf": lambda T, a, b, v: a.erf(),
    "tan": lambda T, a, b, v: a.tan(),
    "exp2": lambda T, a, b, v: a.exp2(),
    "reciprocal": lambda T, a, b, v: a.reciprocal(),
    "rsqrt": lambda T, a, b, v: b.abs().rsqrt(),
    "sign": lambda T, a, b, v: a.sign(),
    "mse_loss": lambda T, a, b, v: T.nn.functional.mse_loss(a, b),
    "bce": lambda T, a, b, v: T.nn.functional.binary_cross_entropy(a.sigmoid(),
                                                                   b.sigmoid().detach()),
}


def _names(fn):
    return sorted(n for n in dir(fn) if n.startswith("_saved_"))


def _describe(T, value, leaves):
    if isinstance(value, T.Tensor):
        which = [i for i, t in enumerate(leaves) if value is t]
        return ("tensor", which, str(value.dtype).split(".")[-1], tuple(value.shape),
                value.detach().numpy().tolist())
    return value


@pytest.mark.parametrize("case", sorted(CASES))
def test_saved_attributes_as_torch(case):
    got = []
    for T in LIBS:
        leaves = _leaves(T)
        fn = CASES[case](T, *leaves).grad_fn
        names = _names(fn)
        got.append((fn.name(), names, [_describe(T, getattr(fn, n), leaves) for n in names]))
    assert got[1][:2] == got[0][:2]
    for n, mine, theirs in zip(got[0][1], got[1][2], got[0][2]):
        if isinstance(theirs, tuple) and theirs and theirs[0] == "tensor":
            assert mine[:4] == theirs[:4], n
            np.testing.assert_allclose(mine[4], theirs[4], rtol=1e-12, err_msg=n)
        else:
            assert mine == theirs and type(mine) is type(theirs), n


def test_names_absent_on_the_node_are_absent_as_in_torch():
    for name in ("_saved_self", "_saved_other", "_saved_result", "_saved_dim",
                 "_saved_versions", "_saved_alpha", "_saved_exponent"):
        seen = []
        for T in LIBS:
            a, b, v = _leaves(T)
            seen.append([hasattr(fn, name) for fn in
                         ((a + b).grad_fn, (a * b).grad_fn, a.exp().grad_fn, a.sum(1).grad_fn,
                          (-a).grad_fn, a.t().grad_fn)])
        assert seen[1] == seen[0], name


def test_saved_tensors_freed_by_backward_raise_and_constants_stay():
    seen = []
    for T in LIBS:
        a, b, v = _leaves(T)
        y = a.softmax(1)
        fn = y.grad_fn
        y.sum().backward()
        try:
            fn._saved_result
            freed = "ok"
        except RuntimeError:
            freed = "RuntimeError"
        seen.append((freed, fn._saved_dim, _names(fn)))
    assert seen[1] == seen[0]
