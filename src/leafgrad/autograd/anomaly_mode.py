"""Anomaly detection: ``detect_anomaly()`` / ``set_detect_anomaly(True)``.

While enabled, every recorded node keeps the traceback of the forward call
that created it. When its backward fails, or (with ``check_nan``) returns
NaN, leafgrad warns ``Error detected in <Node>. Traceback of forward call
that caused the error: ...`` (a UserWarning, as PyTorch) and the NaN error
names the node, shows that traceback and says what to look for.
"""

import os

import numpy as np

from .._core import errors as _errors

_PKG_DIR = _errors._PKG_DIR          # leafgrad/ itself, with a trailing separator

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


class _State:
    enabled = False
    check_nan = True


def _forward_stack():
    """The user's part of the current stack (leafgrad's own frames dropped)."""
    import traceback                   # here: the module costs ~1 ms of `import leafgrad`
    # by the package's real folder: a user's script in a folder named "leafgrad" (or this
    # repository, cloned under its name) keeps its frames
    frames = [f for f in traceback.extract_stack()[:-2]
              if not os.path.abspath(f.filename).startswith(_PKG_DIR)]
    return "".join(traceback.format_list(frames))


# read by ops/_dispatch.record for every recorded node: the callable to run on
# it as hook(node, outputs) (anomaly mode keeps the forward traceback;
# utils.viz.record the values), or None
record_hook = [None]


def _on_record(node, outputs=None):
    node._anomaly = _Checker(node, _forward_stack())


class _Checker:
    """Kept on a node while anomaly mode is on (``node._anomaly``)."""

    __slots__ = ("node", "stack")

    def __init__(self, node, stack):
        self.node, self.stack = node, stack

    def _warn(self):
        if self.stack is None:
            what = ("No forward pass information available. Enable detect anomaly during "
                    "forward pass for more information.")
        else:
            what = "Traceback of forward call that caused the error:\n" + self.stack
        _errors.warn("Error detected in %s. %s" % (self.node.name(), what), UserWarning)

    def run(self, grads):
        try:
            return self.node.backward(*grads)
        except Exception:
            self._warn()
            raise

    def check(self, grads):
        if not _State.check_nan:
            return
        for i, g in enumerate(grads):
            if g is not None and g._data.dtype.kind in "fc" and np.isnan(g._data).any():
                self._warn()
                raise RuntimeError(
                    "Function '%s' returned nan values in its %dth output. %sFix: look in that "
                    "forward code for log/sqrt/pow of zero or negative "
                    "values, 0/0, inf - inf or 0 * inf; torch.where does not stop NaN gradients "
                    "from the branch it did not select, so make that input safe first (e.g. "
                    "x.clamp(min=1e-12))." % (
                        self.node.name(), i,
                        "The forward call that created it:\n" + self.stack if self.stack
                        is not None else "It was recorded outside anomaly mode, so its forward "
                        "line is unknown: enable anomaly mode around the forward pass too to "
                        "see it. "))


def is_anomaly_enabled():
    """True while anomaly detection is on."""
    return _State.enabled


def is_anomaly_check_nan_enabled():
    return _State.check_nan


def _set(mode, check_nan=True):
    _State.enabled = bool(mode)
    _State.check_nan = check_nan
    record_hook[0] = _on_record if mode else None


class set_detect_anomaly:
    """``set_detect_anomaly(mode, check_nan=True)``: turn anomaly detection on or
    off now; as a context manager, restore the previous setting on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = (_State.enabled, _State.check_nan)
        _set(mode, check_nan)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        _set(*self.prev)

    def __repr__(self):
        return "torch.autograd.anomaly_mode.set_detect_anomaly(mode=%s, check_nan=%s)" % (
            _State.enabled, _State.check_nan)


class detect_anomaly:
    """Context manager (and decorator) enabling anomaly detection.

    Example::

        with torch.autograd.detect_anomaly():
            loss.backward()   # a NaN gradient raises, naming the op and its forward line
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        _errors.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                     "and should only be enabled for debugging.", UserWarning)

    def __enter__(self):
        self.prev = (_State.enabled, _State.check_nan)
        _set(True, self.check_nan)
        return None

    def __exit__(self, *exc):
        _set(*self.prev)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with self:
                return fn(*a, **k)
        return wrapper

