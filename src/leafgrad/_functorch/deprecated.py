"""``functorch.X``: ``torch.func.X`` behind PyTorch's deprecation warning (FutureWarning,
the same text), plus ``make_functional`` / ``combine_state_for_ensemble``."""

from .. import func as _func
from . import make_functional as _nn_impl
from .._core import errors as _errors


def _warn(api, new_api=None):
    new_api = new_api or "torch.func.%s" % api
    _errors.warn("We've integrated functorch into PyTorch. As the final step of the "
                 "integration, `functorch.%s` is deprecated as of PyTorch 2.0 and will be "
                 "deleted in a future version of PyTorch >= 2.3. Please use `%s` instead; "
                 "see the PyTorch 2.0 release notes and/or the `torch.func` migration guide "
                 "for more details https://pytorch.org/docs/main/func.migrating.html"
                 % (api, new_api), FutureWarning)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """:func:`torch.func.vmap` (deprecated name)."""
    _warn("vmap", "torch.vmap")
    return _func.vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


def grad(func, argnums=0, has_aux=False):
    """:func:`torch.func.grad` (deprecated name)."""
    _warn("grad")
    return _func.grad(func, argnums, has_aux)


def grad_and_value(func, argnums=0, has_aux=False):
    """:func:`torch.func.grad_and_value` (deprecated name)."""
    _warn("grad_and_value")
    return _func.grad_and_value(func, argnums, has_aux)


def vjp(func, *primals, has_aux=False):
    """:func:`torch.func.vjp` (deprecated name)."""
    _warn("vjp")
    return _func.vjp(func, *primals, has_aux=has_aux)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """:func:`torch.func.jvp` (deprecated name)."""
    _warn("jvp")
    return _func.jvp(func, primals, tangents, strict=strict, has_aux=has_aux)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """:func:`torch.func.jacrev` (deprecated name)."""
    _warn("jacrev")
    return _func.jacrev(func, argnums, has_aux=has_aux, chunk_size=chunk_size)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """:func:`torch.func.jacfwd` (deprecated name)."""
    _warn("jacfwd")
    return _func.jacfwd(func, argnums, has_aux, randomness=randomness)


def hessian(func, argnums=0):
    """:func:`torch.func.hessian` (deprecated name)."""
    _warn("hessian")
    return _func.hessian(func, argnums=argnums)


def functionalize(func, *, remove="mutations"):
    """``functionalize(f)``: ``f`` itself. PyTorch rewrites in-place ops of the traced
    program into out-of-place ones; leafgrad runs eagerly, and the rewritten program
    computes the same values, so the function is returned as is.

    Raises:
        RuntimeError: ``remove`` is neither 'mutations' nor 'mutations_and_views'."""
    _warn("functionalize")
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError("functionalize(f, remove='mutations'): could not recognize the "
                           "remove argument %r. Fix: use 'mutations' or "
                           "'mutations_and_views'" % (remove,))
    return func


def make_functional(model, disable_autograd_tracking=False):
    """:func:`functorch.make_functional` (deprecated for torch.func.functional_call)."""
    _warn("make_functional", "torch.func.functional_call")
    return _nn_impl.make_functional(model, disable_autograd_tracking)


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """:func:`functorch.make_functional_with_buffers` (deprecated for
    torch.func.functional_call)."""
    _warn("make_functional_with_buffers", "torch.func.functional_call")
    return _nn_impl.make_functional_with_buffers(model, disable_autograd_tracking)


def combine_state_for_ensemble(models):
    """:func:`functorch.combine_state_for_ensemble` (deprecated for
    torch.func.stack_module_state)."""
    _warn("combine_state_for_ensemble", "torch.func.stack_module_state")
    return _nn_impl.combine_state_for_ensemble(models)
