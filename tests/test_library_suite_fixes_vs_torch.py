"""What made geoopt's and torchdiffeq's own tests fail only under leafgrad
(tools/library_suites.py), each compared with real PyTorch: ``copy.copy`` / ``deepcopy`` of
tensor subclasses (``ManifoldTensor``), ``t.real = v`` / ``t.imag = v``, ``mH`` / ``H``
conjugating complex matrices, ``linalg.eigh`` / ``eigvalsh`` of complex Hermitian matrices
(real eigenvalues, gradients)."""
import copy

import numpy as np
import pytest
import torch

import leafgrad as lg


def _both(fn):
    return fn(torch), fn(lg)


def _kind(f):
    try:
        f()
    except Exception as e:                      # noqa: BLE001 - the class is compared
        return next(c for c in type(e).__mro__ if c.__module__ == "builtins")
    return None


def test_copy_copy_shares_memory_and_keeps_the_class():
    def run(T):
        class M(T.Tensor):
            __torch_function__ = T._C._disabled_torch_function_impl
        t = T.arange(3.)
        c = copy.copy(t)
        out = [type(c).__name__, c.data_ptr() == t.data_ptr()]
        t.add_(1)
        out.append(c.tolist())
        p = T.nn.Parameter(T.ones(2))
        q = copy.copy(p)
        out += [type(q).__name__, q.data_ptr() == p.data_ptr(), q.requires_grad]
        x = T.ones(2, requires_grad=True) * 2
        y = copy.copy(x)
        out += [y.requires_grad, y.grad_fn is None, y.is_leaf]
        m = T.Tensor._make_subclass(M, T.ones(2))
        m.k = [1]
        mm = copy.copy(m)
        out += [type(mm).__name__, mm.k is m.k]
        return out
    t, l = _both(run)
    assert t == l


@pytest.mark.parametrize("disabled", [False, True])
def test_deepcopy_of_a_user_subclass_refuses_as_torch(disabled):
    def run(T):
        class M(T.Tensor):
            if disabled:
                __torch_function__ = T._C._disabled_torch_function_impl

            def __new__(cls, data, tag):          # __new__ needs arguments: deepcopy
                inst = T.Tensor._make_subclass(cls, data)   # must not call it
                inst.tag = tag
                return inst
        m = M(T.arange(3.), {"a": [1]})
        # PyTorch's new_empty gives a plain Tensor inside __deepcopy__: it refuses
        # (geoopt's ManifoldTensor defines its own __deepcopy__ for that)
        out = [_kind(lambda: copy.deepcopy(m))]
        p = T.nn.Parameter(T.ones(2))
        out.append(type(copy.deepcopy(p)).__name__)     # Parameter has its own
        return out
    t, l = _both(run)
    assert t == l


def test_real_imag_setters():
    def run(T):
        t = T.zeros(2, dtype=T.complex64)
        t.imag = T.ones(2)
        out = [t.tolist(), t._version]
        t.real = 3
        out.append(t.tolist())
        r = T.zeros(2)
        r.real = T.ones(2)
        out.append(r.tolist())
        x = T.zeros(2, dtype=T.complex64, requires_grad=True)

        def bad_shape():
            t.imag = T.ones(3)

        def leaf():
            x.imag = T.ones(2)

        def real_imag():
            r.imag = T.ones(2)
        out += [_kind(bad_shape), _kind(leaf), _kind(real_imag)]
        return out
    t, l = _both(run)
    assert t == l


def test_mH_and_H_conjugate_complex_matrices():
    def run(T):
        a = T.tensor([[1 + 2j, 3j], [0, 1]])
        r = T.tensor([[1., 2.], [3., 4.]])
        return [a.mH.tolist(), a.H.tolist(), a.mT.tolist(), a.T.tolist(), r.mH.tolist(),
                r.H.tolist(), str(a.mH.dtype)]
    t, l = _both(run)
    assert t == l


@pytest.mark.parametrize("dtype", ["complex128", "complex64", "float64"])
def test_eigh_of_hermitian_matrices_values_dtypes_and_gradients(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal((3, 3))

    def run(T):
        A = T.tensor(a, dtype=getattr(T, dtype), requires_grad=True)
        H = A @ A.mH + T.eye(3)
        L, V = T.linalg.eigh(H)
        (L.sum() * 2 + (V.abs() ** 2).sum() + L.pow(2).sum()).backward()
        B = T.tensor(a, dtype=getattr(T, dtype), requires_grad=True)
        w = T.linalg.eigvalsh(B @ B.mH)
        w.pow(2).sum().backward()
        return (str(L.dtype), str(V.dtype), str(w.dtype), L.detach().numpy(),
                A.grad.numpy(), B.grad.numpy())
    t, l = _both(run)
    assert t[:3] == l[:3]
    tol = 1e-3 if dtype == "complex64" else 1e-9
    for x, y in zip(t[3:], l[3:]):
        np.testing.assert_allclose(y, x, rtol=tol, atol=tol)
