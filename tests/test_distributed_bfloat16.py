"""``torch.distributed`` imports and answers as one process with no backend, and
``torch.bfloat16`` exists as a name while any bfloat16 tensor raises TypeError (NumPy
has no bfloat16), leaving the module or tensor unchanged."""
import pytest
import torch

import leafgrad
import leafgrad.distributed as ldist
import torch.distributed as tdist


def test_single_process_answers():
    assert ldist.is_available() is False
    assert ldist.is_initialized() is tdist.is_initialized() is False
    assert ldist.is_torchelastic_launched() is tdist.is_torchelastic_launched()


@pytest.mark.parametrize("name", ["get_rank", "get_world_size", "barrier"])
def test_rank_queries_raise_torchs_error_before_init(name):
    with pytest.raises(ValueError) as t:
        getattr(tdist, name)()
    with pytest.raises(ValueError) as l:
        getattr(ldist, name)()
    assert str(l.value).startswith(str(t.value))
    assert "Fix:" in str(l.value)


def test_collectives_and_init_refuse_with_the_way_out():
    for f in (ldist.all_reduce, ldist.broadcast):
        with pytest.raises(ValueError, match="init_process_group"):
            f(leafgrad.ones(1), 0)
    with pytest.raises(RuntimeError, match="single process.*PyTorch"):
        ldist.init_process_group("gloo")
    with pytest.raises(AssertionError, match="Process group cannot be None"):
        ldist.destroy_process_group()
    assert ldist.ReduceOp.SUM and ldist.Backend("GLOO") == ldist.Backend.GLOO == "gloo"


def test_bfloat16_is_a_floating_dtype_name():
    b, tb = leafgrad.bfloat16, torch.bfloat16
    assert repr(b) == repr(tb) and b.is_floating_point == tb.is_floating_point
    assert b.itemsize == tb.itemsize and isinstance(b, leafgrad.dtype)
    assert b != leafgrad.float16 and b != leafgrad.float32


@pytest.mark.parametrize("make", [
    lambda T, x: T.zeros(2, dtype=T.bfloat16), lambda T, x: T.tensor([1.], dtype=T.bfloat16),
    lambda T, x: x.to(T.bfloat16), lambda T, x: x.bfloat16(), lambda T, x: x.type(T.bfloat16),
    lambda T, x: T.randn(2, dtype=T.bfloat16), lambda T, x: T.full((2,), 1., dtype=T.bfloat16),
    lambda T, x: T.zeros_like(x, dtype=T.bfloat16), lambda T, x: x.sum(dtype=T.bfloat16),
    lambda T, x: T.arange(3, dtype=T.bfloat16)])
def test_bfloat16_tensors_raise_where_torch_makes_them(make):
    assert make(torch, torch.ones(2)).dtype == torch.bfloat16
    with pytest.raises(TypeError, match="no bfloat16 tensors.*Fix: use torch.float32"):
        make(leafgrad, leafgrad.ones(2))


@pytest.mark.parametrize("cast", [lambda m: m.bfloat16(), lambda m: m.to(leafgrad.bfloat16)])
def test_module_bfloat16_raises_and_changes_nothing(cast):
    m = leafgrad.nn.Linear(3, 2)
    before = {k: v.clone() for k, v in m.state_dict().items()}
    with pytest.raises(TypeError, match="no bfloat16"):
        cast(m)
    after = m.state_dict()
    assert all(after[k].dtype == leafgrad.float32 and leafgrad.equal(after[k], v)
               for k, v in before.items())
