"""``out=`` on the declared ops PyTorch gives it: ``torch.X(..., out=o)`` writes the result
into ``o`` (derived from the declaration's ``out=True`` in ``ops/_forms.functions``),
against real PyTorch 2.13; and every declared ``torch.X`` whose ATen schema has an out=
overload is checked here, so a new op cannot leave ``out=`` out unnoticed."""
import warnings

import pytest
import torch

import leafgrad
from leafgrad.ops._forms import accepts_out
from leafgrad.ops._registry import OPS


def _m(T):
    return T.tensor([[2.0, -1.0, 0.5], [1.0, 3.0, -1.0], [0.0, 1.5, 4.0]])


def _v(T):
    return T.tensor([1.0, -2.0, 3.0])


def _i(T):
    return T.tensor([[0, 2], [1, 0], [2, 1]])


def _special(T):
    return T.tensor([1.0, float("inf"), -float("inf"), float("nan")])


# op -> T -> (args, kwargs): one call each, run with and without out=
CASES = {
    "celu": lambda T: ((_m(T),), {}),
    "log_softmax": lambda T: ((_m(T), 1), {}),
    "softmax": lambda T: ((_m(T), 0), {}),
    "threshold": lambda T: ((_m(T), 0.7, -5.0), {}),
    "floor_divide": lambda T: ((_m(T), 0.7), {}),
    "pow": lambda T: ((_m(T).abs(), 1.5), {}),
    "rsub": lambda T: ((_m(T), _v(T)), {}),
    "bitwise_not": lambda T: ((T.tensor([1, 2, -3]),), {}),
    "isinf": lambda T: ((_special(T),), {}),
    "isnan": lambda T: ((_special(T),), {}),
    "isneginf": lambda T: ((_special(T),), {}),
    "isposinf": lambda T: ((_special(T),), {}),
    "logical_not": lambda T: ((_m(T),), {}),
    "signbit": lambda T: ((_m(T),), {}),
    "index_fill": lambda T: ((_m(T), 1, T.tensor([0, 2]), -1.0), {}),
    "masked_scatter": lambda T: ((_m(T), _m(T) > 0.7, T.arange(9.0)), {}),
    "gather": lambda T: ((_m(T), 1, _i(T)), {}),
    "index_add": lambda T: ((_m(T), 0, T.tensor([0, 2]), T.ones(2, 3)), {}),
    "slice_scatter": lambda T: ((_m(T), T.ones(3, 2), 1, 0, None, 2), {}),
    "index_select": lambda T: ((_m(T), 1, T.tensor([2, 0])), {}),
    "masked_fill": lambda T: ((_m(T), _m(T) > 0.7, 9.0), {}),
    "masked_select": lambda T: ((_m(T), _m(T) > 0.7), {}),
    "nonzero": lambda T: ((_m(T) > 0.7,), {}),
    "scatter": lambda T: ((_m(T), 1, _i(T), T.ones(3, 2)), {}),
    "scatter_add": lambda T: ((_m(T), 1, _i(T), T.ones(3, 2)), {}),
    "take_along_dim": lambda T: ((_m(T), _i(T), 1), {}),
    "tril": lambda T: ((_m(T),), {"diagonal": -1}),
    "triu": lambda T: ((_m(T), 1), {}),
    "unique_consecutive": lambda T: ((T.tensor([1, 1, 2, 2, 3, 1]),), {}),
    "diag": lambda T: ((_m(T),), {}),
    "diff": lambda T: ((_m(T),), {"dim": 0}),
    "flip": lambda T: ((_m(T), (0,)), {}),
    "hstack": lambda T: (([_m(T), _m(T)],), {}),
    "repeat_interleave": lambda T: ((_v(T), 2), {}),
    "roll": lambda T: ((_m(T), 1, 0), {}),
    "vstack": lambda T: (([_m(T), _m(T)],), {}),
    "addmm": lambda T: ((_m(T), _m(T), _m(T)), {"beta": 0.5, "alpha": 2.0}),
    "ger": lambda T: ((_v(T), _v(T)), {}),
    "kron": lambda T: ((_m(T), _v(T)), {}),
    "outer": lambda T: ((_v(T), _v(T)), {}),
    "trace": lambda T: ((_m(T),), {}),
    "dist": lambda T: ((_m(T), _m(T).T), {}),
    "slogdet": lambda T: ((_m(T),), {}),
    "norm": lambda T: ((_m(T),), {"dim": 1}),
    "orgqr": lambda T: ((_m(T), T.tensor([1.2, 1.5])), {}),
    "pixel_shuffle": lambda T: ((T.arange(16.0).reshape(1, 4, 2, 2), 2), {}),
    "pixel_unshuffle": lambda T: ((T.arange(16.0).reshape(1, 1, 4, 4), 2), {}),
    "addcdiv": lambda T: ((_m(T), _m(T), _m(T) + 5), {"value": 0.5}),
    "addcmul": lambda T: ((_m(T), _m(T), _m(T)), {"value": 0.5}),
    "clamp_max": lambda T: ((_m(T), 1.0), {}),
    "clamp_min": lambda T: ((_m(T), 1.0), {}),
    "nan_to_num": lambda T: ((_special(T),), {"posinf": 7.0}),
    "where": lambda T: ((_m(T) > 0.7, _m(T), -_m(T)), {}),
    "adaptive_avg_pool1d": lambda T: ((_m(T).reshape(1, 3, 3), 2), {}),
    "avg_pool1d": lambda T: ((_m(T).reshape(1, 3, 3), 2), {}),
    "all": lambda T: ((_m(T) > 0.7, 1), {}),
    "amax": lambda T: ((_m(T), 1), {}),
    "amin": lambda T: ((_m(T), 0), {}),
    "any": lambda T: ((_m(T) > 0.7, 1), {}),
    "argmax": lambda T: ((_m(T), 1), {}),
    "argmin": lambda T: ((_m(T), 0), {}),
    "bincount": lambda T: ((T.tensor([0, 1, 1, 3]),), {}),
    "count_nonzero": lambda T: ((_m(T), 0), {}),
    "cumprod": lambda T: ((_m(T), 1), {}),
    "cumsum": lambda T: ((_m(T), 0), {}),
    "logsumexp": lambda T: ((_m(T), 1), {}),
    "prod": lambda T: ((_m(T), 1), {}),
    "std": lambda T: ((_m(T), 1), {}),
    "var": lambda T: ((_m(T), 0), {}),
    "clone": lambda T: ((_m(T),), {}),
    "diag_embed": lambda T: ((_m(T),), {}),
    "rot90": lambda T: ((_m(T),), {}),
    "hardshrink": lambda T: ((_m(T), 0.6), {}),
    "argsort": lambda T: ((_v(T),), {}),
    "median": lambda T: ((_m(T), 1), {}),
    "sort": lambda T: ((_m(T), 1), {}),
    "topk": lambda T: ((_m(T), 2), {}),
    "frexp": lambda T: ((_m(T),), {}),
    "std_mean": lambda T: ((_m(T), 1), {}),
    "var_mean": lambda T: ((_m(T), 1), {}),
    "channel_shuffle": lambda T: ((T.arange(8.0).reshape(1, 4, 2), 2), {}),
    "conv_tbc": lambda T: ((T.ones(5, 2, 3), T.ones(3, 3, 4), T.ones(4), 1), {}),
    "select_scatter": lambda T: ((_m(T), T.ones(3), 0, 1), {}),
    "diagonal_scatter": lambda T: ((_m(T), T.ones(3)), {}),
    "index_put": lambda T: ((_m(T), (T.tensor([0, 2]),), T.ones(3)), {}),
    "put": lambda T: ((_m(T), T.tensor([0, 4]), T.ones(2)), {}),
    "index_reduce": lambda T: ((_m(T), 0, T.tensor([0, 0]), T.ones(2, 3), "amax"), {}),
}
# torch.special / torch.linalg forms (derived: function_form; or with_out)
CASES.update({
    "special.ndtr": lambda T: ((_m(T),), {}),
    "special.logsumexp": lambda T: ((_m(T), 1), {}),
    "linalg.lstsq": lambda T: ((_m(T), _m(T) + 1), {}),
})

