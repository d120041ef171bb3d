"""``explain(loss, w)``: the chain rule from ``loss`` back to ``w``, spelled out.

Every path through the graph from ``loss`` to ``w`` is one product of local
derivatives; ``d loss / d w`` is the sum of those products over all paths
(the multivariate chain rule). For the tutorial's linear model
(``y_hat = w * x + b``, ``loss = (y_hat - y) ** 2`` at w=1, b=0, x=2, y=6)::

    d loss / d w: 1 path
    path 1: PowBackward0 -> SubBackward0 -> AddBackward0 -> MulBackward0 -> w
      PowBackward0  d out / d self = exponent·self^(exponent-1) = 2·(-4.0)^1 = -8.0
      SubBackward0  d out / d self = 1 = 1.0
      AddBackward0  d out / d self = 1 = 1.0
      MulBackward0  d out / d self = other = 2.0
      product: -8.0 × 1.0 × 1.0 × 2.0 = -16.0
    sum over 1 path: -16.0  (autograd.grad: -16.0)

Each path's contribution is computed exactly as backward() computes it (each
node's own backward rule, applied along that path only), so their sum equals
``autograd.grad(loss, w)``. For tensors a local derivative is a Jacobian:
then each step shows the gradient carried along the path after it, and each
path its contribution (elementwise for up to ``small`` elements, else its norm).
"""
import sys

import numpy as np

from . import _graph as G
from ._record import sum_to, to_numpy

__all__ = ["explain", "Explanation"]

_NO_REQUIRES_GRAD = (
    "%s does not require grad: autograd did not track it, so no path leads from the loss to it "
    "and its .grad stays None after backward(). Fix: create it with requires_grad=True "
    "(torch.tensor(0.8, requires_grad=True)) or call %s.requires_grad_() before computing the "
    "loss (for a module's weight: nn.Parameter does this).")
_NOT_USED = (
    "the loss does not depend on %s: no path in its graph leads to %s (it is unused in the loss, "
    "or the loss was computed from a detached copy of it), so its gradient is None "
    "(autograd.grad raises, backward() leaves .grad None). Fix: compute the loss from %s itself, "
    "without .detach() or .data in between.")
_FREED = (
    "explain() runs each node's backward rule, but this graph's saved tensors were freed by an "
    "earlier backward(). Fix: call explain(loss, w) before loss.backward(), or pass "
    "retain_graph=True to that backward().")

# the local derivative d out / d input[i] of common nodes, in words (PyTorch's
# derivatives.yaml formulas, written with its saved names)
_FORMULAS = {
    ("MulBackward0", 0): "other", ("MulBackward0", 1): "self",
    ("AddBackward0", 0): "1", ("AddBackward0", 1): "1",
    ("SubBackward0", 0): "1", ("SubBackward0", 1): "-1",
    ("DivBackward0", 0): "1 / other", ("DivBackward0", 1): "-self / other²",
    ("PowBackward0", 0): "exponent·self^(exponent-1)",
    ("NegBackward0", 0): "-1",
    ("ExpBackward0", 0): "result",
    ("LogBackward0", 0): "1 / self",
    ("SigmoidBackward0", 0): "result·(1 - result)",
    ("TanhBackward0", 0): "1 - result²",
    ("ReluBackward0", 0): "1 where result > 0, else 0",
    ("SqrtBackward0", 0): "1 / (2·result)",
    ("SumBackward0", 0): "1", ("MeanBackward0", 0): "1 / numel",
    ("MseLossBackward0", 0): "2·(self - target) (/ numel for reduction='mean')",
    ("BinaryCrossEntropyBackward0", 0):
        "(self - target) / (self·(1 - self)) (/ numel for reduction='mean')",
}


class Step:
    """One edge of a path: ``node``'s input ``index``; ``local`` the local
    derivative (0-d/one-element graphs) or None; ``carried`` the gradient
    carried along the path after this step (an ndarray)."""

    __slots__ = ("node", "index", "local", "carried", "formula")

    def __init__(self, node, index, local, carried, formula):
        self.node, self.index, self.local, self.carried, self.formula = (
            node, index, local, carried, formula)


