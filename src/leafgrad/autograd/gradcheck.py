"""``gradcheck`` / ``gradgradcheck``: compare autograd with central finite differences.

Inputs should be float64 tensors with ``requires_grad=True``. For every
input element x_i the numerical Jacobian column is
(f(x + eps e_i) - f(x - eps e_i)) / (2 eps); the analytical Jacobian comes
from one vector-Jacobian product per output element. They must agree
elementwise within ``atol + rtol * |numerical|``
(https://pytorch.org/docs/stable/autograd.html#numerical-gradient-checking).
On a mismatch the error shows both Jacobians, as PyTorch's does, and first
names the worst element.

Complex inputs and outputs are checked as the real map of their (real, imag) pairs
(``view_as_real``): the analytical Jacobian then comes through ``view_as_complex`` /
``view_as_real``, so it checks PyTorch's conjugate Wirtinger gradients of every op
inside (PyTorch's gradcheck checks the same real Jacobian, in its own layout).
"""

import numpy as np
from .._core import errors as _errors

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients differ."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _float_outputs(out):
    from .._tensor.tensor import Tensor
    return [o for o in _as_tuple(out) if isinstance(o, Tensor) and o._data.dtype.kind in "fc"]


def _realified(func, inputs):
    """``func`` and ``inputs`` with every complex tensor seen as its float view
    ``(..., 2)``: complex inputs replaced by float leaves, complex outputs by their
    ``view_as_real``."""
    from .._tensor.tensor import Tensor
    from ..ops.elementwise.complex import view_as_complex, view_as_real
    cx = [isinstance(t, Tensor) and t._data.dtype.kind == "c" for t in inputs]

    def part(o):
        if isinstance(o, Tensor) and o._data.dtype.kind == "c":
            return view_as_real(o.resolve_conj())
        return o

    def real_fn(*args):
        out = func(*[view_as_complex(a) if c else a for a, c in zip(args, cx)])
        return tuple(part(o) for o in out) if isinstance(out, (tuple, list)) else part(out)
    new = tuple(view_as_real(t.detach()).clone().requires_grad_(t._requires_grad) if c else t
                for t, c in zip(inputs, cx))
    return real_fn, new


def _eval(fn, inputs):
    # grad mode stays on: gradgradcheck's function itself calls autograd.grad
    return [o._data.astype(np.float64) for o in _float_outputs(fn(*inputs))]


def _numerical(fn, inputs, diff, eps):
    """jac[j][o]: array (out_numel, in_numel) for differentiable input j, output o."""
    jac = []
    for i in diff:
        flat = inputs[i]._data.reshape(-1)      # a view: perturb in place
        cols = []
        for k in range(flat.size):
            orig = flat[k].copy()
            flat[k] = orig + eps
            plus = _eval(fn, inputs)
            flat[k] = orig - eps
            minus = _eval(fn, inputs)
            flat[k] = orig
            cols.append([((p - m) / (2 * eps)).reshape(-1) for p, m in zip(plus, minus)])
        n_out = len(_eval(fn, inputs)) if not cols else len(cols[0])
        jac.append([np.array([c[o] for c in cols]).T.reshape(-1, flat.size)
                    if cols else np.zeros((0, 0)) for o in range(n_out)])
    return jac


def _analytical(fn, inputs, diff):
    from .._tensor.tensor import Tensor
    from . import grad
    outs = _float_outputs(fn(*inputs))
    d_inputs = [inputs[i] for i in diff]
    jac = [[np.zeros((o._data.size, t._data.size)) for o in outs] for t in d_inputs]
    for o_idx, o in enumerate(outs):
        if not o._requires_grad:
            continue
        for k in range(o._data.size):
            seed = np.zeros(o._data.shape, o._data.dtype)
            seed.reshape(-1)[k] = 1
            gs = grad(o, d_inputs, Tensor._make_plain(seed), retain_graph=True,
                      allow_unused=True)
            for j, g in enumerate(gs):
                if g is not None:
                    jac[j][o_idx][k] = g._data.astype(np.float64).reshape(-1)
    return jac, len(outs)


