"""``Optimizer``: the base class, with PyTorch's param groups, state and state_dict format.

Reference: https://pytorch.org/docs/stable/optim.html. ``param_groups`` is a list of
dicts (``'params'`` plus the hyper-parameters, defaults filled in), ``state`` a
``defaultdict(dict)`` keyed by parameter. ``state_dict()`` replaces parameters by
their index (counting through the groups in order), as PyTorch does, so a
state dict saved from one optimizer loads into another built the same way.

Subclasses implement ``step`` by updating ``p._data`` in place with NumPy (in the
parameter's dtype, in PyTorch's order of operations) and bumping ``p._version``:
the update is outside autograd, like PyTorch's ``@torch.no_grad`` steps.
"""
import functools
import numbers
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

import numpy as np

from .._tensor.tensor import Tensor
from ..autograd.grad_mode import enable_grad
from .._core import errors as _errors
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]

# PyTorch's hooks common to all optimizers (``torch.optim.optimizer``): the pre-hooks run
# before each optimizer's own, the post-hooks after (``leafgrad run --teach`` uses them)
_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    return type(obj).__qualname__ if module == "builtins" else module + "." + type(obj).__qualname__


def _wrap_step(step):
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        if "_optimizer_step_pre_hooks" not in self.__dict__:
            # a subclass that skips Optimizer.__init__ (a Lookahead-style wrapper of
            # another optimizer): PyTorch does not patch its step, so no hooks, no flag.
            # (PyTorch's zero_grad() on it patches the step lazily, which then raises
            # AttributeError; leafgrad keeps stepping.)
            return step(self, *args, **kwargs)
        self._opt_called = True
        pre = self._optimizer_step_pre_hooks
        if pre or _global_optimizer_pre_hooks:
            for hook in list(_global_optimizer_pre_hooks.values()) + list(pre.values()):
                res = hook(self, args, kwargs)
                if res is not None:
                    args, kwargs = res
        for group in self.param_groups:
            if group.get("capturable") or group.get("differentiable"):
                _refuse_step_flags(self, group)
        out = step(self, *args, **kwargs)
        post = self._optimizer_step_post_hooks
        if post or _global_optimizer_post_hooks:
            for hook in list(post.values()) + list(_global_optimizer_post_hooks.values()):
                hook(self, args, kwargs)
        return out
    wrapper._leafgrad_wrapped = True
    return wrapper


def _refuse_step_flags(opt, group):
    """PyTorch's refusals of ``capturable=True`` and ``differentiable=True`` at ``step()``
    on CPU, raised before the step touches state or parameters (PyTorch has initialised
    the state by then). ``capturable`` is for CUDA graphs: PyTorch asserts the parameters
    are on a capturable device. ``differentiable`` runs the step under autograd, whose
    in-place update of a leaf that requires grad PyTorch refuses; for non-leaf parameters
    PyTorch records the step in the graph, which leafgrad does not implement."""
    params = [p for p in group["params"] if p.grad is not None]
    if not params:
        return
    if group.get("capturable"):
        what, devices = getattr(opt, "_capturable_checked", ("params and state_steps", _CAPTURABLE))
        raise AssertionError(
            "If capturable=True, %s must be on supported devices: %s. (%s: capturable=True "
            "is for capturing the step in a CUDA graph, and these tensors are on the CPU. "
            "Fix: leave capturable at its default, False.)" % (what, devices, type(opt).__name__))
    if any(p.requires_grad and p.is_leaf for p in params):
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation. "
            "(%s(differentiable=True) runs step() under autograd, so its in-place update of "
            "a leaf parameter that requires grad is refused, as in PyTorch. Fix: leave "
            "differentiable at its default, False, unless the parameters are non-leaf tensors "
            "whose update you differentiate through.)" % type(opt).__name__)
    if any(p.requires_grad for p in params):
        raise NotImplementedError(
            "%s(differentiable=True) with non-leaf parameters: PyTorch records the step in the "
            "autograd graph (to differentiate through the update); leafgrad does not implement "
            "differentiable optimizer steps. Fix: write the update with tensor operations "
            "(e.g. p = p - lr * g, with g from torch.autograd.grad(..., create_graph=True)), "
            "or use PyTorch for this." % type(opt).__name__)


