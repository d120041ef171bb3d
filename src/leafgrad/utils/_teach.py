"""Teach mode: the silent training mistakes, reported with the script's line and the fix.

``leafgrad run --teach script.py`` and ``leafgrad.utils.teach()`` (a switch, and a context
manager) watch a training script for the mistakes that raise nothing and print nothing,
the ones the tutorials warn about:

* ``zero_grad``: a ``backward()`` adds into gradients left from before the last
  ``optimizer.step()`` (no ``zero_grad()`` since the step), and a step uses the sum;
* ``train_mode_eval``: a module in training mode with Dropout or BatchNorm is called under
  ``no_grad()`` / ``inference_mode()`` (an evaluation without ``eval()``);
* ``graph_kept``: a one-number ``+`` / ``+=`` adds up graphs recorded across optimizer
  steps (``total += loss`` instead of ``loss.item()``);
* ``double_activation``: softmax / log_softmax / sigmoid output fed to ``cross_entropy`` or
  ``binary_cross_entropy_with_logits`` (they apply their own);
* ``data_write``: a write through ``.data`` to a tensor that a graph saved for backward,
  before that backward (autograd cannot see it: the gradients use the new values);
* ``no_grad_param``: a parameter of the optimizer has no gradient at its first ``step()``,
  or a plain tensor without ``requires_grad`` is in the optimizer;
* ``lr_explodes``: the loss given to ``backward()`` grew 1000-fold since its first value at
  that line, or became inf / nan, over optimizer steps.

Each report goes to stderr once per (kind, line), as ``FILE:LINE: teach [kind]: <what>``
and a ``fix:`` line. Nothing a script prints or computes changes: the checks read arrays with
NumPy, record no node and draw no random number. Off, teach mode costs nothing: it works by
replacing a few functions (``Module.__call__``, ``Tensor.backward``'s entry, ``Tensor.data``,
``Tensor.__add__``/``__radd__``/``__iadd__``, two ``nn.functional`` losses) and registering
global optimizer step hooks, all put back when it is switched off.
"""
import bisect
import math
import os
import runpy
import sys
import weakref

import numpy as np

__all__ = ["teach", "Report"]

_PKG = os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep
_inside = {}            # co_filename -> whether it is leafgrad's own code
_RUNPY = os.path.realpath(runpy.__file__)


def _internal(filename):
    """leafgrad's own code, and the runner's (runpy, frozen importlib): not the script."""
    r = _inside.get(filename)
    if r is None:
        r = _inside[filename] = (os.path.realpath(filename).startswith(_PKG)
                                 or filename.startswith("<frozen")
                                 or os.path.realpath(filename) == _RUNPY)
    return r


def _user_frame(depth=2):
    """The innermost frame outside leafgrad (the script's line), or None."""
    try:
        f = sys._getframe(depth)
    except ValueError:
        return None
    while f is not None and _internal(f.f_code.co_filename):
        f = f.f_back
    return f


def _shown(filename):
    """A path under the current directory is shown relative to it, as the user typed it."""
    try:
        rel = os.path.relpath(filename)
    except ValueError:          # another drive (Windows)
        return filename
    return rel if os.path.isabs(filename) and not rel.startswith(os.pardir) else filename


class Report:
    """One teach-mode finding: ``kind``, ``filename``, ``lineno``, ``message``, ``fix``."""

    __slots__ = ("kind", "filename", "lineno", "message", "fix")

    def __init__(self, kind, filename, lineno, message, fix):
        self.kind, self.filename, self.lineno = kind, filename, lineno
        self.message, self.fix = message, fix

    def __str__(self):
        return "%s:%d: teach [%s]: %s\n    fix: %s" % (_shown(self.filename), self.lineno,
                                                       self.kind, self.message, self.fix)

    def __repr__(self):
        return "Report(%r, %r, %d)" % (self.kind, self.filename, self.lineno)


_DOUBLE = {"SoftmaxBackward0": "softmax", "LogSoftmaxBackward0": "log_softmax",
           "SigmoidBackward0": "sigmoid"}


def _peek_seq():
    """The sequence number the next recorded node will get, without taking it."""
    from ..autograd import graph
    return int(repr(graph.next_seq.__self__)[6:-1])     # "count(123)" (no pickling: 3.14)


