"""Hooks on saved tensors: ``torch.autograd.graph.saved_tensors_hooks(pack, unpack)``,
``save_on_cpu``, ``disable_saved_tensors_hooks``, and the ``SavedTensor`` handle behind
``grad_fn._raw_saved_self.register_hooks(pack, unpack)``.

Inside ``saved_tensors_hooks(pack, unpack)``, every tensor an op saves for backward is
replaced by ``pack(tensor)`` (any object); the backward pass (or reading
``grad_fn._saved_self``) gets ``unpack(packed)`` back, each time it reads it, as in
PyTorch (https://pytorch.org/docs/stable/autograd.html#saved-tensors-hooks). The hooks
stack per thread; the innermost pair wins. A tensor given to the hooks is not checked
for later in-place changes (the hook decides what is kept).
"""
from _thread import _local as thread_local  # threading.local (importing threading: ~1.5 ms)

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "SavedTensor",
           "Packed", "pack_saved", "active"]

# Process-wide count of active hook pairs (one test per recorded op on the hot path);
# the pairs themselves are per thread.
active = [0]


class _Local(thread_local):
    stack = ()
    disabled = None


_local = _Local()


class Packed:
    """What an op saved while hooks were active: ``pack``'s result and its ``unpack``."""
    __slots__ = ("obj", "unpack")

    def __init__(self, obj, unpack):
        self.obj, self.unpack = obj, unpack

    def get(self):
        return self.unpack(self.obj)


def pack_saved(saved, tensor_cls):
    """``saved`` with each tensor packed by this thread's innermost hooks."""
    stack = _local.stack
    if not stack:
        return saved
    pack, unpack = stack[-1]
    # PyTorch's binary nodes save (and so pack) ``other`` before ``self`` (MulBackward0)
    order = range(len(saved) - 1, -1, -1) if len(saved) == 2 else range(len(saved))
    out = list(saved)
    for i in order:
        if isinstance(saved[i], tensor_cls):
            out[i] = Packed(pack(saved[i]), unpack)
    return tuple(out)


def unpack_all(saved):
    """``saved`` with each packed entry unpacked (``other`` before ``self``, as PyTorch)."""
    order = range(len(saved) - 1, -1, -1) if len(saved) == 2 else range(len(saved))
    out = list(saved)
    for i in order:
        if type(saved[i]) is Packed:
            out[i] = saved[i].get()
    return tuple(out)


class saved_tensors_hooks:
    """Context manager: ops inside it save ``pack_hook(tensor)`` and backward reads
    ``unpack_hook(packed)``.

    Raises:
        RuntimeError: entered inside ``disable_saved_tensors_hooks``.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _local.disabled is not None:
            raise RuntimeError(_local.disabled)
        _local.stack = _local.stack + ((self.pack_hook, self.unpack_hook),)
        active[0] += 1
        return self

    def __exit__(self, *exc):
        _local.stack = _local.stack[:-1]
        active[0] -= 1
        return False


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors on the CPU (``pin_memory`` accepted). leafgrad's tensors are
    always there, so packing is a copy-free pass-through."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: t, lambda t: t)


class disable_saved_tensors_hooks:
    """Inside this block, entering ``saved_tensors_hooks`` raises RuntimeError with
    ``error_message``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self._prev = _local.disabled
        _local.disabled = self.error_message
        return self

    def __exit__(self, *exc):
        _local.disabled = self._prev
        return False


class SavedTensor:
    """``grad_fn._raw_saved_<name>``: one saved tensor of a node, whose own hooks can be
    set once with ``register_hooks(pack_hook, unpack_hook)``."""

    def __init__(self, node, index):
        self._node, self._index = node, index

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack the saved tensor now; backward will read ``unpack_hook(packed)``.

        Raises:
            RuntimeError: hooks already set on it, or the graph was freed.
            TypeError: a hook that is not callable.
        """
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("register_hooks expects two callables (pack_hook, unpack_hook)")
        node = self._node
        saved = list(node._raw_saved() or ())
        if node._released:
            node._checked_saved     # raises the graph-freed error
        cur = saved[self._index]
        if isinstance(cur, Packed):
            raise RuntimeError("SavedTensor hooks have already been set on this SavedTensor. "
                               "Fix: register them once per saved tensor")
        saved[self._index] = Packed(pack_hook(cur), unpack_hook)
        node._saved = tuple(saved)

    def __repr__(self):
        return "<torch.autograd.graph.SavedTensor object at 0x%x>" % id(self)
