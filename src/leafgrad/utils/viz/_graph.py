"""What the pictures and printouts share: the walk over ``next_functions``,
leaf names, the text of a value, and a node's saved tensors and constants
under PyTorch's names (``grad_fn._saved_self``, ``_saved_exponent``, ...).

Everything reads only what PyTorch exposes too (``grad_fn``,
``next_functions``, ``variable``), so real ``torch`` tensors work as well.
"""
import numpy as np

from ...autograd._saved_names import REDUCTION_CODES, TORCH_NAMES as _TORCH_NAMES
from ._record import to_numpy

_SAVED_PREFIX = "_saved_"

# leafgrad node -> PyTorch's names for what it keeps (autograd/_saved_names.py, which the
# nodes' own ``_saved_*`` attributes come from too)
_REDUCTIONS = {code: name for name, code in REDUCTION_CODES.items()}


def is_tensor(v):
    return hasattr(v, "grad_fn") and hasattr(v, "shape")


def outputs_of(var, caller):
    outs = list(var) if isinstance(var, (tuple, list)) else [var]
    for v in outs:
        if not is_tensor(v):
            raise TypeError("%s() expects a tensor or a tuple of tensors, got %s"
                            % (caller, type(v).__name__))
    return outs


def named_params(params):
    """``{name: tensor}`` from a dict, pairs, or an ``nn.Module`` (its ``named_parameters()``)."""
    if params is None:
        return {}
    if hasattr(params, "named_parameters") and callable(params.named_parameters):
        params = params.named_parameters()
    params = dict(params.items() if hasattr(params, "items") else params)
    for name, p in params.items():
        if not is_tensor(p):
            raise TypeError("params[%r] is a %s, not a tensor" % (name, type(p).__name__))
    return params


def param_names(params):
    """``{id(tensor): name}`` (see ``named_params``)."""
    return {id(p): name for name, p in named_params(params).items()}


def walk(roots):
    """Every node reachable from ``roots`` through ``next_functions``, each once,
    in depth-first preorder (an explicit stack: no recursion)."""
    seen = set()
    order = []
    stack = [r for r in reversed(roots) if r is not None]
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        order.append(fn)
        for child, _ in reversed(fn.next_functions):
            if child is not None and child not in seen:
                stack.append(child)
    return order


def shape_text(t):
    """torchviz's shape text: ``(3, 4)``, ``(3)``, ``()``."""
    return "(" + ", ".join("%d" % n for n in t.shape) + ")"


def dtype_text(a):
    return np.dtype(a.dtype).name if isinstance(a, np.ndarray) else str(a.dtype).split(".")[-1]


# ------------------------------------------------------------ value text
def _num(x, full):
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if full:
        return str(x)                 # NumPy scalars: shortest text that round-trips
    return "%.4g" % x


def value_text(a, small=8):
    """A value in a few characters: 0-d and one-element tensors in full
    (``16.0``, ``[0.7426905]``), up to ``small`` elements abbreviated to 4
    significant digits (``[0.5, -0.3, 0.8]``), larger ones by their
    statistics (``mean 0.01 std 0.98 min -2.1 max 2.3``, plus NaN/inf counts)."""
    a = np.asarray(a)
    if a.size == 1:
        s = _num(a.reshape(())[()], True)
        return s if a.ndim == 0 else "[" * a.ndim + s + "]" * a.ndim
    if a.size == 0:
        return "[]"
    if a.size <= small:
        def rows(x):
            if x.ndim == 1:
                return "[" + ", ".join(_num(v, False) for v in x) + "]"
            return "[" + ", ".join(rows(r) for r in x) + "]"
        return rows(a)
    if a.dtype.kind == "b":
        return "%d of %d True" % (int(a.sum()), a.size)
    f = a.astype(np.float64)
    finite = np.isfinite(f)
    extra = ""
    if not finite.all():
        n_nan = int(np.isnan(f).sum())
        n_inf = int((~finite).sum()) - n_nan
        extra = "".join([" %d nan" % n_nan if n_nan else "", " %d inf" % n_inf if n_inf else ""])
        f = f[finite]
    if f.size == 0:
        return extra.strip()
    return "mean %.4g std %.4g min %.4g max %.4g%s" % (f.mean(), f.std(), f.min(), f.max(), extra)