def _fmt(v):
    return "%.4g" % v


def _guarded(default=None):
    """A check never breaks the program it watches: an error inside one is said once on
    stderr and the program goes on as it would without teach mode."""
    def wrap(method):
        def run(self, *args):
            try:
                return method(self, *args)
            except Exception as exc:   # noqa: BLE001 - teach mode must not change the run
                if method.__name__ not in self.broken:
                    self.broken.add(method.__name__)
                    sys.stderr.write("leafgrad teach mode: the check %s failed (%s: %s) and "
                                     "was skipped\n" % (method.__name__, type(exc).__name__,
                                                         exc))
                return default() if callable(default) else default
        run.__name__ = method.__name__
        run.__doc__ = method.__doc__
        return run
    return wrap


class _Teacher:
    """The state of one teach session: what was reported, and what each check remembers."""

    def __init__(self, file):
        self.file = file
        self.reports = []
        self.seen = set()
        self.grad_snaps = {}        # id(param) -> (weakref(param), grad tensor, copy of it)
        self.stepped = set()        # id(optimizer) of those that made their first step
        self.mixed = {}             # id(param) -> (backward line, grad, its version): stale
        self.optimizers = weakref.WeakValueDictionary()
        self.step_seqs = []         # the next sequence number at each optimizer step
        self.spans = weakref.WeakKeyDictionary()   # add node -> (lowest, highest) input seq
        self.losses = {}            # backward line -> (first |loss|, steps at that time)
        self.data_views = []        # (weakref(origin), array, version list, seq, file, line,
        #                             weakref(the .data tensor), backward()s watched)
        self.roots = []             # weakrefs to the outermost modules called
        self.depth = 0
        self.broken = set()         # the checks that failed once (said on stderr)

    # -- reporting ------------------------------------------------------------------
    def report(self, kind, frame, message, fix):
        if frame is None:
            return
        where = frame if isinstance(frame, tuple) else (frame.f_code.co_filename,
                                                         frame.f_lineno)
        key = (kind,) + where
        if key in self.seen:
            return
        self.seen.add(key)
        r = Report(kind, where[0], where[1], message, fix)
        self.reports.append(r)
        out = self.file if self.file is not None else sys.stderr
        out.write(str(r) + "\n")
        out.flush()

    def param_names(self):
        names = {}
        for ref in self.roots:
            m = ref()
            if m is not None:
                for n, p in m.named_parameters():
                    names.setdefault(id(p), n)
        return names

    # -- optimizer steps (checks 1, 3, 6, 7) ------------------------------------------
    @_guarded()
    def before_step(self, opt, args, kwargs):
        self.optimizers[id(opt)] = opt
        params = [p for g in opt.param_groups for p in g["params"]]
        self.check_mixed(params)
        closure = args[0] if args else kwargs.get("closure")
        if id(opt) not in self.stepped and closure is None:   # a closure runs backward
            self.stepped.add(id(opt))                          # in the step: seen after it
            self.check_missing(params, _user_frame(3))

    def check_mixed(self, params):
        """The step is about to use gradients that a backward() added to the ones of
        before the last step (and that were not reset since)."""
        for p in params:
            c = self.mixed.pop(id(p), None)
            if c is None:
                continue
            where, g, version = c
            if p._grad is g and g._version == version:
                self.report("zero_grad", where,
                            "backward() added this step's gradients to the ones left from "
                            "before the last optimizer.step() (.grad accumulates; there was "
                            "no zero_grad() since the step), and the next step used the sum",
                            "call optimizer.zero_grad() once per step, before loss.backward()")

    def check_missing(self, params, where):
        from ..nn.parameter import Parameter
        plain = [p for p in params if not p._requires_grad and not isinstance(p, Parameter)]
        if plain:       # an nn.Parameter with requires_grad False is frozen on purpose
            self.report("no_grad_param", where,
                        "a tensor that does not require grad (shape %s) is in the optimizer: "
                        "it never gets a gradient, so step() never changes it"
                        % list(plain[0]._data.shape),
                        "create it with requires_grad=True (torch.tensor(..., "
                        "requires_grad=True)), or make it an nn.Parameter")
        params = [p for p in params if p._requires_grad]
        missing = [p for p in params if p._grad is None]
        if not missing:
            return
        if len(missing) == len(params):
            self.report("no_grad_param", where,
                        "optimizer.step() ran with no gradient in any parameter: backward() "
                        "was not called since the last zero_grad()",
                        "call loss.backward() before optimizer.step()")
            return
        names = self.param_names()
        shown = ", ".join("%s (shape %s)" % (names.get(id(p), "a parameter"),
                                             list(p._data.shape)) for p in missing[:3])
        more = "" if len(missing) <= 3 else " and %d more" % (len(missing) - 3)
        self.report("no_grad_param", where,
                    "%s received no gradient at the first optimizer.step(): %s in the "
                    "optimizer but not in the graph of the loss (unused, or cut off by "
                    "detach(), .data, .item() or no_grad())"
                    % (shown + more, "they are" if len(missing) > 1 else "it is"),
                    "use the parameter in the forward pass, or leave it out of the optimizer "
                    "(or set requires_grad_(False) to freeze it)")

    @_guarded()
    def after_step(self, opt, args, kwargs):
        self.optimizers[id(opt)] = opt
        if id(opt) not in self.stepped:          # the first step, with a closure
            self.stepped.add(id(opt))
            self.check_missing([p for g in opt.param_groups for p in g["params"]],
                               _user_frame(3))
        self.step_seqs.append(_peek_seq())
        for g in opt.param_groups:
            for p in g["params"]:
                gr = p._grad
                if gr is not None and type(gr._data) is np.ndarray:
                    self.grad_snaps[id(p)] = (weakref.ref(p), gr, gr._data.copy())

    # -- backward (checks 1, 5, 7) ------------------------------------------------------
    @_guarded(list)
    def stale_grads(self):
        """The parameters whose .grad is still what the last step used (not zeroed)."""
        stale = []
        for key, (ref, g, copy) in list(self.grad_snaps.items()):
            p = ref()
            cur = None if p is None else p._grad
            if cur is g and copy.any() and np.array_equal(cur._data, copy, equal_nan=True):
                stale.append(key)
            else:
                del self.grad_snaps[key]
        return stale

    @_guarded()
    def after_backward(self, stale, where):
        """Note the parameters whose stale .grad this backward added to: reported at the
        next step that uses them (unless they are reset before it)."""
        if where is None:
            return
        for key in stale:
            ref, g, copy = self.grad_snaps[key]
            p = ref()
            if p is None:
                continue
            cur = p._grad
            if cur is not g or not np.array_equal(cur._data, copy, equal_nan=True):
                del self.grad_snaps[key]
                self.mixed[key] = ((where.f_code.co_filename, where.f_lineno), cur,
                                   None if cur is None else cur._version)

    @_guarded()
    def check_loss(self, t, where):
        if where is None or t._data.size != 1 or type(t._data) is not np.ndarray \
                or t._data.dtype.kind not in "fc":
            return
        v = abs(complex(t._data.reshape(())))
        key = (where.f_code.co_filename, where.f_lineno)
        first = self.losses.get(key)
        if first is None:
            if math.isfinite(v) and v > 0:
                self.losses[key] = (v, len(self.step_seqs))
            return
        v0, steps0 = first
        steps = len(self.step_seqs) - steps0
        if steps == 0 or (math.isfinite(v) and v <= 1e3 * v0):
            return
        lrs = sorted({g.get("lr") for o in self.optimizers.values() for g in o.param_groups
                      if isinstance(g.get("lr"), (int, float))})
        lr = " (lr=%s)" % ", ".join(_fmt(x) for x in lrs) if lrs else ""
        self.report("lr_explodes", where,
                    "the loss went from %s to %s in %d optimizer step%s: the learning rate%s "
                    "is too large, each step overshoots" % (
                        _fmt(v0), _fmt(v), steps, "" if steps == 1 else "s", lr),
                    "lower the learning rate (try 10x smaller), or clip the gradients with "
                    "torch.nn.utils.clip_grad_norm_ before optimizer.step()")

    @_guarded()
    def check_data_writes(self, root):
        """Writes through ``.data`` (or ``.data =``) to a tensor that ``root``'s graph
        saved before the write."""
        written = [r for r in self.data_views if r[2][0] > 0 and r[0]() is not None]
        if not written or root._grad_fn is None:
            return
        # a write stays watched until a graph that holds its tensor is backpropagated (a
        # few backward()s at most: a .grad zeroed through .data is in no graph)
        self.data_views = [r for r in self.data_views if r[2][0] == 0 and r[6]() is not None]
        saved = _saved_in_graph(root._grad_fn)
        for rec in written:
            origin_ref, arr, _vc, seq, filename, lineno, _view, age = rec
            origin = origin_ref()
            hit = saved.get(id(arr))
            if origin is not None and hit is None:
                hit = saved.get(("t", id(origin)))
            if hit is None and age < 3:       # watched over the next three backward()s
                self.data_views.append(rec[:7] + (age + 1,))
            if hit is not None and hit < seq:
                self.report("data_write", (filename, lineno),
                            "this write through .data changed a tensor that the graph saved "
                            "for backward; autograd cannot see it (the version counter does "
                            "not move), so the next backward() computes its gradients from "
                            "the changed values without an error",
                            "change the tensor after backward(), in place under `with "
                            "torch.no_grad():` (w.mul_(0.5): autograd then sees it), or "
                            "run the forward pass again after the change")


