"""``torch.func``: function transforms (``grad``, ``vjp``, ``jvp``, ``jacrev``,
``jacfwd``, ``hessian``, ``vmap``, ``functional_call``, ``stack_module_state``, ``linearize``,
``functionalize``, ``debug_unwrap``, ``replace_all_batch_norm_modules_``).

Built on leafgrad's reverse-mode engine (``autograd.grad``), with torch.func's
signatures, return structures (pytrees of tuples, lists and dicts) and errors:

* ``grad``/``vjp`` differentiate fresh copies of the inputs, so results carry no graph
  unless an input already requires grad (then the result is differentiable again:
  ``grad(grad(f))`` and ``jacrev(jacrev(f))`` nest);
* ``jvp`` and ``jacfwd`` are computed in reverse mode (``jvp`` by the double-vjp
  trick), so they give the values forward mode gives, to rounding;
* ``vmap`` runs the function once on the whole batch where the ops it calls have a
  batching rule (``_batched.py``; ``grad``, ``vjp`` and ``jacrev`` inside are then
  batched too), else once per batch element, stacking the results (correct for any
  function). Random operations inside follow ``randomness`` as PyTorch (refused by
  default).

Source: torch/_functorch/eager_transforms.py, apis.py, vmap.py, functional_call.py.
"""
from .. import autograd as _autograd
from .._tensor.tensor import Tensor
from ..autograd.grad_mode import enable_grad
from . import _batched, _pytree

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "linearize", "functionalize", "debug_unwrap",
           "replace_all_batch_norm_modules_"]


def _check_leaf(x):
    if not isinstance(x, Tensor):
        raise ValueError("Thing passed to transform API must be Tensor, got %s" % type(x))
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError("only Tensors of floating point dtype can require gradients. Fix: "
                           "convert the input first, e.g. x.float()")


def _inner(x):
    """A differentiable stand-in for ``x``: connected to ``x``'s graph when it has one."""
    _check_leaf(x)
    if _batched.active():           # inside a batched vmap: batched, per-sample gradients
        return _batched.inner(x, x.requires_grad)
    if x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_(True)


def _grad(*args, **kwargs):
    """``autograd.grad``, on the physical tensors inside a batched vmap."""
    if _batched.active():
        return _batched.grad(*args, **kwargs)
    return _autograd.grad(*args, **kwargs)


def _zeros_for_none(grads, like):
    from .._tensor import creation as _creation
    return [(_creation.zeros_like(x) if g is None else g) for g, x in zip(grads, like)]


def _argnums_tuple(argnums, nargs, name):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not nums:
        raise RuntimeError("%s: argnums must be non-empty" % name)
    out = []
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError("%s: argnums must be int or Tuple[int, ...], got: %r"
                               % (name, type(a)))
        if not -nargs <= a < nargs:
            raise RuntimeError("Got argnums=%d, but only %d positional inputs. Fix: argnums "
                               "counts the function's positional arguments from 0" % (a, nargs))
        out.append(a % nargs)
    return tuple(out)


def _prepare(args, argnums, name):
    """Swap ``args[argnums]`` for differentiable stand-ins; returns (args, flat inner
    leaves, the chosen arguments' (spec, count) list, whether an outer graph exists)."""
    args = list(args)
    nums = _argnums_tuple(argnums, len(args), name)
    inners, specs, outer = [], [], False
    for a in nums:
        leaves, spec = _pytree.flatten(args[a])
        for x in leaves:
            _check_leaf(x)
        outer = outer or any(x.requires_grad for x in leaves)
        new = [_inner(x) for x in leaves]
        args[a] = _pytree.unflatten(new, spec)
        inners.extend(new)
        specs.append((spec, len(new)))
    return args, inners, specs, outer


def _regroup(flat, specs, argnums):
    out, i = [], 0
    for spec, n in specs:
        out.append(_pytree.unflatten(flat[i:i + n], spec))
        i += n
    return tuple(out) if isinstance(argnums, tuple) else out[0]


def _detach_tree(tree, keep):
    if keep:
        return tree
    leaves, spec = _pytree.flatten(tree)
    return _pytree.unflatten([x.detach() if isinstance(x, Tensor) else x for x in leaves], spec)


def grad_and_value(func, argnums=0, has_aux=False):
    """``grad_and_value(f)(*args)`` -> ``(gradient, f(*args))`` (``((gradient, (f, aux)))``
    with ``has_aux``). ``f`` must return a 0-d tensor.

    Raises:
        RuntimeError: ``f`` returns a non-tensor or a tensor with dims; ``has_aux`` without
            an (output, aux) pair; integer inputs. ValueError: a non-tensor input.
    """
    def wrapper(*args, **kwargs):
        with enable_grad():
            args, inners, specs, outer = _prepare(args, argnums, "grad_and_value(f)(*args)")
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be "
                                       "a tuple: (output, aux) if has_aux is True")
                out, aux = out
            if not isinstance(out, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   "Tensor, got %s" % type(out))
            if out.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   "scalar Tensor, got tensor with %d dims. Maybe you wanted to "
                                   "use the vjp or jacrev APIs instead?" % out.dim())
            if out.requires_grad:
                grads = _grad(out, inners, create_graph=outer, allow_unused=True)
            else:
                grads = [None] * len(inners)
            grads = _zeros_for_none(grads, inners)
            g = _regroup(grads, specs, argnums)
            value = out if outer else out.detach()
            if has_aux:
                return g, (value, _detach_tree(aux, outer))
            return g, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """``grad(f)(*args)``: the gradient of the 0-d ``f(*args)`` with respect to
    ``args[argnums]`` (a pytree of tensors shaped as the argument; a tuple for a tuple of
    argnums; ``(gradient, aux)`` with ``has_aux``). Errors as :func:`grad_and_value`."""
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g
    return wrapper


