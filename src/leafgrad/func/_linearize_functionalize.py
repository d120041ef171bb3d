"""``torch.func.functionalize`` and ``debug_unwrap``, and the tangent check of ``linearize``
(which lives in ``func/__init__.py`` beside ``jvp``) (after
torch/_functorch/eager_transforms.py, PyTorch 2.13), in eager leafgrad.

* ``linearize(func, *primals)`` -> ``(func(*primals), jvp_fn)``: the output detached, and
  ``jvp_fn(*tangents)`` the Jacobian-vector product at ``primals`` (``jvp`` each call:
  PyTorch traces it once; the values are the same).
* ``functionalize(func)``: leafgrad has no functionalization pass; in eager PyTorch a
  functionalized function returns the same values and still applies mutations to its inputs,
  which is what calling ``func`` does, so the wrapper calls it.
* ``debug_unwrap(tensor)``: leafgrad's transforms hold no wrapper tensors: the tensor itself.
"""
import functools

from . import _pytree

__all__ = ["functionalize", "debug_unwrap", "check_tangents"]

_REMOVE = ("functionalize(f, remove='mutations'): received invalid argument for remove={}. "
           "Valid options are:\n     remove='mutations': all inplace and out= operators will be "
           "removed from the program, and replaced with their out-of-place equivalents.\n     "
           "remove='mutations_and_views': In addition to the above, all aliasing operators "
           "{{view}} will be replaced with their non-aliasing counterparts, {{view}}_copy.\n")


def check_tangents(primals, tangents):
    p_leaves, p_spec = _pytree.flatten(primals)
    t_leaves, t_spec = _pytree.flatten(tangents)
    if len(p_leaves) != len(t_leaves) or repr(p_spec) != repr(t_spec):
        raise RuntimeError("Expected the tangents to have the same argspec as the primals "
                           f"({len(p_leaves)} tensors). Fix: pass one tangent per primal.")
    for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"tangent:{i} with shape {t.shape} in flattened pytree doesn't "
                               f"match the shape {p.shape} of the corresponding primal.")


def functionalize(func, *, remove="mutations"):
    """``func`` itself in eager mode (same values, input mutations applied, as PyTorch).

    Raises:
        RuntimeError: ``remove`` not 'mutations' or 'mutations_and_views'.
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(_REMOVE.format(remove))

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapped


def debug_unwrap(tensor, *, recurse=True):
    """The tensor itself (leafgrad's transforms make no wrapper tensors)."""
    return tensor
