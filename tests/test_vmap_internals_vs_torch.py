"""``torch._vmap_internals._vmap`` / ``vmap`` and
``torch.autograd.functional._construct_standard_basis_for``, private names libraries
import (issue 28), against real torch: results, shapes, dtypes and errors."""
import numpy as np
import pytest
import torch
import torch._vmap_internals as torch_vi
from torch.autograd.functional import _construct_standard_basis_for as torch_basis

import leafgrad
import leafgrad._vmap_internals as ours_vi
from leafgrad.autograd.functional import _construct_standard_basis_for as ours_basis

X = np.arange(12.0).reshape(3, 4)
Y = np.array([1.0, -2.0, 3.0, 0.5])


def _both(fn, **kw):
    got = []
    for lib, vi in ((torch, torch_vi), (leafgrad, ours_vi)):
        x, y = lib.tensor(X), lib.tensor(Y)
        got.append(vi._vmap(fn(lib), **kw)(x, y))
    return got


@pytest.mark.parametrize("kw,fn", [
    (dict(in_dims=(0, None)), lambda lib: lambda x, y: x * y.sum()),
    (dict(in_dims=(1, None), out_dims=1), lambda lib: lambda x, y: x * y[:3]),
    (dict(in_dims=(0, None), out_dims=(1, 0)),
     lambda lib: lambda x, y: (x * y.sum(), lib.sin(x) + y[0])),
])
def test_vmap_matches_torch(kw, fn):
    theirs, ours = _both(fn, **kw)
    for t, o in zip(theirs if isinstance(theirs, tuple) else (theirs,),
                    ours if isinstance(ours, tuple) else (ours,)):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.numpy(), t.numpy())


def test_vmap_none_pass_through():
    theirs, ours = _both(lambda lib: (lambda x, y: (x * 2, None)), in_dims=(0, None),
                         allow_none_pass_through=True)
    assert theirs[1] is None and ours[1] is None
    np.testing.assert_allclose(ours[0].numpy(), theirs[0].numpy())


@pytest.mark.parametrize("ret", [lambda x: (x * 2, None), lambda x: 1, lambda x: [x]])
def test_vmap_refuses_non_tensor_outputs(ret):
    with pytest.raises(ValueError) as theirs:
        torch_vi._vmap(ret)(torch.ones(3, 2))
    with pytest.raises(ValueError) as ours:
        ours_vi._vmap(ret)(leafgrad.ones(3, 2))
    assert str(ours.value) == str(theirs.value)


def test_vmap_deprecated_name_warns():
    with pytest.warns(FutureWarning, match="torch._vmap_internals.vmap"):
        out = ours_vi.vmap(lambda x: x + 1)(leafgrad.ones(2, 3))
    assert tuple(out.shape) == (2, 3)


@pytest.mark.parametrize("shapes,dtypes", [(((2,), (1, 2)), ("float64", "float32")),
                                           (((3,),), ("float32",)),
                                           (((), (2, 2), (1,)), ("float16", "float64", "int64"))])
def test_standard_basis_matches_torch(shapes, dtypes):
    numels = tuple(int(np.prod(s)) for s in shapes)
    theirs = torch_basis(tuple(torch.zeros(s, dtype=getattr(torch, d))
                               for s, d in zip(shapes, dtypes)), numels)
    ours = ours_basis(tuple(leafgrad.zeros(s, dtype=getattr(leafgrad, d))
                            for s, d in zip(shapes, dtypes)), numels)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert str(o.dtype) == str(t.dtype)
        np.testing.assert_array_equal(o.numpy(), t.numpy())


def test_standard_basis_errors():
    for args in (((leafgrad.zeros(2),), (2, 1)), ((), ())):
        targs = tuple(tuple(torch.zeros(2) for _ in a) if i == 0 else a
                      for i, a in enumerate(args))
        with pytest.raises(AssertionError) as theirs:
            torch_basis(*targs)
        with pytest.raises(AssertionError) as ours:
            ours_basis(*args)
        assert str(ours.value) == str(theirs.value)
