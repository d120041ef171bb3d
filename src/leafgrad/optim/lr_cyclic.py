"""The cyclic learning-rate schedulers of ``torch.optim.lr_scheduler``: ``OneCycleLR``,
``CyclicLR``, ``CosineAnnealingWarmRestarts`` (PyTorch's formulas; re-exported by, and
named as classes of, ``leafgrad.optim.lr_scheduler``).
"""
import math
import types
from functools import partial

from .lr_base import LRScheduler, _lrs, within_step
from .optimizer import Optimizer


def _per_group_value(name, optimizer, value):
    """One value per param group (a single value is used for all)."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError("%s must have the same length as optimizer.param_groups. %s has %d "
                             "values, param_groups has %d." % (name, name, len(value), n))
        return list(value)
    return [value] * n


def _positive_int(name, v):
    if not isinstance(v, int) or v <= 0:
        raise ValueError("Expected positive integer %s, but got %s" % (name, v))
    return v


def _momentum_kind(optimizer):
    """True when cycling beta1 (Adam-like), False for ``momentum`` (SGD-like).

    Raises:
        ValueError: when the optimizer has neither.
    """
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled (SGD's momentum, Adam's betas). Fix: pass "
                         "cycle_momentum=False.")
    return "betas" in optimizer.defaults


def _put_momentum(group, m, use_beta1):
    if use_beta1:
        group["betas"] = (m,) + tuple(group["betas"][1:])
    else:
        group["momentum"] = m


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin, 2017), as PyTorch: per step (call ``step()``
    after every batch), the lr rises from ``max_lr / div_factor`` to ``max_lr`` over
    the first ``pct_start`` of ``total_steps``, then falls to
    ``initial_lr / final_div_factor``; ``three_phase`` comes back down to the
    initial lr first, then to the minimum. ``anneal_strategy`` 'cos' or 'linear'.
    With ``cycle_momentum`` the momentum (SGD) or beta1 (Adam) moves the opposite
    way between ``max_momentum`` and ``base_momentum``.

    Raises:
        ValueError: neither ``total_steps`` nor ``epochs`` and ``steps_per_epoch``, a
            non-positive count, ``pct_start`` not a float in [0, 1], an unknown
            strategy, ``cycle_momentum`` with an optimizer without momentum, or a
            step past ``total_steps``.
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError("%s is not an Optimizer" % type(optimizer).__name__)
        self.optimizer = optimizer
        if total_steps is not None:
            self.total_steps = _positive_int("total_steps", total_steps)
        elif epochs is not None and steps_per_epoch is not None:
            self.total_steps = (_positive_int("epochs", epochs)
                                * _positive_int("steps_per_epoch", steps_per_epoch))
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        # PyTorch's phase table (also in state_dict): group keys to anneal between
        keys = ("end_step", "start_lr", "end_lr", "start_momentum", "end_momentum")
        up = float(pct_start * self.total_steps) - 1
        if three_phase:
            phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                      (float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                       "base_momentum", "max_momentum"),
                      (self.total_steps - 1, "initial_lr", "min_lr", "max_momentum",
                       "max_momentum")]
        else:
            phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                      (self.total_steps - 1, "max_lr", "min_lr", "base_momentum",
                       "max_momentum")]
        self._schedule_phases = [dict(zip(keys, p)) for p in phases]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError("Expected float between 0 and 1 pct_start, but got %s" % pct_start)
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got %s"
                             % anneal_strategy)
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group_value("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for m, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = m / div_factor
                group["max_lr"] = m
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_kind(optimizer)
            maxes = _per_group_value("max_momentum", optimizer, max_momentum)
            bases = _per_group_value("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for m, b, group in zip(maxes, bases, optimizer.param_groups):
                    self._set_momentum(group, m)
                    group["max_momentum"] = m
                    group["base_momentum"] = b
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group, m):
        _put_momentum(group, m, self.use_beta1)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError("Tried to step %d times. The specified number of total steps is %d. "
                             "Fix: build the scheduler with the number of optimizer steps you "
                             "take (epochs * steps_per_epoch), and call step() once per batch."
                             % (step, self.total_steps))
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == last:
                    pct = (step - start) / (end - start)
                    lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]],
                                            pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct))
                    break
                start = end
        return lrs


class CyclicLR(LRScheduler):
    """Cyclical learning rates (Smith, 2015), as PyTorch: per step (call ``step()`` after
    every batch) the lr goes from ``base_lr`` up to ``max_lr`` in ``step_size_up`` steps
    and back in ``step_size_down``; the amplitude is scaled by ``mode``: 'triangular'
    (1), 'triangular2' (halved each cycle), 'exp_range' (``gamma ** iteration``), or by a
    custom ``scale_fn`` of the cycle number or iteration (``scale_mode``). With
    ``cycle_momentum`` the momentum (SGD) or beta1 (Adam) moves the opposite way between
    ``max_momentum`` and ``base_momentum``.

    Raises:
        ValueError: an unknown mode without ``scale_fn``, per-group lists of the wrong
            length, or ``cycle_momentum`` with an optimizer without momentum.
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError("%s is not an Optimizer" % type(optimizer).__name__)
        self.optimizer = optimizer
        base_lrs = _per_group_value("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group_value("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _momentum_kind(optimizer)
            self.base_momentums = _per_group_value("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group_value("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for m, b, group in zip(self.max_momentums, self.base_momentums,
                                       optimizer.param_groups):
                    _put_momentum(group, m, self.use_beta1)
                    group["max_momentum"] = m
                    group["base_momentum"] = b
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        """The amplitude factor of cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x):
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x):
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma, x):
        return gamma ** x

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for b, m, group in zip(self.base_momentums, self.max_momentums,
                                   self.optimizer.param_groups):
                _put_momentum(group, m - (m - b) * scale_factor * scale, self.use_beta1)
        return lrs

    def state_dict(self):
        """As the base, without the scale functions (a callable object's ``__dict__``
        is kept, as PyTorch)."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR (Loshchilov & Hutter, 2016), as PyTorch: eta_min + (base_lr - eta_min)
    (1 + cos(pi T_cur / T_i)) / 2, where T_cur counts epochs since the last restart and
    the period T_i starts at ``T_0`` and is multiplied by ``T_mult`` at each restart.
    ``step(epoch)`` accepts a fractional epoch (e.g. ``epoch + i / iters``).

    Raises:
        ValueError: ``T_0`` not a positive int, ``T_mult`` not an int >= 1, ``eta_min``
            not a number, or a negative epoch.
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError("Expected positive integer T_0, but got %s" % T_0)
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError("Expected integer T_mult >= 1, but got %s" % T_mult)
        if not isinstance(eta_min, (float, int)):
            raise ValueError("Expected float or int eta_min, but got %s of type %s"
                             % (eta_min, type(eta_min)))
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None):
        """Advance one epoch, or go to ``epoch`` (a float allowed; no deprecation warning)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError("Expected non-negative epoch, but got %s" % epoch)
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with within_step(self):
            values = self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


for _cls in (OneCycleLR, CyclicLR, CosineAnnealingWarmRestarts):
    _cls.__module__ = "leafgrad.optim.lr_scheduler"     # where PyTorch's live
