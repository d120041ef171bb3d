"""``Tensor.set_``, ``Module.load_state_dict``'s aliasing, ``Tensor._make_subclass`` /
``as_subclass`` and ``Parameter`` subclasses, each compared with real PyTorch (issue 28:
geoopt's ``ManifoldTensor`` / ``ManifoldParameter`` and its tests' ``Xstar.set_(...)``)."""
import copy

import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn


def _both(fn):
    """fn(torch-like module) on both libraries."""
    return fn(torch), fn(lg)


def _outcome(f):
    try:
        r = f()
    except Exception as e:                      # noqa: BLE001 - the class is compared
        return ("raises", next(c for c in type(e).__mro__ if c.__module__ == "builtins"))
    return ("ok", r)


# ------------------------------------------------------------------ set_
def test_set_source_tensor_shares_memory_and_keeps_own_version():
    def run(T):
        a, b = T.arange(6.), T.zeros(2)
        r = b.set_(a)
        out = [r is b, b.tolist(), b._version, a._version, b.data_ptr() == a.data_ptr()]
        a[0] = 100
        out.append(b.tolist())
        b.add_(1)
        out += [a.tolist(), a._version, b._version]
        m = T.zeros(2, 3).t()
        n = T.zeros(1).set_(m)
        out += [n.stride(), tuple(n.shape), n.is_contiguous()]
        v = a[1:3]
        z = T.zeros(1).set_(v)
        out += [z.storage_offset(), z._is_view(), z.tolist()]
        return out
    t, l = _both(run)
    assert t == l


def test_set_storage_forms():
    def run(T):
        a = T.arange(6.)
        s = a.untyped_storage()
        c = T.zeros(1)
        c.set_(s, 2, (2, 2), (1, 2))
        out = [c.tolist(), c.stride(), c.storage_offset(), c._version]
        c.set_(s)
        out.append(c.tolist())
        c.set_(s, 1, (2,))
        out.append(c.tolist())
        c.set_(s, storage_offset=1, size=T.Size([2]), stride=(2,))
        out += [c.tolist(), c.stride()]
        c.add_(10)                                   # writes through to a
        out.append(a.tolist())
        c.set_(source=a)
        out.append(c.tolist())
        i = T.zeros(2, dtype=T.int32).set_(T.tensor([1.0, 2.0]).untyped_storage())
        out.append(i.tolist())                       # the bytes, read as int32
        d = T.zeros(3)
        d.set_()
        out += [tuple(d.shape), d._version]
        return out
    t, l = _both(run)
    assert t == l


@pytest.mark.parametrize("case", [
    lambda T: T.zeros(3).set_(T.zeros(2, dtype=T.float64)),
    lambda T: T.zeros(3).set_(T.arange(6.), 1),
    lambda T: T.zeros(3).set_(3),
    lambda T: T.zeros(1).set_(T.arange(4.).untyped_storage(), -1, (2,)),
    lambda T: T.zeros(1).set_(T.arange(4.).untyped_storage(), 0, (2,), (1, 1)),
    lambda T: T.zeros(1).set_(T.arange(4.).untyped_storage(), 0, (2,), (-1,)),
    lambda T: T.zeros(3, requires_grad=True).set_(T.ones(3)),
    lambda T: T.zeros(4, requires_grad=True)[1:].set_(T.ones(3)),
])
def test_set_errors_as_torch(case):
    t, l = _outcome(lambda: case(torch)), _outcome(lambda: case(lg))
    assert t[0] == l[0] == "raises" and t[1] is l[1]


def test_set_message_names_the_dtypes():
    with pytest.raises(RuntimeError, match="Could not set tensor of type double to a tensor "
                                           "of type float"):
        lg.zeros(3).set_(lg.zeros(2, dtype=lg.float64))


def test_set_under_no_grad_and_in_a_graph():
    def run(T):
        p = T.zeros(3, requires_grad=True)
        with T.no_grad():
            p.set_(T.ones(3))
        out = [p.tolist(), p.requires_grad, p.is_leaf, p._version]
        y = T.zeros(3, requires_grad=True) * 2
        y.set_(T.arange(3.))
        out += [type(y.grad_fn).__name__, y.requires_grad, y._version]
        e = T.zeros(2).set_(T.tensor([1., 2.], requires_grad=True))
        out += [e.requires_grad, type(e.grad_fn).__name__]
        out.append(_outcome(lambda: y.sum().backward())[0])
        return out
    t, l = _both(run)
    assert t == l


