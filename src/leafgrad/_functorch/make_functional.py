"""``make_functional`` / ``make_functional_with_buffers``: a stateless copy of a module
and its state as tuples (``torch._functorch.make_functional``).

The copy keeps shape-only ``meta`` placeholders where the parameters (buffers) were; a
call ``fmodel(params, [buffers,] *args)`` puts the given tensors in their places for the
duration of the call. Tied parameters (one tensor under several names) are returned once
and fill every name, as PyTorch.
"""
import copy

from .._api import functions as _functions
from ..func._module import _swap, check_models
from ..nn.modules.module import Module
from ..nn.parameter import Parameter


def _extract(mod, named, as_param):
    """Unique members (tensors, names) of ``mod`` and {first name: all names}; the
    members are replaced in ``mod`` by meta placeholders."""
    every = list(named(remove_duplicate=False))
    uniq = list(named(remove_duplicate=True))
    names_of = {id(t): [] for _, t in uniq}
    for name, t in every:
        names_of[id(t)].append(name)
    placeholder = {}
    for name, t in every:
        if id(t) not in placeholder:
            ph = t.detach().to("meta")
            placeholder[id(t)] = Parameter(ph, t.requires_grad) if as_param else ph
        _swap(mod, name, placeholder[id(t)])
    tensors = tuple(t for _, t in uniq)
    names = tuple(n for n, _ in uniq)
    return tensors, names, [names_of[id(t)] for t in tensors]


def _load(mod, groups, tensors):
    """Put ``tensors`` under each group's names; returns what was there."""
    old = []
    for names, t in zip(groups, tensors):
        for i, n in enumerate(names):
            store, leaf, prev = _swap(mod, n, t)
            if i == 0:
                old.append(prev)
    return old


def _check_count(got, groups, what):
    if len(got) != len(groups):
        raise RuntimeError("FunctionalModule: expected %d %s, got %d. Fix: pass the tuple "
                           "make_functional returned (in its order)" % (len(groups), what,
                                                                        len(got)))


class FunctionalModule(Module):
    """What :func:`make_functional` returns: ``fmodel(params, *args, **kwargs)``."""

    def __init__(self, stateless_model, param_names, names_map):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.names_map = names_map

    def forward(self, params, *args, **kwargs):
        params = tuple(params)
        _check_count(params, self.names_map, "parameters")
        old = _load(self.stateless_model, self.names_map, params)
        try:
            return self.stateless_model(*args, **kwargs)
        finally:
            _load(self.stateless_model, self.names_map, old)


class FunctionalModuleWithBuffers(Module):
    """What :func:`make_functional_with_buffers` returns:
    ``fmodel(params, buffers, *args, **kwargs)``."""

    def __init__(self, stateless_model, param_names, buffer_names, param_names_map,
                 buffer_names_map):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names
        self._groups = list(param_names_map) + list(buffer_names_map)
        self._n_params = len(param_names_map)

    def forward(self, params, buffers, *args, **kwargs):
        params, buffers = tuple(params), tuple(buffers)
        _check_count(params, self._groups[:self._n_params], "parameters")
        _check_count(buffers, self._groups[self._n_params:], "buffers")
        old = _load(self.stateless_model, self._groups, params + buffers)
        try:
            return self.stateless_model(*args, **kwargs)
        finally:
            _load(self.stateless_model, self._groups, old)


def make_functional(model, disable_autograd_tracking=False):
    """``(fmodel, params)``: a stateless copy of ``model`` and its parameters (the copy's
    own, so training them leaves ``model`` unchanged); ``fmodel(params, *args)`` runs the
    module with ``params``.

    Raises:
        RuntimeError: ``model`` has buffers (use :func:`make_functional_with_buffers`).
    """
    if any(True for _ in model.buffers()):
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    copied = copy.deepcopy(model)
    params, names, groups = _extract(copied, copied.named_parameters, True)
    if disable_autograd_tracking:
        for p in params:
            p.requires_grad_(False)
    return FunctionalModule(copied, names, groups), params


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """``(fmodel, params, buffers)``: as :func:`make_functional`, the buffers apart;
    ``fmodel(params, buffers, *args)``."""
    copied = copy.deepcopy(model)
    params, pnames, pgroups = _extract(copied, copied.named_parameters, True)
    buffers, bnames, bgroups = _extract(copied, copied.named_buffers, False)
    if disable_autograd_tracking:
        for p in params:
            p.requires_grad_(False)
    return FunctionalModuleWithBuffers(copied, pnames, bnames, pgroups, bgroups), params, buffers


def combine_state_for_ensemble(models):
    """``(fmodel, params, buffers)`` for ``vmap(fmodel, (0, 0, None))``: the functional
    form of ``models[0]`` and each parameter (buffer) of the models stacked along a new
    dim 0 (detached).

    Raises:
        RuntimeError: no models, models in different modes or of different classes.
    """
    models = check_models(models, "combine_state_for_ensemble")
    made = [make_functional_with_buffers(m) for m in models]
    params = tuple(_functions.stack(ts).detach() for ts in zip(*[m[1] for m in made]))
    buffers = tuple(_functions.stack(ts).detach() for ts in zip(*[m[2] for m in made]))
    return made[0][0], params, buffers