class Explanation:
    """What ``explain`` found: ``paths`` (lists of ``Step``), ``contributions``
    (one ndarray per path, shaped like ``w``), ``total`` (their sum, or None),
    ``autograd`` (``autograd.grad(loss, w)`` as an ndarray, or None), ``problem``
    (why there is no gradient, with the fix, or None) and ``n_paths`` (the
    number of paths, also when more than ``max_paths`` exist)."""

    def __init__(self, loss_name, w_name):
        self.loss_name, self.w_name = loss_name, w_name
        self.paths, self.contributions = [], []
        self.total = self.autograd = self.problem = None
        self.inexact = False    # the paths could not be spelled exactly: autograd's value only
        self.n_paths = 0
        self.small = 8
        self.w_grad = None

    def __repr__(self):
        if self.problem:
            return "<Explanation: no gradient for %s>" % self.w_name
        return "<Explanation: %d path%s, d %s / d %s = %s>" % (
            self.n_paths, "" if self.n_paths == 1 else "s", self.loss_name, self.w_name,
            G.value_text(self.autograd, self.small))

    def __str__(self):
        return "\n".join(self.lines())

    def lines(self):
        head = "d %s / d %s" % (self.loss_name, self.w_name)
        if self.problem:
            return ["%s: no gradient. %s" % (head, self.problem)]
        out = ["%s: %d path%s" % (head, self.n_paths, "" if self.n_paths == 1 else "s")]
        if self.inexact:
            return out + ["explain() cannot spell these paths exactly (a node's backward rule "
                          "does not split by path here), so it shows no path numbers; the "
                          "gradient, autograd.grad: %s" % G.value_text(self.autograd, self.small)]
        vt = lambda a: G.value_text(a, self.small)
        for k, (steps, contrib) in enumerate(zip(self.paths, self.contributions)):
            out.append("path %d: %s -> %s" % (k + 1, " -> ".join(
                type(s.node).__name__ for s in steps if not hasattr(s.node, "variable")),
                self.w_name))
            shown = [s for s in steps if not hasattr(s.node, "variable")]
            width = max(len(type(s.node).__name__) for s in shown) if shown else 0
            scalar = all(s.local is not None for s in shown)
            for s in shown:
                what = "d out / d %s" % _input_name(s.node, s.index)
                if scalar:
                    f = s.formula or ""
                    if not f.endswith(" = " + vt(s.local)):     # formula with the number in
                        f = (f + " = " if f else "") + vt(s.local)
                    out.append("  %-*s  %s = %s" % (width, type(s.node).__name__, what, f))
                else:
                    out.append("  %-*s  %s%s; gradient carried: %s" % (
                        width, type(s.node).__name__, what,
                        " = %s" % s.formula if s.formula else "", vt(s.carried)))
            if scalar and shown:
                out.append("  product: %s = %s" % (" × ".join(vt(s.local) for s in shown),
                                                    vt(contrib)))
            elif np.size(contrib) <= self.small:
                out.append("  contribution: %s" % vt(contrib))
            else:
                out.append("  contribution: norm %.4g (%s)" % (np.linalg.norm(contrib),
                                                              vt(contrib)))
        if self.n_paths > len(self.paths):
            out.append("(%d more paths not listed: max_paths=%d)"
                       % (self.n_paths - len(self.paths), len(self.paths)))
        tail = "autograd.grad: %s" % vt(self.autograd)
        if self.w_grad is not None:
            tail += ", %s.grad: %s" % (self.w_name, vt(self.w_grad))
        if self.total is not None:
            out.append("sum over %d path%s: %s  (%s)" % (
                self.n_paths, "" if self.n_paths == 1 else "s", vt(self.total), tail))
        else:
            out.append(tail)
        return out


def _input_name(fn, i):
    names = G._TORCH_NAMES.get(type(fn).__name__, (("self", "other"), ()))[0]
    if len(fn.next_functions) == 1:
        return "self"
    return names[i] if i < len(names) else "input %d" % i


def _formula(fn, i, attrs):
    f = _FORMULAS.get((type(fn).__name__, i))
    if f is None:
        return None
    if f in ("other", "self") and f in attrs and np.size(to_numpy(attrs[f])) == 1:
        return "%s = %s" % (f, G.value_text(to_numpy(attrs[f])))
    if type(fn).__name__ == "PowBackward0" and "exponent" in attrs and "self" in attrs:
        e, s = attrs["exponent"], to_numpy(attrs["self"])
        if np.size(s) == 1:
            return "%s = %s·(%s)^%s" % (f, e, G.value_text(s.reshape(())), e - 1)
    return f


def _target(w, nodes):
    if w.grad_fn is not None:
        return w.grad_fn, getattr(w, "output_nr", 0)
    for fn in nodes:
        if getattr(fn, "variable", None) is w:
            return fn, 0
    return None, 0


