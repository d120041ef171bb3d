"""``LRScheduler``, the base of ``torch.optim.lr_scheduler``'s schedulers (re-exported
there, and named as its class): the initial step, ``step()`` order checks, ``get_last_lr``,
``state_dict``.
"""

import contextlib
import functools

from .optimizer import Optimizer
from .._core import errors as _errors


EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")


def _lrs(optimizer):
    return [group["lr"] for group in optimizer.param_groups]


class LRScheduler:
    """Base class: subclasses define ``get_lr()`` (chainable form) and optionally
    ``_get_closed_form_lr()``.

    Raises:
        TypeError: when ``optimizer`` is not an Optimizer.
        KeyError: ``last_epoch != -1`` without ``'initial_lr'`` in the param groups.
    """

    _is_initial = False
    _get_lr_called_within_step = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError("%s is not an Optimizer" % type(optimizer).__name__)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        "param 'initial_lr' is not specified in param_groups[%d] when resuming "
                        "scheduler with last_epoch >= 0." % i)
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        """The construction's first step (PyTorch's ``_initial_step``): counts no step and
        raises no epoch warning; SequentialLR runs it for its epoch-0 scheduler."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute except the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates (one per param group) set by the last ``step``."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def step(self, epoch=None):
        """Advance one epoch and write the new learning rates into the param groups."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            _errors.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
                "1.1.0 and later, you should call them in the opposite order: "
                "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                "result in PyTorch skipping the first value of the learning rate schedule. See "
                "more details at "
                "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                UserWarning)
        if epoch is not None:
            _errors.warn(EPOCH_DEPRECATION_WARNING, UserWarning)
        self._step_count += 1
        try:
            self._update_lr(epoch)
        except Exception:
            self._step_count -= 1
            raise

    def _update_lr(self, epoch=None):
        """The lr computation of ``step`` (PyTorch's ``_update_lr``: SequentialLR calls it
        at a milestone, without step()'s counting and warnings). ``_get_lr_called_within_step``
        is True while ``get_lr`` runs (``get_lr()`` called from outside warns, as PyTorch)."""
        prev = self.last_epoch
        try:
            with within_step(self):
                if epoch is None:
                    self.last_epoch += 1
                    values = self.get_lr()
                else:
                    self.last_epoch = epoch
                    values = (self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr")
                              else self.get_lr())
        except Exception:
            # a step that raises (OneCycleLR past total_steps) changes nothing
            self.last_epoch = prev
            raise
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        get_lr = cls.__dict__.get("get_lr")
        if get_lr is not None and not getattr(get_lr, "_warns_outside_step", False):
            cls.get_lr = _warn_outside_step(get_lr)


@contextlib.contextmanager
def within_step(sched):
    """``get_lr`` calls inside it are a step's (PyTorch's ``_enable_get_lr_call``)."""
    sched._get_lr_called_within_step = True
    try:
        yield
    finally:
        sched._get_lr_called_within_step = False


def _warn_outside_step(get_lr):
    """``get_lr`` that warns when called from outside ``step`` (PyTorch's
    ``_warn_get_lr_called_within_step``: the value is the chainable form's, not the last lr)."""
    @functools.wraps(get_lr)
    def wrapper(self):
        if not self._get_lr_called_within_step:
            _errors.warn("To get the last learning rate computed by the scheduler, please use "
                         "`get_last_lr()`.", UserWarning)
        return get_lr(self)
    wrapper._warns_outside_step = True
    return wrapper


_LRScheduler = LRScheduler

LRScheduler.__module__ = "leafgrad.optim.lr_scheduler"      # where PyTorch's lives