def _fmt(a):
    from .._tensor.tensor import Tensor
    return repr(Tensor._make_plain(np.asarray(a, np.float64)))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Check autograd's gradients of ``func`` at ``inputs`` against finite differences.

    Args:
        func: a function of tensors returning a tensor or a tuple of tensors.
        inputs: a tensor or a tuple of arguments; the tensors with
            ``requires_grad=True`` are checked (use float64).
        eps: the finite-difference step.
        atol, rtol: tolerances (|analytical - numerical| <= atol + rtol * |numerical|).
        raise_exception: raise on a mismatch (else return False).
        check_forward_ad: also check the Jacobians forward AD gives
            (``autograd.forward_ad``: one dual evaluation per input element).
        check_backward_ad: check reverse mode's (default True).

    Returns:
        True when every Jacobian matches.

    Raises:
        GradcheckError (a RuntimeError): on a mismatch, naming the output, the
            input and the worst element, then both Jacobians.
        ValueError: when no input requires grad.
    """
    from .._tensor.tensor import Tensor
    inputs = _as_tuple(inputs)
    diff = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for i in diff:
        if inputs[i]._data.dtype not in (np.float64, np.complex128):
            _errors.warn("Input #%d requires gradient and is not a double precision floating "
                         "point or complex. This check will likely fail if all the inputs are "
                         "not of double precision floating point or complex. " % i,
                         UserWarning)
    func, inputs = _realified(func, inputs)
    num = _numerical(func, inputs, diff, eps)
    modes = []
    if check_backward_ad:
        modes.append(("", _analytical))
    if check_forward_ad:
        modes.append(("(forward AD) ", _forward))
    for label, jacobian in modes:
        ana, n_out = jacobian(func, inputs, diff)
        if not _compare(ana, num, n_out, diff, atol, rtol, label, raise_exception):
            return False
    return True


def _forward(fn, inputs, diff):
    """The Jacobians by forward AD: one dual evaluation per input element."""
    from .._tensor.tensor import Tensor
    from . import forward_ad
    n_out = len(_float_outputs(fn(*inputs)))
    jac = []
    for i in diff:
        x = inputs[i]
        cols = []
        for k in range(x._data.size):
            seed = np.zeros(x._data.shape, x._data.dtype)
            seed.reshape(-1)[k] = 1
            with forward_ad.dual_level():
                args = list(inputs)
                args[i] = forward_ad.make_dual(x, Tensor._make_plain(seed))
                outs = _float_outputs(fn(*args))
                cols.append([np.zeros(o._data.size) if t is None else
                             t._data.astype(np.float64).reshape(-1)
                             for o, t in ((o, forward_ad.unpack_dual(o).tangent)
                                          for o in outs)])
        jac.append([np.array([c[o] for c in cols]).T.reshape(-1, x._data.size)
                    for o in range(n_out)])
    return jac, n_out


def _compare(ana, num, n_out, diff, atol, rtol, label, raise_exception):
    for o in range(n_out):
        for j, i in enumerate(diff):
            a, n = ana[j][o], num[j][o].reshape(ana[j][o].shape)
            bad = np.abs(a - n) > atol + rtol * np.abs(n)
            bad |= np.isnan(a) != np.isnan(n)
            if bad.any():
                k = np.unravel_index(np.argmax(np.where(bad, np.abs(a - n), -1.0)), a.shape)
                msg = ("%sJacobian mismatch for output %d with respect to input %d,\n"
                       "worst element: d output[%d] / d input[%d] (flattened indices) is %.6g "
                       "from autograd but %.6g by finite differences (atol=%g, rtol=%g). "
                       "Usually the backward formula of an op in the function is wrong, or "
                       "the inputs are not float64 (use .double()).\n"
                       "numerical:%s\nanalytical:%s\n"
                       % (label, o, i, k[0], k[1], a[k], n[k], atol, rtol, _fmt(n.T), _fmt(a.T)))
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of the gradient of ``func``: checks second derivatives.

    The first gradient is taken with ``create_graph=True`` against
    ``grad_outputs`` (random float64 vectors, which are checked too, when not
    given).
    """
    from .._tensor.tensor import Tensor
    from . import grad
    inputs = _as_tuple(inputs)
    outs = _float_outputs(func(*inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(Tensor._make_plain(rng.standard_normal(o._data.shape)
                                                .astype(o._data.dtype)).requires_grad_()
                             for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_grad(*args):
        ins, gos = args[:n_in], args[n_in:]
        o = [t for t in _float_outputs(func(*ins)) if t._requires_grad]
        d = [t for t in ins if isinstance(t, Tensor) and t._requires_grad]
        gs = grad(o, d, gos[:len(o)], create_graph=True, allow_unused=True)
        return tuple(Tensor._make_plain(np.zeros(t._data.shape, t._data.dtype)) if g is None
                     else g for g, t in zip(gs, d))

    return gradcheck(first_grad, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol)