def _reaching(nodes, target):
    """Nodes from which ``target`` can be reached (target included)."""
    parents = {}
    for fn in nodes:
        for c, _ in fn.next_functions:
            if c is not None:
                parents.setdefault(c, []).append(fn)
    reach, stack = {target}, [target]
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in reach:
                reach.add(p)
                stack.append(p)
    return reach


def _count_paths(root, target, reach):
    """Number of paths root -> target (dynamic programming, no recursion)."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        fn, done = stack.pop()
        if done:
            order.append(fn)
            continue
        if fn in seen:
            continue
        seen.add(fn)
        stack.append((fn, True))
        stack.extend((c, False) for c, _ in fn.next_functions if c in reach and c not in seen)
    count = {}
    for fn in order:        # children before parents
        count[fn] = 1 if fn is target else sum(count.get(c, 0) for c, _ in fn.next_functions
                                               if c in reach)
    return count.get(root, 0)


def _vjp(fn, nr, g, i):
    """``fn``'s backward rule applied to ``g`` (its output ``nr``), for input ``i`` only."""
    import leafgrad as lg
    n_out = getattr(fn, "n_outputs", 1)
    grads = [None] * n_out
    grads[nr] = g
    if n_out > 1:
        metas = getattr(fn, "out_metas", None) or getattr(fn, "_fn_out_metas", None)
        for k in range(n_out):
            if grads[k] is None and metas is not None:
                shape, npdt = metas[k][:2]
                grads[k] = lg.Tensor._make_plain(np.zeros(shape, npdt))
    with lg.no_grad():
        try:
            res = fn.backward(*grads)
        except RuntimeError as exc:
            if "freed" in str(exc) or "second time" in str(exc):
                raise RuntimeError(_FREED) from exc
            raise
    if not isinstance(res, tuple):
        res = (res,)
    r = res[i]
    if r is None:
        return None
    a = np.asarray(to_numpy(r) if G.is_tensor(r) else r)
    metas = getattr(fn, "_metas", None)
    meta = metas[i] if metas is not None and i < len(metas) else None
    if meta is not None:        # fitted as the engine fits it (engine._fit_arrays)
        shape = meta[0]
        a = sum_to(np.broadcast_to(a, np.broadcast_shapes(a.shape, shape)) if a.shape != shape
                   and a.size == 1 else a, shape).astype(meta[1], copy=False)
    elif a.ndim == 0:           # meta None: the rule's result fits as it is (a 0-d
        a = np.broadcast_to(a, np.shape(to_numpy(g)))   # number: the output's shape)
    return lg.Tensor._make_plain(np.array(a))


def explain(loss, w, params=None, max_paths=50, small=8, file=None, quiet=False):
    """Print every path from ``loss`` back to ``w`` with each step's local
    derivative, their product and the sum over paths; return an ``Explanation``.

    Args:
        loss: a tensor with one element (the gradient starts at 1).
        w: the tensor to differentiate with respect to (a leaf such as a
            parameter, or an intermediate result).
        params: names for the printout (``{name: tensor}``, pairs, or an
            ``nn.Module``); ``w`` is found there, else called ``w``.
        max_paths: list at most this many paths (all are counted and summed
            by autograd.grad).
        small: tensors up to this many elements are printed elementwise.
        file: where to print (default ``sys.stdout``); ``quiet=True`` prints nothing.

    Returns:
        Explanation: ``paths``, ``contributions`` (ndarrays shaped like ``w``),
        ``total`` (their sum, when all paths are listed), ``autograd``
        (``autograd.grad(loss, w, retain_graph=True)``) and ``problem`` (the
        reason and the fix when there is no gradient: ``w`` without
        ``requires_grad``, or not used in the loss).

    Raises:
        TypeError: ``loss`` or ``w`` is not a tensor.
        RuntimeError: ``loss`` has more than one element, or its graph was
            freed by an earlier ``backward()`` (call ``explain`` before it).

    The local derivatives are each node's own backward rule (PyTorch's
    derivatives.yaml formulas, quoted for common ops); the sum over paths is the
    multivariate chain rule. Runs on leafgrad graphs (it calls the nodes' rules),
    under ``no_grad``; nothing in the graph or in ``.grad`` changes.
    """
    import leafgrad as lg
    if not (G.is_tensor(loss) and G.is_tensor(w)):
        raise TypeError("explain(loss, w) expects two tensors, got %s and %s"
                        % (type(loss).__name__, type(w).__name__))
    names = G.param_names(params)
    caller = _caller_names(sys._getframe(1))
    ex = Explanation(names.get(id(loss)) or caller.get(id(loss), "loss"),
                     names.get(id(w)) or caller.get(id(w), "w"))
    ex.small = small
    file = sys.stdout if file is None else file
    if loss.numel() != 1:
        raise RuntimeError("explain(): the loss has %d elements; the chain rule is spelled out "
                           "from one number. Fix: reduce it first, e.g. explain(loss.sum(), w)"
                           % loss.numel())
    if not w.requires_grad:
        ex.problem = _NO_REQUIRES_GRAD % (ex.w_name, ex.w_name)
    elif loss.grad_fn is None:
        ex.problem = _NOT_USED % ((ex.w_name,) * 3)
    else:
        nodes = G.walk([loss.grad_fn])
        target, target_nr = _target(w, nodes)
        if target is None or target not in nodes:
            ex.problem = _NOT_USED % ((ex.w_name,) * 3)
        else:
            try:
                _paths(ex, loss, target, target_nr, nodes, max_paths)
            except RuntimeError as exc:
                if str(exc) == _FREED:
                    raise
                ex.inexact = True
            g = lg.autograd.grad(loss, w, retain_graph=True)[0]
            ex.autograd = np.array(to_numpy(g))
            if ex.inexact or (ex.total is not None and not _agrees(ex.total, ex.autograd)):
                ex.inexact, ex.paths, ex.contributions, ex.total = True, [], [], None
            if w.is_leaf and w.grad is not None:
                ex.w_grad = np.array(to_numpy(w.grad))
    if not quiet:
        print(str(ex), file=file)
    return ex


