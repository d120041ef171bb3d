"""Wrapper tensor subclasses (``Tensor._make_wrapper_subclass`` + ``__torch_dispatch__``)
and the nn.Module extension points around them, against PyTorch 2.13: the recipe
"Extension points in nn.Module for load_state_dict and tensor subclasses" (swap_tensors,
module.to / casts with and without torch.__future__.set_swap_module_params_on_conversion,
Parameter(wrapper), load_state_dict(assign=True) through Tensor.module_load overridden by
__torch_function__), with float64 for the recipe's bfloat16 (leafgrad has no bfloat16)."""
import numpy as np
import pytest
import torch

import leafgrad as lg


def _wrapper_class(T):
    aten = T.ops.aten

    class QuantWeight(T.Tensor):
        @staticmethod
        def __new__(cls, elem, scale):
            return T.Tensor._make_wrapper_subclass(
                cls, elem.shape, dtype=elem.dtype, layout=elem.layout, device=elem.device,
                strides=elem.stride(), storage_offset=elem.storage_offset())

        def __init__(self, elem, scale):
            self.elem = elem
            self.scale = scale

        def __repr__(self):
            return "QuantWeight(%s, scale=%s)" % (self.elem, self.scale)

        @classmethod
        def __torch_dispatch__(cls, func, types, args, kwargs):
            if func in (aten.detach.default, aten._to_copy.default):
                return cls(func(args[0].elem, *args[1:], **kwargs), args[0].scale)
            raise NotImplementedError("Unsupported function %s" % func)
    return QuantWeight


def _conversion_story(T, swap):
    """What the recipe prints about m.double() on a wrapped weight, ids as same/changed."""
    QW = _wrapper_class(T)
    T.manual_seed(0)
    T.__future__.set_swap_module_params_on_conversion(swap)
    try:
        m = T.nn.Linear(3, 5, dtype=T.float32)
        m.weight = T.nn.Parameter(QW(m.weight, 0.5))
        ids = id(m.weight), id(m.bias)
        w_is_param = isinstance(m.weight, T.nn.Parameter)
        m.double()
        return (w_is_param, type(m.weight).__name__, (id(m.weight), id(m.bias)) == ids,
                str(m.weight.dtype), str(m.weight.elem.dtype), str(m.bias.dtype),
                m.weight.requires_grad, [n for n, _ in m.named_parameters()])
    finally:
        T.__future__.set_swap_module_params_on_conversion(False)


@pytest.mark.parametrize("swap", [False, True])
def test_module_conversion_of_a_wrapper_weight_as_torch(swap):
    assert _conversion_story(lg, swap) == _conversion_story(torch, swap)


def _load_story(T):
    QW = _wrapper_class(T)

    @classmethod
    def tf(cls, func, types, args=(), kwargs=None):
        kwargs = {} if kwargs is None else kwargs
        if func is T.Tensor.module_load:
            dest, src = args[0], args[1]
            assert type(dest) is cls and type(src) is T.Tensor
            return QW(src, dest.scale)
        with T._C.DisableTorchFunctionSubclass():
            return func(*args, **kwargs)
    QW.__torch_function__ = tf

    def fn(m):
        if isinstance(m, T.nn.Linear):
            m.weight = T.nn.Parameter(QW(m.weight, 0.5), requires_grad=m.weight.requires_grad)
    T.manual_seed(0)
    with T.device("meta"):
        m = T.nn.Linear(3, 5)
        m.apply(fn)
    T.__future__.set_swap_module_params_on_conversion(True)
    try:
        ids = id(m.weight), id(m.bias)
        before = repr(m.state_dict())
        sd = T.nn.Linear(3, 5).state_dict()
        m.load_state_dict(sd, assign=True)
        after = repr(m.state_dict())
        return (before, after, (id(m.weight), id(m.bias)) == ids, type(m.weight).__name__,
                m.weight.elem.is_meta, m.bias.is_meta, m.weight.requires_grad,
                m.bias.requires_grad)
    finally:
        T.__future__.set_swap_module_params_on_conversion(False)


def test_load_state_dict_assign_through_module_load_as_torch():
    assert _load_story(lg) == _load_story(torch)


def test_swap_tensors_and_parameter_identity_as_torch():
    out = []
    for T in (lg, torch):
        t1, t2 = T.arange(2), T.arange(3)
        T.utils.swap_tensors(t1, t2)
        mod = T.nn.Linear(1, 2, bias=False)
        opt = T.optim.SGD(mod.parameters())
        mod.weight = T.nn.Parameter(2 * mod.weight)
        out.append((t1.tolist(), t2.tolist(), opt.param_groups[0]["params"][0] is mod.weight))
    assert out[0] == out[1]


def test_aten_ops_print_and_compare_as_torch():
    for name in ("detach", "_to_copy", "clone"):
        a, b = getattr(lg.ops.aten, name).default, getattr(torch.ops.aten, name).default
        assert str(a) == str(b) and repr(a) == repr(b) and a.name() == b.name()
        pa, pb = getattr(lg.ops.aten, name), getattr(torch.ops.aten, name)
        assert (str(pa), repr(pa)) == (str(pb), repr(pb)) and "default" in pa.overloads()
        assert a is getattr(lg.ops.aten, name).default
    assert repr(lg.ops.aten) == repr(torch.ops.aten)
    with pytest.raises(AttributeError):
        lg.ops.aten.not_an_op


def test_other_ops_on_a_wrapper_raise_not_implemented():
    for T in (lg, torch):
        w = _wrapper_class(T)(T.ones(2, 3), 0.5)
        assert tuple(w.shape) == (2, 3) and str(w.dtype) == "torch.float32"
        assert str(w.device) == "cpu" and w.stride() == (3, 1)
        for op in (lambda w: w * 2, lambda w: w.sum(), lambda w: w.exp()):
            with pytest.raises(NotImplementedError):
                op(w)
        c = w.float()                   # same dtype: no dispatch, the wrapper itself
        assert c is w
        d = w.double()
        assert type(d) is type(w) and str(d.elem.dtype) == "torch.float64"


def test_module_load_default_copies_or_assigns_as_torch():
    for T in (lg, torch):
        dest, src = T.zeros(3), T.arange(3.0)
        r = dest.module_load(src)
        assert r is not dest and dest.tolist() == [0.0, 1.0, 2.0] and not r.requires_grad
        r2 = T.zeros(3).module_load(src, assign=True)
        with T.no_grad():
            src[0] = 7.0
        assert r2[0].item() == 7.0      # assign: the source's memory


def test_parameter_of_a_wrapper_whose_detach_changes_type_raises():
    class Bad(lg.Tensor):
        @staticmethod
        def __new__(cls, elem):
            return lg.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)

        def __init__(self, elem):
            self.elem = elem

        @classmethod
        def __torch_dispatch__(cls, func, types, args, kwargs):
            return func(args[0].elem, *args[1:], **kwargs)
    with pytest.raises(RuntimeError, match="detach"):
        lg.nn.Parameter(Bad(lg.ones(2)))
    np.testing.assert_array_equal(Bad(lg.ones(2)).detach().numpy(), np.ones(2))
