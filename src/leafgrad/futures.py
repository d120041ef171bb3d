"""``torch.futures``: a ``Future`` holding one result, for ``torch.jit.fork`` and user code.

``torch.Future`` is the base class (``_Future`` here: PyTorch's is in
``torch._C``) and ``torch.futures.Future`` (= ``torch.jit.Future``) its subclass, as in PyTorch. leafgrad runs
everything synchronously, so a ``Future`` is done as soon as its result or
exception is set; the methods and their errors follow PyTorch's ``torch.futures.Future``.
"""
__all__ = ["Future", "collect_all", "wait_all"]

_UNSET = object()


class _Future:
    """``torch.Future`` (what ``torch.jit.fork`` returns): a result
    that ``set_result``/``set_exception`` fill once; ``wait()`` returns it."""

    def __init__(self, *, devices=None):
        self._result = _UNSET
        self._exception = None
        self._callbacks = []

    def done(self):
        """True once a result or an exception is set."""
        return self._result is not _UNSET or self._exception is not None

    def wait(self):
        """The result; raises the stored exception. Unset: RuntimeError (nothing would set
        it: leafgrad has no other thread to wait for)."""
        if not self.done():
            raise RuntimeError(
                "Future.wait() on a Future that has no result: leafgrad runs synchronously, "
                "so nothing else will set it. Fix: call set_result() (or set_exception()) "
                "before wait().")
        return self.value()

    def value(self):
        if self._exception is not None:
            raise self._exception
        return self._result

    def then(self, callback):
        """A new Future holding ``callback(self)`` once this one is done."""
        fut = type(self)()

        def run(f):
            try:
                fut.set_result(callback(f))
            except Exception as exc:      # PyTorch stores the callback's error in the future
                fut.set_exception(exc)
        self.add_done_callback(run)
        return fut

    def add_done_callback(self, callback):
        if self.done():
            callback(self)
        else:
            self._callbacks.append(callback)

    def _finish(self):
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)

    def set_result(self, result):
        if self.done():
            raise RuntimeError("Error setting result: Future has already completed. Fix: "
                               "set a Future's result once.")
        self._result = result
        self._finish()

    def set_exception(self, result):
        if not isinstance(result, BaseException):
            raise TypeError("set_exception expects an Exception instance, got %s"
                            % type(result).__name__)
        self._exception = result
        self._finish()


class Future(_Future):
    """``torch.futures.Future`` (= ``torch.jit.Future``): PyTorch's Python subclass of
    ``torch.Future``."""


def collect_all(futures):
    """A Future whose result is the list of ``futures`` (all are done here already)."""
    fut = Future()
    fut.set_result(list(futures))
    return fut


def wait_all(futures):
    """The results of ``futures`` in order (the first stored exception is raised)."""
    return [f.wait() for f in futures]
