"""scatter/scatter_add (and in-place forms) and unique against real PyTorch: values,
dtypes, grad_fn names and gradients, and the exception class of each misuse.

The hypothesis rows in op_table.py cover random shapes; these are the edge
cases (0-d tensors, src larger than the index, repeated positions, nan,
empty tensors, bad dims and dtypes).
"""
import warnings

import pytest
import torch as real_torch

import leafgrad
from _outcome import builtin_name


def _show(r):
    if isinstance(r, tuple):
        return tuple(_show(e) for e in r)
    return (str(r.dtype), tuple(r.shape), r.tolist(), r.requires_grad,
            type(r.grad_fn).__name__ if r.grad_fn is not None else None)


def _grads(torch, f, *xs):
    out = f(*xs)
    o = out[0] if isinstance(out, tuple) else out
    w = torch.arange(o.numel(), dtype=o.dtype).reshape(o.shape) + 1
    gs = torch.autograd.grad((o * w).sum(), [x for x in xs if x.requires_grad],
                             allow_unused=True)
    return _show(out), tuple(None if g is None else _show(g) for g in gs)


def _x(T):
    return T.zeros(3, 4, requires_grad=True)


def _src(T):
    return T.arange(1.0, 13.0).reshape(3, 4).requires_grad_()


def _src22(T):
    return T.arange(1.0, 5.0).reshape(2, 2).requires_grad_()


def _idx(T):
    return T.tensor([[0, 1], [2, 0]])


CASES = {
    # gradients (src larger than the index: torch's engine refuses src's gradient)
    "scatter:src_larger": lambda T: _grads(T, lambda a, b: T.scatter(a, 0, _idx(T), b),
                                           _x(T), _src(T)),
    "scatter:src": lambda T: _grads(T, lambda a, b: T.scatter(a, 0, _idx(T), b),
                                    _x(T), _src22(T)),
    "scatter:dim1": lambda T: _grads(T, lambda a, b: a.scatter(1, _idx(T), b), _x(T), _src22(T)),
    "scatter:value": lambda T: _grads(T, lambda a: a.scatter(1, _idx(T), 2.5), _x(T)),
    "scatter:value_kw": lambda T: _grads(T, lambda a: T.scatter(a, 1, _idx(T), value=2.5),
                                         _x(T)),
    "scatter_add:repeats": lambda T: _grads(
        T, lambda a, b: T.scatter_add(a, 0, T.tensor([[0, 0], [0, 0]]), b), _x(T), _src22(T)),
    "scatter_add:method": lambda T: _grads(T, lambda a, b: a.scatter_add(1, _idx(T), b),
                                           _x(T), _src22(T)),
    "scatter_add:src_larger": lambda T: _grads(T, lambda a, b: a.scatter_add(1, _idx(T), b),
                                               _x(T), _src(T)),
    "scatter_": lambda T: _grads(T, lambda a, b: (a * 1).scatter_(1, _idx(T), b),
                                 _x(T), _src22(T)),
    "scatter_:value": lambda T: _grads(T, lambda a: (a * 1).scatter_(1, _idx(T), -1.0), _x(T)),
    "scatter_add_": lambda T: _grads(T, lambda a, b: (a * 2).scatter_add_(0, _idx(T), b),
                                     _x(T), _src22(T)),
    # shapes and dtypes
    "scatter:0d_index": lambda T: _show(T.scatter(T.zeros(3), 0, T.tensor(1), T.tensor(5.0))),
    "scatter:0d_self": lambda T: _show(T.scatter(T.zeros(()), 0, T.tensor(0), T.tensor(5.0))),
    "scatter:int_self_float_value": lambda T: _show(
        T.scatter(T.zeros(3, 4, dtype=T.long), 0, T.tensor([[0]]), 1.5)),
    "scatter:repeated_positions": lambda T: _show(
        T.scatter(T.zeros(3), 0, T.tensor([0, 0, 0]), T.tensor([1.0, 2.0, 3.0]))),
    # misuse
    "scatter_:leaf": lambda T: T.zeros(3, requires_grad=True).scatter_(0, T.tensor([0]), 1.0),
    "scatter:out_of_bounds": lambda T: T.scatter(_x(T), 0, T.tensor([[3]]), _src(T)),
    "scatter:negative_index": lambda T: T.scatter(_x(T), 0, T.tensor([[-1]]), _src(T)),
    "scatter:index_dims": lambda T: T.scatter(_x(T), 0, T.tensor([0]), _src(T)),
    "scatter:src_dtype": lambda T: T.scatter(_x(T), 0, T.tensor([[0]]), _src(T).double()),
    "scatter:index_too_large": lambda T: T.scatter(_x(T), 0, T.zeros(4, 4, dtype=T.long),
                                                   _src(T)),
    "scatter:float_index": lambda T: T.scatter(_x(T), 0, T.zeros(1, 1), _src(T)),
    # unique
    "unique:inverse_counts": lambda T: _show(T.unique(
        T.tensor([3.0, 1.0, 2.0, 3.0, 1.0, 5.0], requires_grad=True),
        return_inverse=True, return_counts=True)),
    "unique:method_2d": lambda T: _show(T.tensor([[3, 1], [2, 3]]).unique()),
    "unique:dim0": lambda T: _show(T.unique(T.tensor([[1, 2], [1, 2], [0, 5]]), dim=0,
                                            return_inverse=True, return_counts=True)),
    "unique:dim1": lambda T: _show(T.unique(
        T.tensor([[1.0, 2, 1], [1, 2, 1]], requires_grad=True), dim=1, return_counts=True)),
    "unique:0d": lambda T: _show(T.unique(T.tensor(5.0), return_inverse=True)),
    "unique:empty": lambda T: _show(T.unique(T.tensor([]), return_inverse=True,
                                             return_counts=True)),
    "unique:nan": lambda T: _show(T.unique(T.tensor([float("nan"), 1.0, float("nan")]),
                                           return_counts=True)),
    "unique:bool": lambda T: _show(T.unique(T.tensor([True, False, True]),
                                            return_inverse=True)),
    "unique:bool_dim": lambda T: _show(T.unique(T.tensor([[True, False], [True, False]]),
                                                dim=0)),
    "unique:unsorted": lambda T: _show(T.unique(T.tensor([3, 1, 2, 3, 1, 5, 7, 0, 2]),
                                                sorted=False, return_inverse=True)),
    "unique:empty_dim": lambda T: _show(T.unique(T.zeros(0, 3), dim=0, return_inverse=True,
                                                 return_counts=True)),
    "unique:backward": lambda T: T.unique(T.tensor([3.0, 1.0], requires_grad=True))
    .sum().backward(),
    "unique:dim_of_0d": lambda T: T.unique(T.tensor(5.0), dim=0),
    "unique:dim_out_of_range": lambda T: T.unique(T.tensor([1.0]), dim=1),
    "unique:zero_sized_other_dim": lambda T: T.unique(T.zeros(2, 0), dim=0),
}


def _outcome(T, name):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return CASES[name](T)
    except Exception as e:  # noqa: BLE001
        return ("error", builtin_name(type(e)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_scatter_and_unique_match_torch(name):
    # repr: nan compares equal to nan there
    assert repr(_outcome(leafgrad, name)) == repr(_outcome(real_torch, name))