# PyTorch's ATen has an out= overload but its Python torch.X takes no out= (TypeError),
# so leafgrad's takes none either (checked below: both raise TypeError)
PYTHON_REFUSES = {
    "celu", "rsub", "isinf", "isnan", "index_fill", "masked_scatter", "masked_fill",
    "unique_consecutive", "flip", "repeat_interleave", "roll", "trace", "dist",
    "pixel_shuffle", "pixel_unshuffle", "adaptive_avg_pool1d", "avg_pool1d", "bincount",
    "count_nonzero", "clone", "diag_embed", "rot90", "std_mean", "var_mean", "channel_shuffle",
    "conv_tbc", "select_scatter", "diagonal_scatter", "index_put", "put",
    # only its overload with stable= takes out= in PyTorch
    "argsort",
}


def _torch_has_out(name):
    return any(a.kwarg_only and a.alias_info is not None and a.alias_info.is_write
               for s in torch._C._jit_get_schemas_for_operator("aten::" + name)
               for a in s.arguments)


def test_every_declared_function_with_an_out_overload_is_checked():
    unchecked = []
    for d in OPS.values():
        if d.form("function") is None:
            continue
        for n in d.names():
            if hasattr(torch, n) and _torch_has_out(n) and n not in CASES \
                    and not accepts_out(getattr(leafgrad, n)):
                unchecked.append(n)
    assert not unchecked, ("declared torch.X with an ATen out= overload, taking no out= and "
                           "not in CASES (add a case; declare out=True): %s" % sorted(unchecked))
    assert not PYTHON_REFUSES - set(CASES)