def meta_text(a):
    """``(3, 4) float32``, ``(1,) float32``, ``() int64`` for an array or tensor."""
    return "%s %s" % (tuple(int(n) for n in a.shape), dtype_text(a))


# ---------------------------------------------------- saved tensors, constants
def freed_note(fn):
    """'saved tensors freed by backward() at x.py:12' when a backward pass freed
    what ``fn`` saved, else None."""
    by = getattr(fn, "_released", None)
    if by is not None:              # a leafgrad node
        if not by or not getattr(fn, "saves", False):
            return None
        if isinstance(by, str):     # "the backward() call at x.py:12"
            call, _, where = by.partition(" call at ")
            if where:
                return "saved tensors freed by %s at %s" % (call.replace("the ", "", 1), where)
            return "saved tensors freed by " + by
        return "saved tensors freed by an earlier backward()"
    for attr in dir(fn):            # a torch node: reading a freed _saved_* raises
        if attr.startswith(_SAVED_PREFIX) or attr == "saved_tensors":
            try:
                getattr(fn, attr)
            except RuntimeError:
                return "saved tensors freed by backward()"
    return None


def _named(names, values):
    out = []
    for k, v in zip(names, values):
        if k is not None and v is not None:
            out.append((k, _REDUCTIONS.get(v, v) if k == "reduction" and isinstance(v, int) else v))
    return out


def attributes(fn):
    """``(name, value)`` pairs of what ``fn`` keeps for its backward, under
    PyTorch's names where known (``self``, ``other``, ``exponent``, ``result``,
    ``dim``, ``reduction``, ...); custom Functions: ``saved_tensors[i]``;
    other leafgrad nodes: positional names. Nothing once backward freed it
    (see ``freed_note``)."""
    from ...autograd.graph import Node
    items = []
    if not isinstance(fn, Node):        # a PyTorch node: its _saved_* attributes
        for attr in dir(fn):
            if attr.startswith(_SAVED_PREFIX):
                try:
                    items.append((attr[len(_SAVED_PREFIX):], getattr(fn, attr)))
                except RuntimeError:
                    pass
        if not items:
            try:
                saved = getattr(fn, "saved_tensors", ())
            except RuntimeError:
                saved = ()
            items = [("saved_tensors[%d]" % i, v) for i, v in enumerate(saved or ())]
        return items
    if getattr(fn, "_released", False):
        return items
    name = type(fn).__name__
    table = _TORCH_NAMES.get(name)
    try:
        saved = fn._checked_saved
    except RuntimeError:                # modified in place
        saved = ()
    saved = tuple(saved or ())
    args = getattr(fn, "args", None)
    custom = hasattr(fn, "_to_save") or hasattr(fn, "_fn_out_metas")
    if custom:
        items += [("saved_tensors[%d]" % i, v) for i, v in enumerate(saved)]
    elif table is not None and len(table[0]) >= len(saved):
        items += _named(table[0], saved)
    else:
        inputs = [c for c, _ in fn.next_functions]
        for i, v in enumerate(saved):
            items.append((_input_name(fn, v, inputs, i), v))
    if getattr(fn, "_out", None) is not None:
        try:
            items.append(("result", fn.result))
        except RuntimeError:
            pass
    if args is not None and not custom:
        spec = table[1] if table is not None else None
        if isinstance(spec, str):          # one constant (which may be a tuple)
            items.append((spec, args))
        elif isinstance(spec, tuple) and isinstance(args, tuple) and len(spec) == len(args):
            items += _named(spec, args)
        else:
            items.append(("args", args))
    return items


def _input_name(fn, v, inputs, i):
    """``self``/``other`` for a saved tensor that is the op's first/second input."""
    if is_tensor(v):
        node = v.grad_fn
        if node is None:
            acc = getattr(v, "_acc", None)
            node = acc() if callable(acc) else acc
        for j, c in enumerate(inputs):
            if c is not None and c is node:
                return ("self", "other")[j] if j < 2 else "input%d" % j
    return "saved[%d]" % i
