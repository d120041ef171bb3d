"""What tests/fuzz/test_fuzz_indexing.py found different from PyTorch, one plain test
each (compared with real torch)."""
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from _outcome import builtin_name


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    except Exception as e:   # noqa: BLE001 - the class is compared
        return builtin_name(type(e))


SET_KEYS = [Ellipsis, slice(None), (slice(None), slice(None)), slice(0, 5), True, False, None,
            (Ellipsis, None), [True, False], "t0", "tTrue", (slice(None), True), 0,
            "i", ("i", slice(None)), (slice(None), "i"), (0, "i"), (None, "i"), ("i", None),
            (slice(1, None), "i"), (Ellipsis, "i"), (True, "i"), ("i", [0])]


def _key(T, k):
    conv = {"t0": T.tensor(0), "tTrue": T.tensor(True), "i": T.tensor([0, 1])}
    if isinstance(k, tuple):
        return tuple(conv.get(e, e) if isinstance(e, str) else e for e in k)
    return conv.get(k, k) if isinstance(k, str) else k


@pytest.mark.parametrize("key", SET_KEYS, ids=repr)
@pytest.mark.parametrize("value", ["number", "0d", "full"])
def test_setitem_grad_fn_name_as_torch(key, value):
    """x[key] = v records PyTorch's node: CopySlices where its setitem takes a view first,
    IndexPutBackward0 for tensor indices on x itself, FillBackward3 / CopyBackwards for a
    key that takes no view (fill_ of a 0-d value, copy_ of a tensor)."""
    def run(T):
        x = T.zeros(2, 3, dtype=T.float64, requires_grad=True) * 1
        k = _key(T, key)
        shape = x.detach()[k].shape
        v = {"number": 2.0, "0d": T.tensor(2.0, dtype=T.float64, requires_grad=True),
             "full": T.ones(shape, dtype=T.float64, requires_grad=True)}[value]
        x[k] = v
        (x * T.arange(6.0, dtype=T.float64).reshape(2, 3)).sum().backward()
        return type(x.grad_fn).__name__, None if not hasattr(v, "grad") or v.grad is None \
            else v.grad.numpy().tolist()
    assert _outcome(lambda: run(leafgrad)) == _outcome(lambda: run(torch))


@pytest.mark.parametrize("make", [
    lambda T: T.zeros(2, 1, 1, 1).expand(2, 1, 1, 4),
    lambda T: T.zeros(2, 1, 1, 1).expand(3, 2, 1, 1, 4),
    lambda T: T.zeros(1, 3).expand(1, 3),
    lambda T: T.zeros(2, 3).expand(4, 2, 3),
], ids=range(4))
def test_view_strides_and_offset_as_torch(make):
    """expand keeps the strides of the dims it does not expand (NumPy gives every size-1
    dim 0)."""
    got, want = make(leafgrad), make(torch)
    assert (got.stride(), got.storage_offset(), got.is_contiguous()) == \
        (want.stride(), want.storage_offset(), want.is_contiguous())


@pytest.mark.parametrize("src,shape", [((1, 1), (1, 1)), ((0, 1), (0, 1)), ((1, 0), (3, 0)),
                                        ((1, 3), (1, 3)), ((3, 1), (3, 2)), ((1,), (1,))])
def test_inplace_on_expanded_as_torch(src, shape):
    """In-place ops on an expand are refused only where elements share memory."""
    def run(T):
        base = T.zeros(src)
        x = base.expand(*shape)
        x.add_(1)
        return base.numpy().tolist(), base._version
    assert _outcome(lambda: run(leafgrad)) == _outcome(lambda: run(torch))


def test_setitem_into_shared_memory_says_so():
    x = leafgrad.zeros(3, 1).expand(3, 2)
    with pytest.raises(RuntimeError, match="single memory location"):
        x[0] = 1.0
    with pytest.raises(RuntimeError, match="single memory location"):
        torch.zeros(3, 1).expand(3, 2)[0].add_(1)