def _zeros_like_result(T, r):
    if isinstance(r, tuple):
        return tuple(T.zeros(x.shape, dtype=x.dtype) for x in r)
    return T.zeros(r.shape, dtype=r.dtype)


def _show(o):
    if isinstance(o, tuple):
        return [_show(x) for x in o]
    return (str(o.dtype).replace("torch.", ""), tuple(o.shape),
            [round(v, 4) if v == v else "nan" for v in o.double().flatten().tolist()])


def _run(T, name):
    args, kwargs = CASES[name](T)
    fn = T
    for part in name.split("."):
        fn = getattr(fn, part)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = fn(*args, **kwargs)
        o = _zeros_like_result(T, r)
        try:
            got = fn(*args, out=o, **kwargs)
        except TypeError:
            return "TypeError"
    same = all(a is b for a, b in zip(got, o)) if isinstance(o, tuple) else got is o
    return same, _show(o), _show(r)


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_as_pytorch(name):
    want = _run(torch, name)
    assert (want == "TypeError") == (name in PYTHON_REFUSES)
    got = _run(leafgrad, name)
    assert got == want
    if got != "TypeError":
        assert got[0] is True and got[1] == got[2]      # out is returned, holds the result


@pytest.mark.parametrize("name", sorted(n for n in set(CASES) - PYTHON_REFUSES if "." not in n))
def test_tensor_method_takes_no_out(name):
    m = leafgrad.Tensor.__dict__.get(name)
    if m is None:
        pytest.skip("no Tensor.%s" % name)
    args, kwargs = CASES[name](leafgrad)
    if not isinstance(args[0], leafgrad.Tensor):
        pytest.skip("first argument not a tensor")
    with pytest.raises(TypeError):
        m(*args, out=leafgrad.zeros(1), **kwargs)


def test_out_requires_grad_refused_as_pytorch():
    for T in (torch, leafgrad):
        x = _m(T).requires_grad_()
        with pytest.raises(RuntimeError):
            T.cumsum(x, 0, out=T.zeros(3, 3))