def _saved_in_graph(fn):
    """id(array) (and ('t', id(tensor))) -> the lowest sequence number of a node that
    saved it, over the graph below ``fn``."""
    out = {}
    stack, seen = [fn], {id(fn)}
    while stack:
        node = stack.pop()
        try:
            raw = node._raw_saved()
        except Exception:       # noqa: BLE001 - a custom node: nothing we can read
            raw = None
        for t in raw or ():
            d = getattr(t, "_data", None)
            if d is None:
                continue
            base = getattr(d, "base", None)
            for key in (id(d), ("t", id(t))) + (() if base is None else (id(base),)):
                if key not in out or out[key] > node._seq:
                    out[key] = node._seq
        edges = node._edges if hasattr(node, "_edges") else ()
        for nxt in edges[0::2]:
            if nxt is not None and id(nxt) not in seen and hasattr(nxt, "_seq"):
                seen.add(id(nxt))
                stack.append(nxt)
    return out


_state = {"teacher": None, "users": 0, "saved": None}


def _active():
    return _state["teacher"]


# -- the replaced functions -----------------------------------------------------------------
def _wrap_backward(orig):
    def backward(t, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        T = _state["teacher"]
        if T is None:
            return orig(t, gradient, retain_graph, create_graph, inputs=inputs)
        where = _user_frame(1)
        T.check_loss(t, where)
        T.check_data_writes(t)
        stale = T.stale_grads()
        out = orig(t, gradient, retain_graph, create_graph, inputs=inputs)
        T.after_backward(stale, where)
        return out
    return backward


def _wrap_module_call(orig):
    from ..autograd.grad_mode import mode

    def __call__(self, *args, **kwargs):
        T = _state["teacher"]
        if T is None or T.depth:
            return orig(self, *args, **kwargs)
        T.depth += 1
        try:
            T.note_root(self)
            if self.training and not mode.enabled:
                T.check_eval(self)
            return orig(self, *args, **kwargs)
        finally:
            T.depth -= 1
    return __call__


def _note_root(self, module):
    if any(r() is module for r in self.roots):
        return
    self.roots = [r for r in self.roots if r() is not None][-15:] + [weakref.ref(module)]


def _check_eval(self, module):
    from ..nn.modules.dropout import _DropoutNd
    from ..nn.modules.batchnorm import _BatchNorm
    from ..autograd.grad_mode import mode
    found = []
    for name, m in module.named_modules():
        label = "%s%s" % (type(m).__name__, " '%s'" % name if name else "")
        if m.training and isinstance(m, _DropoutNd) and m.p > 0:
            found.append(label + " drops activations at random")
        elif m.training and isinstance(m, _BatchNorm):
            found.append(label + " normalises with the batch's statistics and updates its "
                                 "running averages")
    if not found:
        return
    more = "" if len(found) <= 2 else "; and %d more" % (len(found) - 2)
    self.report("train_mode_eval", _user_frame(2),
                "%s is in training mode under %s: %s%s, so this is not what the trained "
                "model computes" % (type(module).__name__, "torch.inference_mode()"
                                    if mode.inference else "torch.no_grad()",
                                    "; ".join(found[:2]), more),
                "call model.eval() before evaluating, and model.train() before training again")


_Teacher.note_root = _guarded()(_note_root)
_Teacher.check_eval = _guarded()(_check_eval)


def _wrap_add(orig):
    def op(self, other):
        T = _state["teacher"]
        if T is None:
            return orig(self, other)
        a, b = self._grad_fn, getattr(other, "_grad_fn", None)
        out = orig(self, other)
        if (a is not None or b is not None) and getattr(out, "_grad_fn", None) is not None \
                and out._data.size == 1:      # a running total is one number
            T.check_add(a, b, out._grad_fn)
        return out
    op.__name__ = getattr(orig, "__name__", "op")
    op.__doc__ = getattr(orig, "__doc__", None)
    return op


def _check_add(self, a, b, fn):
    lo = hi = None
    for n in (a, b):
        if n is None or not hasattr(n, "_seq"):
            continue
        s = self.spans.get(n) or (n._seq, n._seq)
        lo = s[0] if lo is None else min(lo, s[0])
        hi = s[1] if hi is None else max(hi, s[1])
    if lo is None:
        return
    try:
        self.spans[fn] = (lo, hi)
    except TypeError:
        return
    # two steps or more inside the sum's graphs: a total kept across steps (one step could
    # be another optimizer's, between two terms of one loss: a GAN's generator loss)
    steps = self.step_seqs
    i = bisect.bisect_right(steps, lo)
    if i + 1 < len(steps) and steps[i + 1] <= hi:
        self.report("graph_kept", _user_frame(2),
                    "this + adds up graphs recorded across optimizer steps: a running total "
                    "of tensors that require grad keeps every step's graph (and its saved "
                    "tensors) in memory",
                    "accumulate a number: total += loss.item() (or loss.detach())")


_Teacher.check_add = _guarded()(_check_add)


def _double_message(name, act):
    own = "log_softmax" if name == "cross_entropy" else "sigmoid"
    if act == "log_softmax" and own == "log_softmax":
        return ("cross_entropy applies its own log_softmax, and its input is already the "
                "output of log_softmax: the loss comes out the same (log_softmax of "
                "log-probabilities gives them back) but it is computed twice")
    return ("%s expects logits and applies its own %s, but its input is the output of %s: "
            "the two are applied one on top of the other (a wrong loss, and gradients shrunk "
            "by the extra squashing)" % (name, own, act))


def _check_logits(self, inp, name, fix):
    g = getattr(inp, "_grad_fn", None)
    act = _DOUBLE.get(type(g).__name__) if g is not None else None
    if act is not None:
        self.report("double_activation", _user_frame(2), _double_message(name, act), fix)


_Teacher.check_logits = _guarded()(_check_logits)


def _wrap_loss(orig, name, fix):
    def fn(*args, **kwargs):
        T = _state["teacher"]
        if T is not None:
            T.check_logits(args[0] if args else kwargs.get("input"), name, fix)
        return orig(*args, **kwargs)
    fn.__name__, fn.__qualname__, fn.__doc__ = orig.__name__, orig.__qualname__, orig.__doc__
    fn.__wrapped__ = orig
    return fn


def _note_data(self, origin, view, old):
    """A ``.data`` handed out (``view``: its version counter moves on a write through it)
    or replaced (``old``: the array it had) at the caller's line."""
    f = sys._getframe(3)
    if _internal(f.f_code.co_filename):
        return
    if view is not None:
        if len(self.data_views) > 256:
            self.data_views = [r for r in self.data_views
                               if r[2][0] or r[6]() is not None][-256:]
        self.data_views.append((weakref.ref(origin), origin._data, view._version_counter(),
                                _peek_seq(), f.f_code.co_filename, f.f_lineno,
                                weakref.ref(view), 0))
    else:
        self.data_views.append((weakref.ref(origin), old, [1], _peek_seq(),
                                f.f_code.co_filename, f.f_lineno, lambda: None, 0))


_Teacher.note_data = _guarded()(_note_data)


def _wrap_data(prop):
    def get(self):
        t = prop.fget(self)
        T = _state["teacher"]
        if T is not None:
            T.note_data(self, t, None)
        return t

    def set_(self, value):
        old = self._data
        prop.fset(self, value)
        T = _state["teacher"]
        if T is not None and self._data is not old:
            T.note_data(self, None, old)
    return property(get, set_, prop.fdel, prop.__doc__)


_MISSING = object()


def _install(T):
    """Replace the watched functions; the originals go to ``_state['saved']``."""
    from .._tensor import tensor as _tt
    from ..nn.modules.module import Module
    from ..nn import functional as F
    from ..optim import optimizer as _opt
    Tensor = _tt.Tensor
    saved = []

    def patch(obj, name, new):
        saved.append((obj, name, obj.__dict__.get(name, _MISSING)))
        setattr(obj, name, new)

    saved.append((_tt._backward, 0, _tt._backward[0]))
    _tt._backward[0] = _wrap_backward(_tt._backward[0])
    patch(Module, "__call__", _wrap_module_call(Module.__call__))
    patch(Tensor, "data", _wrap_data(Tensor.__dict__["data"]))
    for name in ("__add__", "__radd__", "__iadd__"):
        patch(Tensor, name, _wrap_add(getattr(Tensor, name)))
    patch(F, "cross_entropy", _wrap_loss(
        F.cross_entropy, "cross_entropy",
        "pass the logits (the output before softmax / log_softmax) to cross_entropy / "
        "nn.CrossEntropyLoss; for log-probabilities the loss is nll_loss"))
    patch(F, "binary_cross_entropy_with_logits", _wrap_loss(
        F.binary_cross_entropy_with_logits, "binary_cross_entropy_with_logits",
        "pass the logits (the output before sigmoid), or keep the sigmoid and use "
        "binary_cross_entropy / nn.BCELoss"))
    handles = [_opt.register_optimizer_step_pre_hook(T.before_step),
               _opt.register_optimizer_step_post_hook(T.after_step)]
    _state["saved"] = (saved, handles)


def _uninstall():
    saved, handles = _state["saved"]
    for h in handles:
        h.remove()
    for obj, name, old in reversed(saved):
        if isinstance(obj, list):
            obj[name] = old
        elif old is _MISSING:
            delattr(obj, name)
        else:
            setattr(obj, name, old)
    _state.update(teacher=None, users=0, saved=None)


class teach:
    """Teach mode: report the silent training mistakes on stderr, with the line and the fix.

    ``teach()`` switches it on (for the rest of a notebook session: nothing else to
    write); ``with teach():`` switches it on for the block; ``teach(False)`` switches it
    off. ``leafgrad run --teach script.py`` runs a script with it on. What is watched is in
    this module's docstring (``leafgrad.utils._teach``); each finding is reported once per
    (kind, line), and kept in ``reports`` (a list of ``Report``: ``kind``, ``filename``,
    ``lineno``, ``message``, ``fix``). Nothing the program prints or computes changes.

    Args:
        enabled: False switches teach mode off (every open ``teach()`` with it).
        file: where to write the reports (default: ``sys.stderr`` at the time of writing).
    """

    def __init__(self, enabled=True, *, file=None):
        self._teacher, self._start, self._open = None, 0, False
        if not enabled:
            if _state["teacher"] is not None:
                _uninstall()
            return
        T = _state["teacher"]
        if T is None:
            T = _Teacher(file)
            _install(T)
            _state["teacher"] = T
        elif file is not None:
            T.file = file
        _state["users"] += 1
        self._teacher, self._start, self._open = T, len(T.reports), True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Switch this teach() off (teach mode stays on while another one is open)."""
        if not self._open:
            return
        self._open = False
        if _state["teacher"] is self._teacher:
            _state["users"] -= 1
            if _state["users"] <= 0:
                _uninstall()

    @property
    def reports(self):
        """The findings reported since this ``teach()`` was opened."""
        return [] if self._teacher is None else self._teacher.reports[self._start:]

    @staticmethod
    def is_enabled():
        """Whether teach mode is on."""
        return _state["teacher"] is not None

    def __repr__(self):
        return "<teach mode %s, %d report%s>" % (
            "on" if self._open else "off", len(self.reports),
            "" if len(self.reports) == 1 else "s")