def _check_out_tensors(out, name):
    leaves, spec = _pytree.flatten(out)
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError("%s: Expected f to be a function that has non-empty output "
                               "(got output = %r) and all outputs are Tensors" % (name, out))
    return leaves, spec


def vjp(func, *primals, has_aux=False):
    """``vjp(f, *primals)`` -> ``(f(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` returns
    one gradient per primal (a tuple), cotangents shaped as the output.

    Raises:
        RuntimeError: a cotangent whose shape differs from its output's.
    """
    with enable_grad():
        args, inners, specs, outer = _prepare(primals, tuple(range(len(primals))),
                                              "vjp(f, *primals)")
        out = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            out, aux = out
        outs, out_spec = _check_out_tensors(out, "vjp(f, *primals)")

    def vjp_fn(cotangents):
        cts, _ = _pytree.flatten(cotangents)
        if len(cts) != len(outs):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function. Fix: give one "
                               "cotangent per output, shaped like it")
        for i, (c, o) in enumerate(zip(cts, outs)):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError("Mismatch in shape: grad_output[%d] has a shape of %s and "
                                   "output[%d] has a shape of %s." % (i, c.shape, i, o.shape))
        pairs = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
        with enable_grad():
            if pairs:
                create = outer or any(c.requires_grad for _, c in pairs)
                grads = _grad([o for o, _ in pairs], inners, [c for _, c in pairs],
                                       retain_graph=True, create_graph=create,
                                       allow_unused=True)
            else:
                grads = [None] * len(inners)
        grads = _zeros_for_none(grads, inners)
        res = _regroup(grads, specs, tuple(range(len(primals))))
        return res

    shown = out if outer else _detach_tree(out, False)
    if has_aux:
        return shown, vjp_fn, _detach_tree(aux, outer)
    return shown, vjp_fn


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``jvp(f, primals, tangents)`` -> ``(f(*primals), J @ tangents)`` (the forward-mode
    product, computed here as the gradient of a vector-Jacobian product with respect to
    its vector: exact, to rounding).

    Raises:
        RuntimeError: ``primals``/``tangents`` not tuples, or of different structure/shapes.
    """
    name = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError("%s: Expected primals to be a tuple. E.g. it should be valid to call "
                           "f(*primals)." % name)
    if not isinstance(tangents, tuple):
        raise RuntimeError("%s: Expected tangents to be a tuple. Fix: pass (tangent,) for one "
                           "primal" % name)
    p_leaves, _ = _pytree.flatten(primals)
    t_leaves, _ = _pytree.flatten(tangents)
    if len(p_leaves) != len(t_leaves):
        raise RuntimeError("%s: Expected primals and tangents to have the same python structure."
                           % name)
    for p, t in zip(p_leaves, t_leaves):
        if not isinstance(t, Tensor) or tuple(t.shape) != tuple(p.shape):
            raise RuntimeError("%s: Expected primals and tangents to have the same shape (got "
                               "%s and %s)" % (name, getattr(p, "shape", p), getattr(t, "shape", t)))
    from .._tensor import creation as _creation
    if _batched.active():
        raise _batched.Unbatchable()    # its dummy cotangents would be shared by the samples
    with enable_grad():
        args, inners, specs, outer = _prepare(primals, tuple(range(len(primals))), name)
        out = func(*args)
        aux = None
        if has_aux:
            out, aux = out
        outs, out_spec = _check_out_tensors(out, name)
        dummies = [_creation.zeros_like(o).requires_grad_(True) for o in outs]
        live = [(o, u) for o, u in zip(outs, dummies) if o.requires_grad]
        tangent_out = [None] * len(outs)
        if live:
            gs = _grad([o for o, _ in live], inners, [u for _, u in live],
                                create_graph=True, allow_unused=True)
            pairs = [(g, t) for g, t in zip(gs, t_leaves) if g is not None and g.requires_grad]
            if pairs:
                res = _grad([g for g, _ in pairs], dummies, [t for _, t in pairs],
                                     create_graph=outer, allow_unused=True)
                tangent_out = list(res)
    tangent_out = _zeros_for_none(tangent_out, outs)
    if not outer:
        outs = [o.detach() for o in outs]
        tangent_out = [t.detach() for t in tangent_out]
    result = (_pytree.unflatten(outs, out_spec), _pytree.unflatten(tangent_out, out_spec))
    if has_aux:
        return result + (_detach_tree(aux, outer),)
    return result


def _jacobian_by_rows(o, inners, outer):
    """One vector-Jacobian product per element of ``o``: blocks o.shape + x.shape."""
    from .._tensor import creation as _creation
    from .._api import functions as _functions
    n = o.numel()
    eye = _creation.eye(n, dtype=o.dtype) if o.requires_grad else None
    rows = [[] for _ in inners]
    for k in range(n):
        if o.requires_grad:
            basis = eye[k]
            gs = _grad(o, inners, basis.reshape(o.shape), retain_graph=True,
                                create_graph=outer, allow_unused=True)
        else:
            gs = [None] * len(inners)
        for r, g, x in zip(rows, gs, inners):
            r.append(_creation.zeros_like(x) if g is None else g)
    return [_functions.stack(r).reshape(tuple(o.shape) + tuple(x.shape)) if r
            else _creation.zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype)
            for r, x in zip(rows, inners)]


def _jacobian_by_columns(o, inners, outer):
    """One Jacobian-vector product per input element (when the inputs are smaller than the
    output): the gradient of the vector-Jacobian product u -> Jᵀu with respect to u, its
    graph built once. None when an op on the way has no second derivative here."""
    from .._tensor import creation as _creation
    from .._api import functions as _functions
    u = _creation.zeros_like(o).requires_grad_(True)
    try:
        gs = _grad(o, inners, u, create_graph=True, allow_unused=True)
    except NotImplementedError:
        return None
    blocks = []
    for g, x in zip(gs, inners):
        m = x.numel()
        shape = tuple(o.shape) + tuple(x.shape)
        if g is None or not g.requires_grad:
            blocks.append(_creation.zeros(shape, dtype=x.dtype))
            continue
        cols = []
        flat = g.reshape(-1)
        for k in range(m):
            try:
                (c,) = _grad(flat[k], u, retain_graph=True, create_graph=outer,
                                      allow_unused=True)
            except NotImplementedError:
                return None
            cols.append(_creation.zeros_like(o) if c is None else c)
        blocks.append(_functions.stack(cols, -1).reshape(shape))
    return blocks


def _jacobian(func, argnums, has_aux, name):
    from .._tensor import creation as _creation

    def wrapper(*args, **kwargs):
        with enable_grad():
            args, inners, specs, outer = _prepare(args, argnums, name)
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError("%s: output of function f should be a tuple: (output, "
                                       "aux) if has_aux is True" % name)
                out, aux = out
            outs, out_spec = _check_out_tensors(out, name)
            per_out = []
            for o in outs:
                blocks = None
                # columns only when clearly fewer (their double-backward rounding differs
                # from the rows' in the last float32 bits)
                if 0 < 4 * sum(x.numel() for x in inners) <= o.numel() and o.requires_grad \
                        and not _batched.active():
                    blocks = _jacobian_by_columns(o, inners, outer)
                if blocks is None:
                    blocks = _jacobian_by_rows(o, inners, outer)
                if not outer:
                    blocks = [b.detach() for b in blocks]
                per_out.append(_regroup(blocks, specs, argnums))
            jac = _pytree.unflatten(per_out, out_spec)
        if has_aux:
            return jac, _detach_tree(aux, outer)
        return jac
    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """``jacrev(f)(*args)``: the Jacobian of ``f`` with respect to ``args[argnums]``, shape
    ``output.shape + input.shape`` (pytrees: outputs outside, inputs inside), one
    vector-Jacobian product per output element."""
    return _jacobian(func, argnums, has_aux, "jacrev(f, argnums=%r)" % (argnums,))


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """``jacfwd(f)(*args)``: the same Jacobian as :func:`jacrev` (PyTorch computes it in
    forward mode; the values agree to rounding)."""
    return _jacobian(func, argnums, has_aux, "jacfwd(f, argnums=%r)" % (argnums,))


def hessian(func, argnums=0):
    """``hessian(f)(*args)``: ``jacfwd(jacrev(f, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)


from ._vmap import vmap  # noqa: E402
from ._module import functional_call, stack_module_state  # noqa: E402
from ._linearize_functionalize import debug_unwrap, functionalize  # noqa: E402
from ._linearize_functionalize import check_tangents as _check_tangents_linearize  # noqa: E402
from ._batch_norm_replacement import replace_all_batch_norm_modules_  # noqa: E402


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)`` with ``jvp_fn(*tangents)`` = J(primals) @ tangents, the
    tangents structured and shaped as the primals.

    Raises:
        RuntimeError (from jvp_fn): tangents of another structure or shape.
    """
    out = func(*primals)
    leaves, spec = _pytree.flatten(out)
    output = _pytree.unflatten([x.detach() for x in leaves], spec)

    def jvp_fn(*tangents):
        _check_tangents_linearize(primals, tangents)
        return jvp(func, primals, tangents)[1]
    return output, jvp_fn
