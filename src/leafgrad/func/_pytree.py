"""Flattening nested tuples / lists / dicts of values (PyTorch's pytrees, the part
torch.func uses): ``flatten(tree) -> (leaves, spec)``, ``unflatten(leaves, spec)``."""

_LEAF = None


def flatten(tree):
    """Leaves in order (dicts by insertion order) and a spec to rebuild ``tree``."""
    leaves = []
    spec = _flatten(tree, leaves)
    return leaves, spec


def _flatten(tree, leaves):
    # iterative would be overkill: pytrees are shallow (arguments of one call)
    if isinstance(tree, (tuple, list)):     # namedtuples too (rebuilt by field)
        return (type(tree), [_flatten(v, leaves) for v in tree])
    if isinstance(tree, dict):
        return (type(tree), list(tree.keys()), [_flatten(v, leaves) for v in tree.values()])
    leaves.append(tree)
    return _LEAF


def unflatten(leaves, spec):
    it = iter(leaves)
    return _unflatten(it, spec)


def _unflatten(it, spec):
    if spec is _LEAF:
        return next(it)
    kind = spec[0]
    if issubclass(kind, dict):
        return kind(zip(spec[1], (_unflatten(it, s) for s in spec[2])))
    items = [_unflatten(it, s) for s in spec[1]]
    if hasattr(kind, "_fields"):
        return kind(*items)
    return kind(items)


def broadcast_prefix(prefix, tree, what):
    """``prefix`` (an int/None, or a tree matching the top of ``tree``) for each leaf."""
    if not isinstance(prefix, (tuple, list, dict)):
        return [prefix] * len(flatten(tree)[0])
    if isinstance(prefix, dict):
        if not isinstance(tree, dict) or set(prefix) != set(tree):
            raise ValueError("%s: the structure of in_dims does not match the inputs" % what)
        out = []
        for k in tree:
            out.extend(broadcast_prefix(prefix[k], tree[k], what))
        return out
    if not isinstance(tree, (tuple, list)) or len(prefix) != len(tree):
        raise ValueError("%s: in_dims is not compatible with the structure of `inputs`. in_dims "
                         "has structure %r but inputs has structure %r." % (what, prefix, tree))
    out = []
    for p, t in zip(prefix, tree):
        out.extend(broadcast_prefix(p, t, what))
    return out