def test_set_storage_too_small_raises_where_torch_grows():
    # the one documented difference: NumPy memory cannot be moved
    with pytest.raises(RuntimeError, match="cannot move memory"):
        lg.zeros(1).set_(lg.arange(4.).untyped_storage(), 3, (2,))


# ------------------------------------------------------------ load_state_dict
def _pair(T):
    T.manual_seed(0)
    return T.nn.Linear(2, 2)


def test_load_state_dict_copies_in_place_and_assign_replaces():
    def run(T):
        m = _pair(T)
        w = m.weight
        v0 = w._version
        sd = {"weight": T.ones(2, 2), "bias": T.zeros(2)}
        out = [repr(m.load_state_dict(sd)), m.weight is w, m.weight._version - v0,
               m.weight.data_ptr() == sd["weight"].data_ptr()]
        m.load_state_dict(sd, assign=True)
        out += [m.weight is w, type(m.weight).__name__, m.weight.requires_grad,
                m.weight.data_ptr() == sd["weight"].data_ptr()]
        m2 = _pair(T)
        m2.weight.requires_grad_(False)
        m2.load_state_dict({"weight": T.ones(2, 2), "bias": T.zeros(2)}, assign=True)
        out.append(m2.weight.requires_grad)
        p = T.nn.Parameter(T.ones(2, 2))
        m3 = _pair(T)
        m3.load_state_dict({"weight": p, "bias": T.zeros(2)}, assign=True)
        out.append(m3.weight is p)
        bn = T.nn.BatchNorm1d(2)
        rm = bn.running_mean
        bn.load_state_dict(bn.state_dict())
        out.append(bn.running_mean is rm)
        sd = bn.state_dict()
        bn.load_state_dict(sd, assign=True)
        out += [bn.running_mean is rm, bn.running_mean is sd["running_mean"]]
        m4 = _pair(T)
        d = {"weight": T.ones(2, 2, dtype=T.float64), "bias": T.zeros(2)}
        m4.load_state_dict(d)
        out.append(str(m4.weight.dtype))
        m4.load_state_dict(d, assign=True)
        out.append(str(m4.weight.dtype))
        return out
    t, l = _both(run)
    assert t == l


@pytest.mark.parametrize("sd, strict", [
    ({"weight": np.ones((2, 2))}, True),
    ({"weight": np.ones((2, 2)), "bias": np.zeros(2), "x": np.ones(1), "y.z": np.ones(1)}, True),
    ({"weight": np.ones((3, 2)), "bias": np.zeros(2)}, True),
    ({"weight": np.ones((3, 2))}, False),
    ({"weight": np.ones((2, 2)), "bias": np.zeros(3)}, True),
])
def test_load_state_dict_errors_messages_and_partial_load(sd, strict):
    def run(T):
        m = _pair(T)
        got = _outcome(lambda: m.load_state_dict(
            {k: T.tensor(v, dtype=T.float32) for k, v in sd.items()}, strict=strict))
        msg = None
        try:
            m.load_state_dict({k: T.tensor(v, dtype=T.float32) for k, v in sd.items()},
                              strict=strict)
        except RuntimeError as e:
            msg = str(e)
        return got[0], msg, m.weight.detach().numpy().tolist()
    t, l = _both(run)
    assert t == l


def test_load_state_dict_assign_makes_a_parameter_of_the_subclass_slot():
    def run(T):
        class MyP(T.nn.Parameter):
            pass
        m = _pair(T)
        m.weight = MyP(T.zeros(2, 2))
        out = [type(m.weight).__name__]
        m.load_state_dict({"weight": T.ones(2, 2), "bias": T.zeros(2)})
        out.append(type(m.weight).__name__)
        m.load_state_dict({"weight": T.ones(2, 2), "bias": T.zeros(2)}, assign=True)
        out.append(type(m.weight).__name__)
        return out
    t, l = _both(run)
    assert t == l


