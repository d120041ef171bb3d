"""Anomaly detection: ``detect_anomaly()`` / ``set_detect_anomaly(True)``.

While enabled, every recorded node keeps the traceback of the forward call
that created it; when its backward produces NaN, the error names the node
and shows that traceback (PyTorch's anomaly mode).
"""
import traceback

import numpy as np


__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]


class _State:
    enabled = False
    check_nan = True


def _on_record(node):
    stack = "".join(traceback.format_stack()[:-3])
    node._anomaly = _Checker(node, stack)


class _Checker:
    __slots__ = ("node", "stack")

    def __init__(self, node, stack):
        self.node, self.stack = node, stack

    def __call__(self, grads):
        if not _State.check_nan:
            return
        for i, g in enumerate(grads):
            if g is not None and np.isnan(g._data).any():
                raise RuntimeError(
                    "Function '%s' returned nan values in its %dth output. The forward call "
                    "that created it:\n%s\nFix: look for log/sqrt/division of zero or negative "
                    "values (or 0 * inf) in that line; torch.where does not stop NaN gradients "
                    "from the unselected branch - make the input safe first."
                    % (self.node.name(), i, self.stack))


def is_anomaly_enabled():
    return _State.enabled


def _set(mode, check_nan=True):
    _State.enabled = bool(mode)
    _State.check_nan = check_nan
    from ..ops import _dispatch
    _dispatch._anomaly_hook[0] = _on_record if mode else None


class set_detect_anomaly:
    """Turn anomaly detection on or off (also a context manager)."""

    def __init__(self, mode, check_nan=True):
        self.prev = (_State.enabled, _State.check_nan)
        _set(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(*self.prev)


class detect_anomaly:
    """Context manager (and decorator) enabling anomaly detection."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        import warnings
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)
        self.prev = (_State.enabled, _State.check_nan)
        _set(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _set(*self.prev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with self.__class__(self.check_nan):
                return fn(*a, **k)
        return wrapper