_CAPTURABLE = "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"


def register_optimizer_step_pre_hook(hook):
    """``hook(optimizer, args, kwargs) -> None or (args, kwargs)`` before every optimizer's
    ``step`` (before the optimizer's own pre-hooks); returns a handle with ``remove()``."""
    h = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[h.id] = hook
    return h


def register_optimizer_step_post_hook(hook):
    """``hook(optimizer, args, kwargs)`` after every optimizer's ``step`` (after the
    optimizer's own post-hooks); returns a handle with ``remove()``."""
    h = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[h.id] = hook
    return h


class Optimizer:
    """Base class of all optimizers.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (param
            groups: ``{'params': [...], 'lr': ...}``).
        defaults: the default hyper-parameters of a group.

    Raises:
        TypeError: when ``params`` is a single tensor, or holds something else.
        ValueError: for an empty parameter list, a non-leaf tensor, or a parameter in
            two groups.
    """

    # the group entries that must be numbers (checked for every group before a step
    # touches anything), those of them that may also be a tensor, and whether the
    # group has a ``betas`` pair
    _numbers = ()
    _tensor_ok = ()
    _has_betas = False
    # group entries added after the first release: filled in by ``__setstate__`` (unpickling
    # an optimizer saved before them)
    _late_defaults = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_leafgrad_wrapped", False):
            cls.step = _wrap_step(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())
        for group in self.param_groups:
            for k, v in self._late_defaults.items():
                group.setdefault(k, v)

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\nParameter Group %d\n" % i
            for key in sorted(group.keys()):
                if key != "params":
                    s += "    %s: %s\n" % (key, group[key])
        return s + ")"

    # ----------------------------------------------------------------- groups
    def add_param_group(self, param_group):
        """Add a group (a dict with ``'params'``); missing hyper-parameters take the defaults.

        Raises:
            TypeError: for a non-dict, a set of params, or a non-tensor.
            ValueError: for a non-leaf tensor, a missing required hyper-parameter, or a
                parameter already in another group.
        """
        if not isinstance(param_group, dict):
            raise TypeError("param_group must be a dict, but got %s" % type(param_group))
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not self.defaults.get("differentiable", None) and not (
                    p.is_leaf or p.retains_grad):
                raise ValueError(
                    "can't optimize a non-leaf Tensor: this tensor was computed from others "
                    "(it has grad_fn=%s), so it is not a parameter that gradients accumulate "
                    "into. Fix: pass the tensors created with requires_grad=True (e.g. "
                    "model.parameters()), or make a leaf with t = t.detach().requires_grad_()."
                    % p.grad_fn.name())
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 "optimization parameter %s" % name)
            param_group.setdefault(name, default)
        if len(tensors) != len({id(p) for p in tensors}):
            _errors.warn("optimizer contains a parameter group with duplicate parameters; in "
                         "future, this will cause an error; see "
                         "github.com/pytorch/pytorch/issues/40967 for more information")
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                raise ValueError(
                    "all optimizer param groups should be with/without names. cannot add param "
                    "group %s to the optimizer"
                    % ("with names" if "param_names" in param_group else "without names"))
        if any(id(p) in seen for p in tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ grads
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters: to None (default) or to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if g._grad_fn is not None:
                        g.detach_()
                    else:
                        g._requires_grad = False
                    g._data[...] = 0
                    g._bump_version()

    def step(self, closure=None):
        """Update the parameters once (subclasses implement it).

        Args:
            closure: optional callable that re-evaluates the model and returns the loss
                (called with grad mode on); its result is returned.
        """
        raise NotImplementedError

    def _check_groups(self):
        """Raise (before any state or parameter changes) when a group's hyper-parameter
        has the wrong type: a few type checks per group, none per parameter."""
        for i, group in enumerate(self.param_groups):
            self._check_group(group, "param_groups[%d]" % i, at_step=True)

    def _check_group(self, group, where, at_step):
        tensor_ok = self._tensor_ok
        for name in self._numbers:
            v = group.get(name, 0.0)
            if type(v) is float or type(v) is int or v is required:
                continue
            if not (isinstance(v, numbers.Real) or (name in tensor_ok and isinstance(v, Tensor)
                                                    and v.dim() == 0)):
                raise TypeError(
                    "%s: %s%s must be a number, not %s (%r): the update would fail half-way. "
                    "Fix: set a float, e.g. %s"
                    % (type(self).__name__, where and where + " ", repr(name),
                       type(v).__name__, v, "optimizer.%s[%r] = 0.1" % (where, name) if where
                       else "%s=0.1" % name))
        if self._has_betas:
            betas = group.get("betas", (0.9, 0.999))
            if type(betas) is tuple and len(betas) == 2 and type(betas[0]) is float \
                    and type(betas[1]) is float:
                return
            ok = isinstance(betas, (tuple, list))
            fix = ("%s: %sbetas must be a pair of numbers in [0, 1), not %r. Fix: e.g. %s"
                   % (type(self).__name__, where and where + " ", betas,
                      "optimizer.%s['betas'] = (0.9, 0.999)" % where if where
                      else "betas=(0.9, 0.999)"))
            if ok and len(betas) != 2:
                # PyTorch: IndexError from the constructor, ValueError from step()
                raise (ValueError if at_step else _BetasLengthError)(fix)
            if not ok or not all(isinstance(b, numbers.Real) for b in betas):
                if at_step and isinstance(betas, str) and len(betas) != 2:
                    raise ValueError(fix)           # PyTorch: "too many values to unpack"
                raise TypeError(fix)

    @staticmethod
    def _closure(closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` before each ``step``; returns a handle."""
        h = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[h.id] = hook
        return h

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` after each ``step``; returns a handle."""
        h = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[h.id] = hook
        return h

    # ------------------------------------------------------------- state dict
    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``.

        The state tensors are the optimizer's own (not copies), as in PyTorch.
        """
        mapping = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Load a ``state_dict()`` (tensors are copied, floating ones cast to the param's
        dtype, except ``'step'``).

        Raises:
            ValueError: when the number of groups or of parameters per group differs.
        """
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                arr = np.array(value._data, copy=True)
                if key != "step" and param.is_floating_point() and arr.dtype.kind == "f":
                    arr = arr.astype(param._data.dtype)
                return Tensor._make_plain(arr)
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return deepcopy(value)

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.state = state
        self.param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]

    # -------------------------------------------------------------- helpers
    @staticmethod
    def _params_with_grad(group):
        """(param, data ndarray, grad ndarray) for the params of ``group`` that have a
        gradient; the gradient is negated when the group has ``maximize=True``."""
        maximize = group.get("maximize", False)
        for p in group["params"]:
            g = p._grad
            if g is not None:
                yield p, p._data, (-g._data if maximize else g._data)


class _BetasLengthError(ValueError, IndexError):
    """betas that are not a pair (PyTorch raises IndexError or ValueError, by where)."""


def _check_non_negative(*checks):
    """PyTorch's constructor checks ``not 0.0 <= value`` (NaN fails too), in order:
    ``checks`` are (label, value) pairs; ValueError "Invalid <label>: <value>"."""
    for label, value in checks:
        if not 0.0 <= value:
            raise ValueError("Invalid %s: %s" % (label, value))


def _state_tensor(arr):
    return Tensor._make_plain(arr)


def _step_tensor():
    return Tensor._make_plain(np.asarray(0.0, dtype=np.float32))


def _init_state(state, x, *names):
    """Fill an empty ``state``: ``step`` (0-dim float32 zero), then a zeros-like-``x``
    tensor for each name; returns ``state``."""
    if len(state) == 0:
        state["step"] = _step_tensor()
        for name in names:
            state[name] = _state_tensor(np.zeros_like(x))
    return state
