"""torch.ops.aten (its few operators; other names refused with the reason: leafgrad has no
ATen dispatch), a wrapper subclass's other ops refused, and Tensor.storage_offset against
torch. The wrapper subclasses' dispatched ops: tests/test_wrapper_subclass.py."""
import pytest
import torch

import leafgrad


def _views(T):
    x = T.arange(24.).reshape(4, 6)
    return [x, x[1:], x[:, 2:], x[1:, 3:], x.t()[2:], x[::2, 1::2], x.view(-1)[5:], x[2],
            x[1:][1:], x.flatten()[7:].view(1, -1), x.diagonal(1), x.narrow(1, 2, 3),
            x.unfold(1, 2, 2)[1:], x[3, 5], x.expand(2, 4, 6)[1], x.clone()[2:]]


def test_storage_offset_of_views_as_torch():
    assert [v.storage_offset() for v in _views(leafgrad)] == \
        [v.storage_offset() for v in _views(torch)]
    assert leafgrad.ones(3).to("meta").storage_offset() == 0


def test_ops_aten_lookup_raises_attribute_error_with_reason():
    aten = leafgrad.ops.aten                # binding the namespace works (module level code)
    with pytest.raises(AttributeError, match="no ATen operator registry"):
        aten.mm                             # only detach, _to_copy, clone (_tensor/aten.py)
    with pytest.raises(AttributeError):
        torch.ops.aten.no_such_op_here      # PyTorch's class for an unknown op
    assert hasattr(aten, "_to_copy") and not hasattr(aten, "no_such_op_here")


def test_wrapper_subclass_ops_beyond_the_dispatched_ones_refused_with_reason():
    class Wrapper(leafgrad.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return leafgrad.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype,
                                                          strides=elem.stride(),
                                                          storage_offset=elem.storage_offset())
    w = Wrapper(leafgrad.ones(2))
    with pytest.raises(NotImplementedError, match="__torch_dispatch__"):
        w + 1
    with pytest.raises(NotImplementedError, match="__torch_dispatch__"):
        w.detach()              # Wrapper has no __torch_dispatch__
