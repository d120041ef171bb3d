"""nn.utils.prune against real PyTorch: masks, weight_orig/weight_mask, hooks, iterative
pruning (PruningContainer), global pruning, remove, errors. Inputs have distinct
magnitudes (ties are topk's implementation-defined choice)."""
import numpy as np
import pytest
import torch
import torch.nn.utils.prune  # noqa: F401  (not imported by torch.nn.utils itself)

import leafgrad
from _outcome import builtin_name


def conv(T):
    m = T.nn.Conv2d(2, 3, 2)
    rng = np.random.default_rng(0)
    w = rng.permutation(24).reshape(3, 2, 2, 2) / 10 - 1.15      # distinct |w|
    with T.no_grad():
        m.weight.copy_(T.tensor(w, dtype=T.float32))
        m.bias.copy_(T.tensor([0.3, -0.1, 0.2]))
    return m


def scaled(T):
    """conv's weights times 1.013: no |w| equal to one of conv's (no ties across modules)."""
    m = conv(T)
    with T.no_grad():
        m.weight.mul_(1.013)
    return m


def state(T, m):
    x = T.tensor(np.linspace(-1, 1, 2 * 2 * 3 * 3, dtype=np.float32).reshape(2, 2, 3, 3))
    y = m(x)
    y.sum().backward()
    return ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()],
            {k: v.numpy().round(5).tolist() for k, v in m.state_dict().items()},
            y.detach().numpy().round(5).tolist(),
            {n: p.grad.numpy().round(4).tolist() for n, p in m.named_parameters()},
            leafgrad.nn.utils.prune.is_pruned(m) if T is leafgrad else T.nn.utils.prune.is_pruned(m))


def run(case):
    out = []
    for T in (leafgrad, torch):
        try:
            out.append(case(T))
        except Exception as e:      # noqa: BLE001 - compared with torch
            out.append(("raise", builtin_name(type(e))))
    return out


P = lambda T: T.nn.utils.prune   # noqa: E731

CASES = {
    "l1 float": lambda T: state(T, P(T).l1_unstructured(conv(T), "weight", amount=0.3)),
    "l1 int on bias": lambda T: state(T, P(T).l1_unstructured(conv(T), "bias", amount=1)),
    "ln structured": lambda T: state(T, P(T).ln_structured(conv(T), "weight", amount=0.5, n=2,
                                                           dim=0)),
    "ln structured dim 1 L1": lambda T: state(T, P(T).ln_structured(conv(T), "weight", amount=1,
                                                                    n=1, dim=1)),
    "iterative": lambda T: state(T, P(T).ln_structured(P(T).l1_unstructured(
        conv(T), "weight", amount=0.25), "weight", amount=1, n=2, dim=0)),
    "l1 twice": lambda T: state(T, P(T).l1_unstructured(P(T).l1_unstructured(
        conv(T), "weight", amount=5), "weight", amount=5)),
    "custom mask": lambda T: state(T, P(T).custom_from_mask(conv(T), "bias", T.tensor([1., 0., 1.]))),
    "identity": lambda T: state(T, P(T).identity(conv(T), "weight")),
    "remove": lambda T: state(T, P(T).remove(P(T).l1_unstructured(conv(T), "weight", amount=0.5),
                                            "weight")),
    "remove unpruned": lambda T: P(T).remove(conv(T), "weight"),
    "amount too big": lambda T: P(T).l1_unstructured(conv(T), "bias", amount=5),
    "amount negative": lambda T: P(T).l1_unstructured(conv(T), "bias", amount=-1),
    "amount float > 1": lambda T: P(T).l1_unstructured(conv(T), "bias", amount=1.5),
    "bad dim": lambda T: P(T).ln_structured(conv(T), "weight", amount=1, n=2, dim=5),
    "global": lambda T: (lambda a, b: (P(T).global_unstructured(
        [(a, "weight"), (b, "weight")], pruning_method=P(T).L1Unstructured, amount=10),
        state(T, a), state(T, b))[1:])(conv(T), scaled(T)),
    "global structured refused": lambda T: P(T).global_unstructured(
        [(conv(T), "weight")], pruning_method=P(T).RandomStructured, amount=1),
    "hook names": lambda T: (lambda m: [type(h).__name__ for h in m._forward_pre_hooks.values()]
                             + [len(list(m._forward_pre_hooks.values())[0])])(
        P(T).l1_unstructured(P(T).l1_unstructured(conv(T), "weight", amount=2), "weight",
                             amount=2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_like_torch(name):
    a, b = run(CASES[name])
    assert a == b


def test_bad_amount_changes_nothing():
    m = conv(leafgrad)
    before = sorted(m.state_dict())
    with pytest.raises(ValueError):
        leafgrad.nn.utils.prune.l1_unstructured(m, "bias", amount=7)
    assert sorted(m.state_dict()) == before and not leafgrad.nn.utils.prune.is_pruned(m)


def test_random_unstructured_prunes_the_right_count():
    m = leafgrad.nn.utils.prune.random_unstructured(conv(leafgrad), "weight", amount=0.25)
    assert int((m.weight_mask == 0).sum()) == 6
    assert bool(((m.weight == 0) == (m.weight_mask == 0)).all())
    m = leafgrad.nn.utils.prune.random_structured(conv(leafgrad), "weight", amount=1, dim=0)
    zero_channels = (m.weight_mask.reshape(3, -1).sum(1) == 0).sum()
    assert int(zero_channels) == 1
