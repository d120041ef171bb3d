"""``torch.nn.utils.prune``: masks that zero parts of a parameter (PyTorch's
``torch/nn/utils/prune.py``).

Pruning ``module.weight`` moves the parameter to ``weight_orig``, adds a buffer
``weight_mask`` and a forward pre-hook that sets ``module.weight = weight_orig *
weight_mask`` before each call; pruning again combines the new mask with the old one
(a :class:`PruningContainer`: unstructured methods only look at the entries still
kept). ``remove`` makes the pruning permanent. The selection rules are PyTorch's:
``amount`` is a count (int) or a fraction (float, rounded); L1 prunes the smallest
|w|; random draws ``rand_like`` scores and prunes the largest; Ln-structured keeps the
channels along ``dim`` with the largest Ln norm. Among equal scores the choice is
``topk``'s (PyTorch does not define it either).
"""
import numbers

from ..._tensor import creation as _creation
from ..._random import sampling as _random_ops
from ..._api import functions as _F
from ...autograd.grad_mode import no_grad

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


def _validate_amount(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError("Invalid type for amount: %s. Must be int or float." % amount)
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or
                                                          float(amount) < 0.0)):
        raise ValueError("amount=%s should either be a float in the range [0, 1] or a "
                         "non-negative integer" % amount)


def _validate_amount_vs_size(amount, size):
    if isinstance(amount, numbers.Integral) and amount > size:
        raise ValueError("amount=%s should be smaller than the number of parameters to prune=%s"
                         % (amount, size))


def _n_to_prune(amount, size):
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * size)


def _validate_dim(t, dim):
    if dim >= t.dim():
        raise IndexError("Invalid index %d for tensor of size %s" % (dim, t.shape))


class BasePruningMethod:
    """A pruning method: subclasses define ``compute_mask(t, default_mask)`` and
    ``PRUNING_TYPE`` ('unstructured', 'structured' or 'global')."""

    _tensor_name = None
    PRUNING_TYPE = "unstructured"

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    def compute_mask(self, t, default_mask):
        raise NotImplementedError("a pruning method defines compute_mask(t, default_mask)")

    def apply_mask(self, module):
        if self._tensor_name is None:
            raise AssertionError("Module %s has to be pruned" % module)
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return orig * mask.to(dtype=orig.dtype)

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)`` (combined with any
        pruning already there); returns the method (the hook)."""
        old = None
        found = 0
        for k, hook in list(module._forward_pre_hooks.items()):
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                old = hook
                del module._forward_pre_hooks[k]
                found += 1
        if found > 1:
            raise AssertionError("Avoid adding multiple pruning hooks to the same tensor %s of "
                                 "module %s. Use a PruningContainer." % (name, module))
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old is not None:
            container = old if isinstance(old, PruningContainer) else PruningContainer(old)
            container.add_pruning_method(method)
            method = container
        orig = getattr(module, name)
        scores = importance_scores if importance_scores is not None else orig
        if tuple(scores.shape) != tuple(orig.shape):
            raise AssertionError("importance_scores should have the same shape as parameter %s "
                                 "of %s" % (name, module))
        if old is None:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _creation.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            with no_grad():
                mask = method.compute_mask(scores.detach(), default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if old is None:   # bad input changes nothing: put the parameter back
                orig = module._parameters.pop(name + "_orig")
                module.register_parameter(name, orig)
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """The pruned copy of ``t`` (nothing registered)."""
        scores = importance_scores if importance_scores is not None else t
        mask = default_mask if default_mask is not None else _creation.ones_like(t)
        return t * self.compute_mask(scores, default_mask=mask)

    def remove(self, module):
        """Make the pruning permanent: ``<name>`` becomes a plain parameter again."""
        if self._tensor_name is None:
            raise AssertionError("Module %s has to be pruned before pruning can be removed"
                                 % module)
        with no_grad():
            weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters.pop(self._tensor_name + "_orig")
        with no_grad():
            orig.copy_(weight)
        del module._buffers[self._tensor_name + "_mask"]
        module.register_parameter(self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """Successive pruning methods on one tensor: each new mask only prunes what the
    earlier ones kept."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1 and not isinstance(args[0], (tuple, list)):
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for m in (args[0] if len(args) == 1 else args):
                self.add_pruning_method(m)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError("%s is not a BasePruningMethod subclass" % type(method))
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError("Can only add pruning methods acting on the parameter named '%s' "
                             "to PruningContainer %s. Found '%s'" % (self._tensor_name, self,
                                                                     method._tensor_name))
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        kind = method.PRUNING_TYPE
        new = default_mask.clone()
        if kind == "unstructured":
            keep = default_mask == 1
            partial = method.compute_mask(t[keep], default_mask=default_mask[keep])
            new[keep] = partial.to(dtype=new.dtype)
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need to have "
                                     "the attribute `dim` defined.")
            dim = method.dim if method.dim >= 0 else method.dim + t.dim()
            others = [d for d in range(t.dim()) if d != dim]
            alive = default_mask.sum(others) != 0 if others else default_mask != 0
            idx = _F.nonzero(alive).reshape(-1)
            sub_t = t.index_select(dim, idx)
            sub_m = default_mask.index_select(dim, idx)
            partial = method.compute_mask(sub_t, default_mask=sub_m)
            new = _index_copy(new, dim, idx, partial.to(dtype=new.dtype))
        elif kind == "global":
            new = method.compute_mask(t, default_mask=new)
        else:
            raise ValueError("Unrecognized PRUNING_TYPE %s" % kind)
        return new