def _agrees(total, grad):
    """The paths' sum equals autograd's gradient up to summation order."""
    total, grad = np.asarray(total), np.asarray(grad)
    if total.shape != grad.shape:
        return False
    tol = 1e-4 if grad.dtype.itemsize < 8 else 1e-10
    scale = np.max(np.abs(grad)) if grad.size else 0.0
    return bool(np.allclose(total, grad, rtol=tol, atol=tol * scale, equal_nan=True))


def _caller_names(frame, levels=3):
    """``{id(obj): variable name}`` from the locals of the caller (and up to
    ``levels`` frames above it, nearest first), to print ``d loss / d b``."""
    out = {}
    while frame is not None and levels > 0:
        try:
            for k, v in frame.f_locals.items():
                if G.is_tensor(v) and not k.startswith("_"):
                    out.setdefault(id(v), k)
        except Exception:       # an exotic frame: the generic names do
            pass
        frame, levels = frame.f_back, levels - 1
    return out


def _paths(ex, loss, target, target_nr, nodes, max_paths):
    import leafgrad as lg
    reach = _reaching(nodes, target)
    ex.n_paths = _count_paths(loss.grad_fn, target, reach)
    one = lg.Tensor._make_plain(np.ones(tuple(loss.shape), to_numpy(loss).dtype))
    # depth-first over the paths, each extended by one edge at a time (explicit stack)
    stack = [(loss.grad_fn, getattr(loss, "output_nr", 0), one, [])]
    while stack and len(ex.paths) < max_paths:
        fn, nr, g, steps = stack.pop()
        if fn is target and (nr == target_nr or hasattr(fn, "variable")):
            if hasattr(fn, "variable"):
                steps = steps + [Step(fn, 0, None, to_numpy(g), None)]
            ex.paths.append(steps)
            ex.contributions.append(np.array(to_numpy(g)))
            continue
        attrs = None
        for i, (c, cnr) in reversed(list(enumerate(fn.next_functions))):
            if c is None or c not in reach:
                continue
            if attrs is None:
                attrs = dict(G.attributes(fn))
            gi = _vjp(fn, nr, g, i)
            if gi is None:
                continue
            gin, gout = to_numpy(gi), to_numpy(g)
            local = None
            if gin.size == 1 and gout.size == 1:
                one_vjp = _vjp(fn, nr, lg.Tensor._make_plain(np.ones_like(gout)), i)
                local = to_numpy(one_vjp).reshape(())
            stack.append((c, cnr, gi, steps + [Step(fn, i, local, gin, _formula(fn, i, attrs))]))
    if len(ex.paths) == ex.n_paths and ex.contributions:
        ex.total = np.sum(ex.contributions, axis=0)
