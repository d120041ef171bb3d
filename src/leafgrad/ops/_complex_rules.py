"""PyTorch's convention for gradients through complex tensors, for every rule.

PyTorch's ``.grad`` of a real loss L through a complex z is the conjugate Wirtinger
derivative 2 dL/d(conj z) (PyTorch's "Autograd for Complex Numbers" note); in
derivatives.yaml a holomorphic f's rule is ``grad * f'(z).conj()``. The rules in
``ops/`` are written as ``g * f'(z)`` (the real formula), which is complex-linear in
``g``, so PyTorch's gradient is ``conj(rule(conj(g)))``: for mul that is
``g * conj(b)``, for exp ``g * conj(exp(z))``. Real-linear rules (sums, views,
indexing, casts) commute with conj, so the wrap changes nothing for them.

``complex_variant(cls)`` is that wrapped node class (same name, same slots), put on
a node recorded with a complex output (``_dispatch._result``); the nodes whose rules
are already written in PyTorch's convention (non-holomorphic ops: abs, sgn, conj,
real, imag, angle, ...) are listed in ``PYTORCH_CONVENTION`` and keep their class.
"""
import numpy as np

# rules written directly as derivatives.yaml's complex formulas
PYTORCH_CONVENTION = {
    "AbsBackward0", "SgnBackward0", "ConjBackward0", "ConjPhysicalBackward0",
    "RealBackward0", "ImagBackward0", "AngleBackward0", "ViewAsRealBackward0",
    "ViewAsComplexBackward0", "ComplexBackward0", "PolarBackward0",
    "FftR2CBackward0", "FftC2RBackward0", "FftC2CBackward0",
}

_VARIANTS = {}


def _conj_np(g):
    return None if g is None else np.conj(g)


def _conj_t(g):
    return g if g is None or not g.is_complex() else g.conj_physical()


def _wrap(rule, conj):
    def wrapped(ctx, *grads):
        out = rule(ctx, *[conj(g) for g in grads])
        if type(out) is not tuple:
            return conj(out)
        return tuple([conj(g) for g in out])
    return wrapped


def complex_variant(cls):
    """``cls``, or its subclass whose rules return PyTorch's complex gradient."""
    v = _VARIANTS.get(cls)
    if v is None:
        if cls.__name__ in PYTORCH_CONVENTION or getattr(cls, "complex_rule", False):
            v = cls
        else:
            body = {"__slots__": (), "backward": _wrap(cls.backward, _conj_t),
                    "__module__": cls.__module__, "__qualname__": cls.__qualname__}
            np_rule = getattr(cls, "np_backward", None)
            if np_rule is not None:
                body["np_backward"] = _wrap(np_rule, _conj_np)
            v = type(cls.__name__, (cls,), body)
        _VARIANTS[cls] = v
    return v
