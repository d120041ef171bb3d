"""Names the recipes use, against PyTorch 2.13: the legacy ``Tensor.new``,
``torch.utils.swap_tensors``, ``torch.__future__`` flags, and the benchmark Timer's
dedented statements with ``torch`` in their globals (timer_quick_start recipe)."""
import weakref

import numpy as np
import pytest
import torch

import leafgrad as lg


def _same(a, b):
    assert type(a).__name__ == type(b).__name__
    assert repr(a) == repr(b)


@pytest.mark.parametrize("call", [
    lambda T, x: x.new(),
    lambda T, x: x.new([1, 2]),
    lambda T, x: x.new((2, 3)),
    lambda T, x: x.new(np.array([1.0, 2.0], dtype=np.float32)),
    lambda T, x: x.new(T.tensor([3.0, 4.0], dtype=T.float64)),
    lambda T, x: x.new(2, 3).shape,
    lambda T, x: x.new(T.Size([2, 1])).shape,
    lambda T, x: x.new(5).shape,
])
def test_new_matches_torch(call):
    _same(call(lg, lg.ones(2, dtype=lg.float64)), call(torch, torch.ones(2, dtype=torch.float64)))


def test_new_shares_memory_of_same_dtype_data_and_refuses_other_dtype_tensors():
    for T in (lg, torch):
        x = T.ones(2, dtype=T.float64)
        a = np.array([1.0, 2.0])
        y = x.new(a)
        a[0] = 9.0
        assert y[0].item() == 9.0
        t = T.tensor([3.0, 4.0], dtype=T.float64)
        z = x.new(t)
        t[0] = 7.0
        assert z[0].item() == 7.0 and not z.requires_grad
        with pytest.raises(TypeError):
            x.new(T.tensor([1, 2]))


def _swap_story(T):
    out = []
    t1, t2 = T.arange(2), T.arange(3.0, requires_grad=True)
    T.utils.swap_tensors(t1, t2)
    out += [repr(t1), repr(t2)]
    p, q = T.nn.Parameter(T.ones(2)), T.zeros(3)
    T.utils.swap_tensors(p, q)
    out += [type(p).__name__, type(q).__name__, repr(p), repr(q)]
    m = T.nn.Linear(2, 1)
    w = m.weight
    T.utils.swap_tensors(w, T.nn.Parameter(T.full((1, 2), 5.0)))
    out += [m.weight is w, repr(m.weight)]
    a = T.ones(1)
    r = weakref.ref(a)   # noqa: F841
    try:
        T.utils.swap_tensors(a, T.zeros(1))
    except RuntimeError as e:
        out.append(str(e).split(":")[0])
    # a graph recorded before the swap cannot run backward into the swapped leaf
    p = T.ones(2, requires_grad=True)
    y = (p * 2).sum()
    q = T.zeros(2, requires_grad=True)
    T.utils.swap_tensors(p, q)
    try:
        y.backward()
        out.append("no error")
    except RuntimeError as e:
        out.append(str(e)[:50])
    (p * 3).sum().backward()
    out += [repr(p.grad), repr(q.grad)]
    return out


def test_swap_tensors_matches_torch():
    assert _swap_story(lg) == _swap_story(torch)


def test_future_flags_round_trip():
    for T in (lg, torch):
        for name in ("swap", "overwrite"):
            setter = getattr(T.__future__, "set_%s_module_params_on_conversion" % name)
            getter = getattr(T.__future__, "get_%s_module_params_on_conversion" % name)
            assert getter() is False
            setter(True)
            assert getter() is True
            setter(False)


def test_timer_dedents_and_defines_torch():
    from leafgrad.utils.benchmark import Timer
    t = Timer(stmt="x * y", setup="""
        x = torch.ones((128,))
        y = torch.ones((128,))
    """)
    m = t.timeit(10)
    assert m.mean > 0
    # the statement really ran with leafgrad as `torch`
    t = Timer(stmt="out.append(type(torch.ones(1)).__module__)", globals={"out": []})
    t.timeit(1)
    assert t._globals["out"][0].startswith("leafgrad")
