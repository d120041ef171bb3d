"""``torch.utils.hooks``: the handle ``register_*_hook`` returns, and the markers for
hooks a checkpoint cannot carry.

``RemovableHandle`` behaves as PyTorch's (torch/utils/hooks.py): it holds weak
references to the hook dict (and to the extra dicts whose entry for the same id goes
with it), ids come from one counter shared by every handle, and it pickles with the
dicts it refers to. Libraries import it for type annotations and to remove hooks they
registered (torchinfo, torchmetrics).
"""
import warnings
import weakref
from collections import OrderedDict

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks", "BackwardHook"]


class RemovableHandle:
    """Removes the hook stored under ``self.id`` in ``hooks_dict`` (and in each of
    ``extra_dict``: a dict or a list of dicts) when ``remove()`` is called or its
    ``with`` block ends. Dicts already garbage-collected are skipped."""

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = [extra_dict] if isinstance(extra_dict, dict) else \
            list(extra_dict) if isinstance(extra_dict, list) else []
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(r() for r in self.extra_dict_ref))

    def __setstate__(self, state):
        # a dict that did not survive pickling leaves a dead reference
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extras = state[2] if len(state) > 2 and state[2] is not None else ()
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def unserializable_hook(f):
    """Decorator: marks ``f`` as a hook that is not saved with its tensor, which
    silences ``warn_if_has_hooks`` for it."""
    f.__torch_unserializable__ = True
    return f


def warn_if_has_hooks(tensor):
    """Warn once per hook of ``tensor`` that saving it drops the hook (unless the hook
    is marked with ``unserializable_hook``)."""
    for hook in (getattr(tensor, "_backward_hooks", None) or {}).values():
        if not getattr(hook, "__torch_unserializable__", False):
            warnings.warn("backward hook %r on tensor will not be serialized. If this is "
                          "expected, decorate the function with "
                          "@torch.utils.hooks.unserializable_hook to silence this warning"
                          % (hook,), stacklevel=2)


class BackwardHook:
    """PyTorch's helper that implements ``Module.register_full_backward_hook`` with
    autograd Functions. leafgrad's modules run full backward hooks themselves, so this
    class exists for imports only."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        raise NotImplementedError(
            "torch.utils.hooks.BackwardHook is PyTorch's internal machinery for full "
            "backward hooks; leafgrad runs them inside Module. Fix: use "
            "module.register_full_backward_hook(hook) instead of building a BackwardHook")


