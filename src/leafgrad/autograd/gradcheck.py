"""``gradcheck`` / ``gradgradcheck``: compare autograd with central finite differences.

Inputs should be float64 tensors with ``requires_grad=True``. For every
input element x_i, the numerical Jacobian column is
(f(x + eps e_i) - f(x - eps e_i)) / (2 eps); the analytical one comes from
one vector-Jacobian product per output element (PyTorch's gradcheck,
https://pytorch.org/docs/stable/autograd.html#numerical-gradient-checking).
"""
import numpy as np

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients differ."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _outputs(fn, inputs):
    from .grad_mode import no_grad
    with no_grad():
        return [o._data.astype(np.float64).copy() for o in _as_tuple(fn(*inputs))
                if hasattr(o, "_data")]


def _numerical(fn, inputs, eps):
    from .._tensor import Tensor
    cols = []
    for t in inputs:
        if not (isinstance(t, Tensor) and t._requires_grad):
            cols.append(None)
            continue
        flat = t._data.reshape(-1)
        jac = []
        for i in range(flat.size):
            orig = flat[i]
            flat[i] = orig + eps
            plus = _outputs(fn, inputs)
            flat[i] = orig - eps
            minus = _outputs(fn, inputs)
            flat[i] = orig
            jac.append([(p - m).reshape(-1) / (2 * eps) for p, m in zip(plus, minus)])
        cols.append(jac)
    return cols


def _analytical(fn, inputs):
    from .._tensor import Tensor
    from . import grad
    outs = [o for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor)]
    diff_inputs = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]
    rows = []     # rows[o][k] -> list over inputs of gradient arrays
    for o in outs:
        per = []
        for k in range(o._data.size):
            if not o._requires_grad:
                per.append([np.zeros(t._data.shape) for t in diff_inputs])
                continue
            seed = np.zeros(o._data.shape, o._data.dtype)
            seed.reshape(-1)[k] = 1
            gs = grad(o, diff_inputs, Tensor._make_plain(seed), retain_graph=True,
                      allow_unused=True)
            per.append([np.zeros(t._data.shape) if g is None else g._data.astype(np.float64)
                        for g, t in zip(gs, diff_inputs)])
        rows.append(per)
    return rows


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, fast_mode=False, **kwargs):
    """True when autograd's gradients of ``func`` at ``inputs`` match finite differences.

    Raises:
        GradcheckError (a RuntimeError): with the worst element, when they
            differ and ``raise_exception`` is True.
    """
    from .._tensor import Tensor
    inputs = _as_tuple(inputs)
    diff = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for i in diff:
        if inputs[i]._data.dtype != np.float64:
            import warnings
            warnings.warn("Input #%d requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of "
                          "double precision floating point." % i, UserWarning, stacklevel=2)
    num = _numerical(func, inputs, eps)
    ana = _analytical(func, inputs)
    for j, i in enumerate(diff):
        for o in range(len(ana)):
            a = np.array([row[j].reshape(-1) for row in ana[o]])          # (out, in)
            n = np.array([col[o] for col in num[i]]).T if num[i] else a * 0  # (out, in)
            if a.shape != n.shape:
                n = n.reshape(a.shape)
            bad = ~np.isclose(a, n, rtol=rtol, atol=atol, equal_nan=True)
            if bad.any():
                k = np.unravel_index(np.argmax(np.abs(a - n) * bad), a.shape)
                msg = ("Jacobian mismatch for output %d with respect to input %d: worst element "
                       "(output index %d, input index %d): analytical %r vs numerical %r "
                       "(atol=%g, rtol=%g).\nnumerical:%s\nanalytical:%s"
                       % (o, i, k[0], k[1], a[k], n[k], atol, rtol, n, a))
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, **kwargs):
    """gradcheck of the gradient of ``func`` (second derivatives, via create_graph)."""
    from .._tensor import Tensor
    from . import grad
    inputs = _as_tuple(inputs)
    rng = np.random.default_rng(0)
    outs = _as_tuple(func(*inputs))
    if grad_outputs is None:
        grad_outputs = tuple(Tensor._make_plain(rng.standard_normal(o._data.shape))
                             .requires_grad_() for o in outs if isinstance(o, Tensor))
    grad_outputs = _as_tuple(grad_outputs)
    diff = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]

    def first_grad(*args):
        ins, gos = args[:len(inputs)], args[len(inputs):]
        o = _as_tuple(func(*ins))
        d = [t for t in ins if isinstance(t, Tensor) and t._requires_grad]
        gs = grad(o, d, gos, create_graph=True, allow_unused=True)
        return tuple(g if g is not None else Tensor._make_plain(np.zeros(t._data.shape))
                     for g, t in zip(gs, d))
    del diff
    return gradcheck(first_grad, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