def _index_copy(base, dim, idx, src):
    out = base.clone()
    key = [slice(None)] * base.dim()
    for j, i in enumerate(idx.tolist()):
        key[dim] = i
        sel = [slice(None)] * src.dim()
        sel[dim] = j
        out[tuple(key)] = src[tuple(sel)]
    return out


class Identity(BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


def _unstructured_mask(amount, t, default_mask, score, largest):
    """``default_mask`` with the ``amount`` entries of largest (or smallest) ``score(t)``
    set to 0."""
    size = t.numel()
    _validate_amount_vs_size(amount, size)
    k = _n_to_prune(amount, size)
    mask = default_mask.clone()
    if k != 0:
        top = _F.topk(score(t).reshape(-1), k=k, largest=largest)
        flat = mask.reshape(-1)
        flat[top.indices] = 0
    return mask


class RandomUnstructured(BasePruningMethod):
    """Prune ``amount`` entries chosen at random (the largest of ``rand_like`` scores)."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        return _unstructured_mask(self.amount, t, default_mask, _random_ops.rand_like, True)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prune the ``amount`` entries of smallest absolute value."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        return _unstructured_mask(self.amount, t, default_mask, lambda x: x.abs(), False)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _structured_mask(t, dim, keep_idx):
    mask = _creation.zeros_like(t)
    key = [slice(None)] * t.dim()
    key[dim] = keep_idx
    mask[tuple(key)] = 1
    return mask


class RandomStructured(BasePruningMethod):
    """Prune ``amount`` whole channels along ``dim`` at random."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_dim(t, self.dim)
        size = t.shape[self.dim]
        _validate_amount_vs_size(self.amount, size)
        k = _n_to_prune(self.amount, size)
        if k == 0:
            return default_mask
        prob = _random_ops.rand(size)
        threshold = _F.sort(prob)[0][k - 1]      # kthvalue(prob, k)
        channel = prob > threshold
        idx = _F.nonzero(channel).reshape(-1)
        return _structured_mask(t, self.dim, idx) * default_mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prune the ``amount`` channels along ``dim`` of smallest Ln norm (``n``: as ``norm``'s
    ``p``)."""
    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _validate_dim(t, self.dim)
        size = t.shape[self.dim]
        _validate_amount_vs_size(self.amount, size)
        k = _n_to_prune(self.amount, size)
        keep = size - k
        dim = self.dim if self.dim >= 0 else self.dim + t.dim()
        others = [d for d in range(t.dim()) if d != dim]
        norm = _F.norm(t, p=self.n, dim=others) if others else t.abs()
        top = _F.topk(norm, k=keep, largest=True)
        if k == 0:
            return default_mask
        return _structured_mask(t, dim, top.indices) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise AssertionError("the mask's shape %s differs from the tensor's %s"
                                 % (tuple(self.mask.shape), tuple(default_mask.shape)))
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """A mask of ones (pruning bookkeeping without pruning). Returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>``. Returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` smallest-|w| entries (or smallest ``importance_scores``)."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` channels along ``dim`` of smallest Ln norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune across several (module, name) pairs at once, ranking all their entries
    together (``pruning_method`` must be unstructured, e.g. ``L1Unstructured``).

    Raises:
        TypeError: ``parameters`` not an iterable of pairs; a structured method.
    """
    if not hasattr(parameters, "__iter__"):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = _F.cat([importance_scores.get((m, n), getattr(m, n)).detach().reshape(-1)
                     for m, n in parameters])
    default = _F.cat([getattr(m, n + "_mask", _creation.ones_like(getattr(m, n))).detach()
                      .reshape(-1) for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        'Found method %s of type %s' % (pruning_method, method.PRUNING_TYPE))
    container.add_pruning_method(method)
    final = container.compute_mask(scores, default)
    at = 0
    for m, n in parameters:
        p = getattr(m, n)
        k = p.numel()
        custom_from_mask(m, n, mask=final[at:at + k].reshape(p.shape))
        at += k


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent. Returns ``module``.

    Raises:
        ValueError: ``name`` is not pruned."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError("Parameter '%s' of module %s has to be pruned before pruning can be "
                     "removed" % (name, module))


def is_pruned(module):
    """Whether any submodule of ``module`` has a pruning hook."""
    for _, sub in module.named_modules():
        for hook in sub._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False
