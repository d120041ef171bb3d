"""``LBFGS``: limited-memory BFGS with an optional strong-Wolfe line search.

The algorithm is PyTorch's (``torch/optim/lbfgs.py``, after minFunc and Lua torch's
``lbfgs.lua``/``lswolfe.lua``): the two-loop recursion over the last ``history_size``
curvature pairs (s, y) kept when y·s > 1e-10, initial Hessian scale y·s / y·y, a first
step of min(1, 1/|g|_1)·lr, and the stopping tests on the gradient, the step and the
change of loss. Scalars that PyTorch keeps as 0-d float32 tensors (y·s, 1/(y·s), the
Hessian scale, directional derivatives) are float32 here too, so the iterates agree
with PyTorch's to float32 rounding.
"""
import numpy as np

from .._tensor import creation as _creation
from ..autograd.grad_mode import enable_grad, no_grad
from .optimizer import Optimizer

__all__ = ["LBFGS"]

_f32 = np.float32


def _copy(v):
    """A copy of a flat vector: ``clone`` for a Tensor, ``copy`` for an ndarray."""
    return v.clone() if hasattr(v, "clone") else v.copy()


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to ``bounds``
    (default: the interval); the midpoint when the cubic has no real minimiser (also when
    the discriminant is nan, as PyTorch's ``d2_square >= 0`` test). Works on Python
    numbers, NumPy scalars and 0-d Tensors (PyTorch's ``torch.optim.lbfgs`` signature)."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 ** 2 - g1 * g2
    if not disc >= 0:
        return (lo + hi) / 2.0
    d2 = disc.sqrt() if hasattr(disc, "sqrt") else np.sqrt(disc)
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, lo), hi)


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Line search along ``d`` from step ``t`` for the strong Wolfe conditions (sufficient
    decrease ``c1``, curvature ``c2``): bracket an interval, then zoom into it by cubic
    interpolation (PyTorch's ``torch.optim.lbfgs._strong_wolfe``, after Lua torch's
    ``lswolfe.lua``). ``obj_func(x, t, d)`` returns (loss, flat gradient) at x + t·d;
    ``d``, ``g`` are flat Tensors (or ndarrays, as ``LBFGS.step`` passes them).

    Returns (loss, gradient, t, number of evaluations)."""
    d_norm = abs(d).max()
    g = _copy(g)
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done, it, bgtd = False, 0, None
    # bracketing phase: bt/bf/bg/bgtd hold the bracket's steps, losses, grads, slopes
    while it < max_ls:
        if f_new > (f + c1 * t * gtd) or (it > 1 and f_new >= f_prev):
            bt, bf, bg, bgtd = [t_prev, t], [f_prev, f_new], [g_prev, _copy(g_new)], \
                [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bt, bf, bg = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bt, bf, bg, bgtd = [t_prev, t], [f_prev, f_new], [g_prev, _copy(g_new)], \
                [gtd_prev, gtd_new]
            break
        bounds = (t + 0.01 * (t - t_prev), t * 10)
        t_next = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=bounds)
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, _copy(g_new), gtd_new
        t = t_next
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
    if it == max_ls:
        bt, bf, bg = [0, t], [f, f_new], [g, g_new]
    return _zoom(obj_func, x, d, f, gtd, c1, c2, tolerance_change, max_ls, d_norm,
                 bt, bf, bg, bgtd, done, it, evals)


def _zoom(obj_func, x, d, f, gtd, c1, c2, tolerance_change, max_ls, d_norm,
          bt, bf, bg, bgtd, done, it, evals):
    """``_strong_wolfe``'s zoom phase: shrink the bracket (``bt`` steps, ``bf`` losses,
    ``bg`` gradients, ``bgtd`` slopes) by safeguarded cubic interpolation until a point
    meets the strong Wolfe conditions. Returns (loss, gradient, t, evaluations)."""
    insufficient = False
    low, high = (0, 1) if bf[0] <= bf[-1] else (1, 0)
    while not done and it < max_ls:
        if abs(bt[1] - bt[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bt[0], bf[0], bgtd[0], bt[1], bf[1], bgtd[1])
        # keep the new point away from the bracket's ends (minFunc's safeguard)
        top, bottom = max(bt), min(bt)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if insufficient or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        it += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bf[low]:
            bt[high], bf[high], bg[high], bgtd[high] = t, f_new, _copy(g_new), gtd_new
            low, high = (0, 1) if bf[0] <= bf[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bt[high] - bt[low]) >= 0:
                bt[high], bf[high], bg[high], bgtd[high] = bt[low], bf[low], bg[low], bgtd[low]
            bt[low], bf[low], bg[low], bgtd[low] = t, f_new, _copy(g_new), gtd_new
    return bf[low], bg[low], bt[low], evals


def _arr(v):
    """State values are leafgrad tensors (so state_dict/save work); arrays inside step."""
    return v.numpy() if hasattr(v, "numpy") and hasattr(v, "shape") else v


def _ten(v):
    if isinstance(v, np.ndarray):
        return _creation.from_numpy(v)
    if isinstance(v, np.generic):
        return _creation.tensor(v.item(), dtype=_creation.tensor(v).dtype)
    return v


def _direction(g, g_prev, d, t, dirs, stps, ro, h_diag, al, history):
    """The next L-BFGS direction d = -H g (PyTorch's two-loop recursion), after
    adding the last step's curvature pair to the history (``dirs``, ``stps``,
    ``ro``, ``al``: updated in place). Returns (d, the new H_diag)."""
    y = g - g_prev
    s = d * t
    ys = y.dot(s)
    if ys > 1e-10:       # keep the pair only with positive curvature
        if len(dirs) == history:
            dirs.pop(0)
            stps.pop(0)
            ro.pop(0)
        dirs.append(y)
        stps.append(s)
        ro.append(_f32(1.0) / ys)
        h_diag = ys / y.dot(y)
    q = -g
    for i in range(len(dirs) - 1, -1, -1):
        al[i] = stps[i].dot(q) * ro[i]
        q = q + (-al[i]).astype(q.dtype) * dirs[i]
    d = r = q * h_diag
    for i in range(len(dirs)):
        be_i = dirs[i].dot(r) * ro[i]
        r += (al[i] - be_i).astype(r.dtype) * stps[i]
    return d, h_diag


class LBFGS(Optimizer):
    """L-BFGS (PyTorch's ``torch.optim.LBFGS``): one parameter group only.

    Args:
        lr: step scale (default 1). max_iter: iterations per ``step`` (20).
        max_eval: closure evaluations per ``step`` (default ``max_iter * 5 // 4``).
        tolerance_grad: stop when max |gradient| <= this (1e-7).
        tolerance_change: stop when the step or the loss change is below this (1e-9).
        history_size: curvature pairs kept (100). line_search_fn: None or 'strong_wolfe'.

    ``step(closure)`` needs a closure that zeroes the gradients, computes the loss, calls
    ``backward()`` and returns the loss; it returns the first loss of the step.

    Raises:
        ValueError: a negative lr, a tensor lr with more than one element, several
            parameter groups. RuntimeError: a line search other than 'strong_wolfe'.
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: %s" % lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups). "
                             "Fix: pass one list of parameters and one set of options")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        parts = []
        for p in self._params:
            g = p.grad
            parts.append(np.zeros(p.numel(), dtype=p.numpy().dtype) if g is None
                         else g.numpy().reshape(-1))
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)

    def _add_step(self, t, d):
        """x += t·d, parameter by parameter (in place: version counters move)."""
        offset = 0
        for p in self._params:
            n = p.numel()
            upd = d[offset:offset + n].reshape(p.shape)
            p.add_(_creation.from_numpy(np.array(upd)), alpha=float(t))
            offset += n

    def _evaluate_at(self, closure, x0, t, d):
        self._add_step(t, d)
        with enable_grad():
            loss = closure()
        loss = float(loss.detach() if hasattr(loss, "detach") else loss)
        g = self._flat_grad()
        for p, v in zip(self._params, x0):
            p.copy_(v)
        return loss, g

    def step(self, closure):
        """Up to ``max_iter`` L-BFGS iterations; returns the loss ``closure()`` gave first."""
        if closure is None:
            raise RuntimeError("LBFGS.step() needs a closure that re-evaluates the model and "
                               "returns the loss. Fix: optimizer.step(closure) with def "
                               "closure(): optimizer.zero_grad(); loss = ...; loss.backward(); "
                               "return loss")
        group = self.param_groups[0]
        lr = float(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        line_search, history = group["line_search_fn"], group["history_size"]
        if line_search is not None and line_search != "strong_wolfe":
            raise RuntimeError("only 'strong_wolfe' is supported")
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss.detach() if hasattr(orig_loss, "detach") else orig_loss)
        evals = 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if np.abs(g).max() <= tol_grad:
            return orig_loss

        d, t = _arr(state.get("d")), _arr(state.get("t"))
        dirs = [_arr(v) for v in state.get("old_dirs") or []]
        stps = [_arr(v) for v in state.get("old_stps") or []]
        ro = [_arr(v) for v in state.get("ro") or []]
        h_diag = _arr(state.get("H_diag"))
        g_prev = _arr(state.get("prev_flat_grad"))
        prev_loss = state.get("prev_loss")
        al = [None] * history
        n = 0
        with no_grad():
            while n < max_iter:
                n += 1
                state["n_iter"] += 1
                if state["n_iter"] == 1:
                    d = -g
                    dirs, stps, ro, h_diag = [], [], [], 1
                else:
                    d, h_diag = _direction(g, g_prev, d, t, dirs, stps, ro, h_diag, al, history)
                g_prev = g.copy()
                prev_loss = loss
                if state["n_iter"] == 1:
                    t = min(1.0, _f32(1.0) / np.abs(g).sum()) * lr
                else:
                    t = lr
                gtd = g.dot(d)
                if gtd > -tol_change:
                    break
                ls_evals = 0
                if line_search is not None:
                    x0 = [p.clone() for p in self._params]
                    loss, g, t, ls_evals = _strong_wolfe(
                        lambda x, step, d: self._evaluate_at(closure, x, step, d), x0, t, d,
                        loss, g, gtd, max_ls=max_eval - evals)
                    self._add_step(t, d)
                    opt_cond = np.abs(g).max() <= tol_grad
                else:
                    self._add_step(t, d)
                    opt_cond = False
                    if n != max_iter:
                        with enable_grad():
                            loss = closure()
                        loss = float(loss.detach() if hasattr(loss, "detach") else loss)
                        g = self._flat_grad()
                        opt_cond = np.abs(g).max() <= tol_grad
                        ls_evals = 1
                evals += ls_evals
                state["func_evals"] += ls_evals
                if n == max_iter or evals >= max_eval or opt_cond:
                    break
                if np.abs(d * t).max() <= tol_change:
                    break
                if abs(loss - prev_loss) < tol_change:
                    break
        state.update(d=_ten(d), t=_ten(t) if isinstance(t, np.generic) else t,
                     old_dirs=[_ten(v) for v in dirs], old_stps=[_ten(v) for v in stps],
                     ro=[_ten(v) for v in ro], H_diag=_ten(h_diag),
                     prev_flat_grad=_ten(g_prev), prev_loss=prev_loss,
                     al=[_ten(v) if v is not None else None for v in al])
        return orig_loss
