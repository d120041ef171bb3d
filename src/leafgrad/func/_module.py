"""``functional_call`` and ``stack_module_state``: calling a module with other tensors in
place of its parameters and buffers (source: torch/_functorch/functional_call.py)."""


def _swap(module, name, value):
    """Put ``value`` in place of ``module``'s parameter or buffer ``name`` (dotted);
    returns how to undo it, or None when ``name`` names neither."""
    *path, leaf = name.split(".")
    mod = module
    for p in path:
        mod = mod._modules.get(p)
        if mod is None:
            return None
    for store in (mod._parameters, mod._buffers):
        if leaf in store:
            old = store[leaf]
            store[leaf] = value
            return store, leaf, old
    return None


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the given tensors in place of its parameters and
    buffers (one dict, or a tuple of dicts with distinct keys), put back afterwards (also
    when the call raises).

    Raises:
        RuntimeError: ``strict=True`` and keys are missing or unexpected; a key given in two
            dicts. (Without ``strict``, unknown keys are ignored, as in PyTorch.)
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = dict(parameter_and_buffer_dicts)
    else:
        merged = {}
        for d in parameter_and_buffer_dicts:
            for k, v in d.items():
                if k in merged:
                    raise ValueError("%s appeared in multiple dictionaries; behavior of "
                                     "functional call is ambiguous" % repr(k))
                merged[k] = v
    if strict:
        own = [n for n, _ in module.named_parameters()] + [n for n, _ in module.named_buffers()]
        missing = [k for k in own if k not in merged]
        unexpected = [k for k in merged if k not in own]
        if missing or unexpected:
            msg = "Error(s) in reparametrizing for %s:" % type(module).__name__
            if unexpected:
                msg += "\n\tUnexpected key(s): %s." % ", ".join(repr(k) for k in unexpected)
            if missing:
                msg += "\n\tMissing key(s): %s." % ", ".join(repr(k) for k in missing)
            raise RuntimeError(msg)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    undo = []
    try:
        for k, v in merged.items():
            u = _swap(module, k, v)
            if u is not None:
                undo.append(u)
        return module(*args, **(kwargs or {}))
    finally:
        for store, leaf, old in reversed(undo):
            store[leaf] = old


def check_models(models, api):
    """``models`` as a list, after PyTorch's checks for stacking them (``api`` names the
    caller in the messages)."""
    models = list(models)
    if not models:
        raise RuntimeError("%s: Expected at least one model, got 0." % api)
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("%s: Expected all models to have the same training/eval mode." % api)
    if any(type(m) is not type(models[0]) for m in models):
        raise RuntimeError("%s: Expected all models to be of the same class." % api)
    return models


def stack_module_state(models):
    """``(params, buffers)``: each named parameter (buffer) of the same-architecture
    ``models`` stacked along a new leading dim; stacked parameters are new leaves that
    require grad when the originals do.

    Raises:
        RuntimeError: no models, models of different classes or in different modes.
    """
    from .._api import functions as _functions
    models = check_models(models, "stack_module_state")

    def stacked(named):
        out = {}
        for k in named[0]:
            ts = [n[k] for n in named]
            s = _functions.stack([t.detach() for t in ts])
            out[k] = s.requires_grad_(True) if any(t.requires_grad for t in ts) else s
        return out

    params = stacked([dict(m.named_parameters()) for m in models])
    buffers = stacked([dict(m.named_buffers()) for m in models])
    return params, buffers