# ------------------------------------------------------- subclasses, _make_subclass
def _classes(T):
    class MyT(T.Tensor):
        pass

    class MyD(T.Tensor):
        __torch_function__ = T._C._disabled_torch_function_impl

        def __new__(cls, data, manifold=None, requires_grad=False):
            inst = T.Tensor._make_subclass(cls, data, requires_grad)
            inst.manifold = manifold
            return inst

    class MyDP(MyD, T.nn.Parameter):       # geoopt's ManifoldParameter
        def __new__(cls, data=None, manifold=None, requires_grad=True):
            if data is None:
                data = MyD(T.empty(0))
            inst = MyD._make_subclass(cls, data, requires_grad)
            inst.manifold = manifold
            return inst
    return MyT, MyD, MyDP


def test_make_subclass_shares_memory_and_version():
    def run(T):
        MyT, MyD, _ = _classes(T)
        d = T.arange(3.)
        t = T.Tensor._make_subclass(MyT, d, True)
        out = [type(t).__name__, t.requires_grad, t.is_leaf, t.data_ptr() == d.data_ptr(),
               t._version]
        d.add_(1)
        t.extra = 5
        out += [t._version, t.tolist(), t.extra]
        u = MyD(d, manifold="E")
        out += [type(u).__name__, u.requires_grad, u.manifold, u.tolist()]
        out += [type(u + 1).__name__, type(u.sum()).__name__, type(u[0]).__name__]
        x = T.zeros(2, requires_grad=True) * 2
        out.append(T.Tensor._make_subclass(MyT, x).is_leaf)
        v = d.as_subclass(MyT)
        out += [type(v).__name__, v.data_ptr() == d.data_ptr()]
        leaf = T.ones(2, requires_grad=True)
        z = leaf.as_subclass(MyT)
        z.sum().backward()
        out += [z.is_leaf, z.requires_grad, leaf.grad.tolist()]
        return out
    t, l = _both(run)
    assert t == l


@pytest.mark.parametrize("case", [
    lambda T: T.Tensor._make_subclass(int, T.zeros(2)),
    lambda T: T.Tensor._make_subclass(_classes(T)[0], [1., 2.]),
    lambda T: T.Tensor._make_subclass(_classes(T)[0], T.arange(3), True),
])
def test_make_subclass_errors_as_torch(case):
    t, l = _outcome(lambda: case(torch)), _outcome(lambda: case(lg))
    assert t[0] == l[0] == "raises" and t[1] is l[1]


def test_parameter_subclasses_keep_their_class():
    def run(T):
        _, _, MyDP = _classes(T)

        class MyP(T.nn.Parameter):
            pass

        class P2(T.nn.Parameter):
            def __new__(cls, data, tag=None):
                inst = T.nn.Parameter.__new__(cls, data)
                inst.tag = tag
                return inst

            def __init__(self, data, tag=None):
                pass
        p = MyP(T.ones(2))
        out = [type(p).__name__, isinstance(p, T.nn.Parameter), p.requires_grad,
               repr(p).split("\n")[0], type(copy.deepcopy(p)).__name__]
        m = T.nn.Linear(2, 2)
        m.w2 = p
        out.append([n for n, _ in m.named_parameters()])
        opt = T.optim.SGD(m.parameters(), lr=0.1)
        m.w2.sum().backward()
        opt.step()
        out += [type(m.w2).__name__, m.w2.tolist()]
        p2 = P2(T.ones(2), tag="x")
        out += [type(p2).__name__, p2.tag, p2.requires_grad]
        mp = MyDP(T.ones(2), manifold="E")
        out += [type(mp).__name__, isinstance(mp, T.nn.Parameter), mp.requires_grad,
                mp.manifold, repr(mp).split("\n")[0]]
        mm = T.nn.Module()
        mm.p = mp
        out += [list(dict(mm.named_parameters())), type(mm.state_dict()["p"]).__name__,
                type(copy.deepcopy(mp)).__name__, type(mp + 1).__name__]
        return out
    t, l = _both(run)
    assert t == l


def test_legacy_constructor_on_a_subclass():
    def run(T):
        class MyT(T.Tensor):
            pass
        a = MyT([1.0, 2.0])
        b = T.Tensor(2, 3)
        return type(a).__name__, a.tolist(), str(a.dtype), tuple(b.shape), str(b.dtype)
    t, l = _both(run)
    assert t == l
