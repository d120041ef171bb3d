"""The op profiler behind ``torch.profiler.profile`` and ``torch.autograd.profiler.profile``.

While a profile is active, every public leafgrad function (``torch.X``,
``torch.nn.functional.X``), every Tensor method and operator, and every backward
node's rule run through a timing wrapper; outside a profile nothing is wrapped and
nothing costs anything. Events nest (an op called inside another is its child), so
each event has a total and a self time, as PyTorch's. Names follow PyTorch's:
``aten::mul`` for ops, ``autograd::engine::evaluate_function: MulBackward0`` for
backward nodes, the user's name for ``record_function`` blocks.
"""
import time
import types

_clock = time.perf_counter_ns

_OPERATORS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__rsub__": "rsub", "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul",
    "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "div", "__itruediv__": "div_",
    "__floordiv__": "floor_divide", "__rfloordiv__": "floor_divide", "__mod__": "remainder",
    "__rmod__": "remainder", "__pow__": "pow", "__rpow__": "pow", "__ipow__": "pow_",
    "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg", "__abs__": "abs",
    "__invert__": "bitwise_not", "__and__": "bitwise_and", "__or__": "bitwise_or",
    "__xor__": "bitwise_xor", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le",
    "__gt__": "gt", "__ge__": "ge", "__getitem__": "index", "__setitem__": "index_put_",
}
# methods that are bookkeeping, not ops (PyTorch records none of them)
_SKIP = {"backward", "register_hook", "retain_grad", "requires_grad_", "size", "dim",
         "numel", "tolist", "numpy", "item", "is_floating_point", "is_complex", "element_size",
         "nelement", "ndimension", "stride", "storage_offset", "is_contiguous", "data_ptr",
         "get_device", "is_shared", "untyped_storage", "zero_grad"}


class Event:
    """One timed call: ``name``, ``start_ns``, ``end_ns``, ``children_ns`` (time in nested
    events), ``input_shapes`` (with ``record_shapes``)."""
    __slots__ = ("name", "start_ns", "end_ns", "children_ns", "input_shapes", "parent")

    def __init__(self, name, start_ns, parent, input_shapes=None):
        self.name = name
        self.start_ns = start_ns
        self.end_ns = None
        self.children_ns = 0
        self.parent = parent
        self.input_shapes = input_shapes


class _Session:
    def __init__(self, record_shapes):
        self.events = []
        self.stack = []
        self.record_shapes = record_shapes

    def begin(self, name, args=()):
        shapes = None
        if self.record_shapes:
            shapes = [list(a.shape) if hasattr(a, "shape") and hasattr(a, "dtype") else []
                      for a in args]
        ev = Event(name, _clock(), self.stack[-1] if self.stack else None, shapes)
        self.stack.append(ev)
        return ev

    def end(self, ev):
        ev.end_ns = _clock()
        if self.stack and self.stack[-1] is ev:
            self.stack.pop()
        if ev.parent is not None:
            ev.parent.children_ns += ev.end_ns - ev.start_ns
        self.events.append(ev)


_active = []        # the sessions recording now (nested profiles all record)
_patched = []       # (owner, attribute, original) while wrapped


def _timed(fn, name, skip_self=False):
    def call(*args, **kwargs):
        if not _active:
            return fn(*args, **kwargs)
        shown = args[1:] if skip_self else args     # a node's rule: its gradients
        evs = [s.begin(name, shown) for s in _active]
        try:
            return fn(*args, **kwargs)
        finally:
            for s, ev in zip(list(_active), evs):
                s.end(ev)
    call.__name__ = getattr(fn, "__name__", name)
    call.__doc__ = getattr(fn, "__doc__", None)
    call.__wrapped__ = fn
    call._profiled = True
    return call


def _patch(owner, attr, fn, name, skip_self=False):
    if getattr(fn, "_profiled", False):
        return
    _patched.append((owner, attr, fn))
    setattr(owner, attr, _timed(fn, name, skip_self))


def _node_classes():
    from ..autograd.graph import Node
    seen, todo = set(), [Node]
    while todo:
        c = todo.pop()
        for sub in c.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    return seen


def _install():
    import leafgrad
    from .._tensor import tensor as _tensor
    from ..nn import functional as F
    for mod, prefix in ((leafgrad, "aten::"), (F, "aten::")):
        for name, value in list(vars(mod).items()):
            if name.startswith("_") or not isinstance(value, (types.FunctionType,
                                                              types.BuiltinFunctionType)):
                continue
            if not getattr(value, "__module__", "") or not value.__module__.startswith(
                    "leafgrad"):
                continue
            _patch(mod, name, value, prefix + name)
    T = _tensor.Tensor
    for name, value in list(vars(T).items()):
        if not isinstance(value, types.FunctionType):
            continue
        if name.startswith("__"):
            if name in _OPERATORS:
                _patch(T, name, value, "aten::" + _OPERATORS[name])
            continue
        if name.startswith("_") or name in _SKIP:
            continue
        _patch(T, name, value, "aten::" + name)
    for cls in _node_classes():
        for attr in ("backward", "np_backward"):
            fn = cls.__dict__.get(attr)
            if isinstance(fn, types.FunctionType):
                _patch(cls, attr, fn, "autograd::engine::evaluate_function: " + cls.__name__,
                       skip_self=True)


def _uninstall():
    while _patched:
        owner, attr, fn = _patched.pop()
        setattr(owner, attr, fn)


def start(record_shapes=False):
    session = _Session(record_shapes)
    if not _active:
        _install()
    _active.append(session)
    return session


def stop(session):
    if session in _active:
        _active.remove(session)
    if not _active:
        _uninstall()


def begin_range(name):
    """Open a user range (``record_function``) in every active profile."""
    return [(s, s.begin(name)) for s in _active]


def end_range(opened):
    for s, ev in opened:
        s.end(ev)