@pytest.mark.parametrize("key", [False, ([], True, [True, True]), 5, [5], (0, 9)], ids=repr)
@pytest.mark.parametrize("value", [-1.0, 300, 2 ** 70, 1.5])
def test_setitem_value_checked_before_key_as_torch(key, value):
    """PyTorch makes the value a tensor (overflow checks) before it reads the key."""
    def run(T):
        x = T.zeros(3, 2, dtype=T.uint8)
        x[key] = value
        return x.numpy().tolist()
    assert _outcome(lambda: run(leafgrad)) == _outcome(lambda: run(torch))


@pytest.mark.parametrize("key", ["[1]", "[5]", "([1], 0)", "([5], 0)", "mask"])
@pytest.mark.parametrize("value", [(7, "bool"), (2, "bool"), (7, "uint8"), (1, "bool")])
def test_index_put_checks_shape_then_dtype_then_range_as_torch(key, value):
    def run(T):
        x = T.zeros(3, 2, dtype=T.uint8)
        k = {"[1]": T.tensor([1]), "[5]": T.tensor([5]), "([1], 0)": (T.tensor([1]), 0),
             "([5], 0)": (T.tensor([5]), 0), "mask": T.tensor([True, False, True])}[key]
        x[k] = T.zeros(value[0], dtype=getattr(T, value[1]))
        return x.numpy().tolist()
    assert _outcome(lambda: run(leafgrad)) == _outcome(lambda: run(torch))


@pytest.mark.parametrize("key", ["False", "[False]", "(False,)", "True", "[True]", "t(False)",
                                 "mask_list", "[mask_list]", "(mask_list, 1:)", "[t_mask]",
                                 "(t_mask, 0)"])
@pytest.mark.parametrize("shape", [(3, 2), (0, 1), (2,), (3,)])
def test_setitem_casts_where_torch_does(key, shape):
    """A bare True copies (casting); one boolean mask (tensor or list, any other basic
    entries) masked-fills a one-element value (casting, with the overflow check); other
    tensor indices (a 0-d bool is one) refuse another dtype."""
    def run(T, v):
        x = T.zeros(shape, dtype=T.uint8)
        n = shape[0]
        m = [i % 2 == 0 for i in range(n)]
        k = {"False": False, "[False]": [False], "(False,)": (False,), "True": True,
             "[True]": [True], "t(False)": T.tensor(False), "mask_list": m, "[mask_list]": [m],
             "(mask_list, 1:)": (m, slice(1, None)), "[t_mask]": [T.tensor(m)],
             "(t_mask, 0)": (T.tensor(m), 0)}[key]
        x[k] = v(T)
        return x.numpy().tolist()
    for v in (lambda T: T.tensor(-27), lambda T: T.tensor(5.0), lambda T: T.tensor(-10.0)):
        assert _outcome(lambda: run(leafgrad, v)) == _outcome(lambda: run(torch, v))


def test_setitem_value_with_leading_ones_on_an_empty_target_as_torch():
    def run(T):
        x = T.zeros(1, 4, 3, 4, dtype=T.int32)
        x[T.tensor([[2, -1]], dtype=T.int32), 1, 3:-1] = T.zeros(1, 1, 2, 0, 4, dtype=T.int32)
        return x.numpy().tolist()
    assert _outcome(lambda: run(leafgrad)) == _outcome(lambda: run(torch))


def test_inplace_on_view_of_empty_base_records_as_torch():
    def run(T):
        leaf = T.zeros(0, 1, 2, dtype=T.float64, requires_grad=True)
        y = (leaf * 1).permute(2, 0, 1)
        y[:, False] = 2.0
        y.sum().backward()
        return type(y.grad_fn).__name__, tuple(leaf.grad.shape)
    assert run(leafgrad) == run(torch)
    np.testing.assert_array_equal(leafgrad.zeros(0, 3).expand(2, 0, 3).add_(1).numpy(),
                                  np.zeros((2, 0, 3)))
