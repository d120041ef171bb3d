"""vmap's batching rules of func/_batching/ against torch.func.vmap: max / min
(full, over a dim with indices, elementwise), var / std (every overload), norms, tensor
indexing, gather / scatter / scatter_add, embedding (F.embedding, nn.Embedding, mapped
tables); values, shapes, dtypes and gradients (grad inside vmap), and that each ran
batched (one call of the function, not the per-sample loop)."""
import numpy as np
import pytest
import torch

import leafgrad
from test_vmap_batched import runs  # noqa: F401  (the 'batched' / 'loop' log fixture)


def _data(T):
    rng = np.random.default_rng(0)
    f = lambda *s: T.tensor(rng.standard_normal(s))     # noqa: E731  (float64)
    return dict(x=f(5, 3, 4), v=f(5, 6), w=f(7, 3), ws=f(5, 7, 3),
                i=T.tensor(rng.integers(0, 3, (5, 2, 4))), ii=T.tensor([2, 0, 1, 1]),
                ib=T.tensor(rng.integers(0, 7, (5, 4))), src=f(5, 2, 4))


def _cases(T):
    F, vmap, grad = T.nn.functional, T.func.vmap, T.func.grad
    d = _data(T)
    x, v, i, ii, ib = d["x"], d["v"], d["i"], d["ii"], d["ib"]
    emb = T.nn.Embedding(7, 3)
    with T.no_grad():
        emb.weight.copy_(d["w"])
    return {
        "max all": lambda: vmap(lambda a: a.max())(x),
        "max dim": lambda: tuple(vmap(lambda a: a.max(1))(x)),
        "max dim keepdim": lambda: tuple(vmap(lambda a: T.max(a, -1, keepdim=True))(x)),
        "min dim": lambda: tuple(vmap(lambda a: T.min(a, 0))(x)),
        "min all": lambda: vmap(lambda a: T.min(a))(x),
        "max other": lambda: vmap(lambda a: T.max(a, a * 0.5))(x),
        "max grad": lambda: vmap(grad(lambda a: a.max(1)[0].sum() + a.min()))(x),
        "var": lambda: vmap(lambda a: a.var())(x),
        "var dim": lambda: vmap(lambda a: a.var(1))(x),
        "var unbiased": lambda: vmap(lambda a: T.var(a, 0, False, True))(x),
        "var bool": lambda: vmap(lambda a: a.var(False))(x),
        "std correction": lambda: vmap(lambda a: a.std(dim=(0, 1), correction=0))(x),
        "std keepdim": lambda: vmap(lambda a: T.std(a, -1, keepdim=True))(x),
        "var no dof": lambda: vmap(lambda a: a.var(0, correction=3))(x),
        "var grad": lambda: vmap(grad(lambda a: a.var(0).sum() + a.std()))(x),
        "norm": lambda: vmap(lambda a: a.norm())(x),
        "norm p dim": lambda: vmap(lambda a: T.norm(a, 1, 1))(x),
        "vector_norm": lambda: vmap(lambda a: T.linalg.vector_norm(a, 3, -1, True))(x),
        "vector_norm all": lambda: vmap(lambda a: T.linalg.vector_norm(a))(x),
        "matrix_norm": lambda: vmap(lambda a: T.linalg.matrix_norm(a))(x),
        "matrix_norm ord": lambda: vmap(lambda a: T.linalg.matrix_norm(a, 1))(x),
        "linalg.norm": lambda: vmap(lambda a: T.linalg.norm(a))(x),
        "linalg.norm vec": lambda: vmap(lambda a: T.linalg.norm(a, dim=1))(x),
        "norm grad": lambda: vmap(grad(lambda a: T.linalg.vector_norm(a)))(v),
        "index tensor": lambda: vmap(lambda a: a[ii])(v),
        "index tensor 2": lambda: vmap(lambda a: a[:, ii[:3]])(x),
        "index batched": lambda: vmap(lambda a, k: a[k])(v, i[:, 0]),
        "index batched rows": lambda: vmap(lambda a, k: a[k, 1:])(x, i[:, :, 0]),
        "index grad": lambda: vmap(grad(lambda a: (a[ii] ** 2).sum()))(v),
        "gather": lambda: vmap(lambda a, k: a.gather(1, k))(x[:, :2], i),
        "gather unmapped index": lambda: vmap(lambda a: T.gather(a, 0, i[0]))(x),
        "scatter": lambda: vmap(lambda a, k, s: a.scatter(1, k, s))(x[:, :2], i, d["src"]),
        "scatter value": lambda: vmap(lambda a, k: T.scatter(a, 1, k, 2.5))(x[:, :2], i),
        "scatter_add": lambda: vmap(lambda a, k, s: a.scatter_add(1, k, s))(x[:, :2], i,
                                                                          d["src"]),
        "gather grad": lambda: vmap(grad(lambda a, k: a.gather(1, k).square().sum()))(
            x[:, :2], i),
        "embedding": lambda: vmap(lambda k: F.embedding(k, d["w"]))(ib),
        "embedding padding": lambda: vmap(lambda k: F.embedding(k, d["w"], padding_idx=0))(ib),
        "nn.Embedding": lambda: vmap(emb)(ib),
        "embedding tables": lambda: vmap(lambda k, w_: F.embedding(k, w_))(ib, d["ws"]),
        "index bool unbatched": lambda: vmap(lambda a: a[:, T.tensor([True, False, True, True])])(
            x),
        "embedding grad": lambda: vmap(grad(lambda w_, k: F.embedding(k, w_).sin().sum()),
                                       in_dims=(None, 0))(d["w"], ib),
    }


def _np(r):
    if isinstance(r, (tuple, list)):
        return [_np(e) for e in r]
    return r.detach().numpy()


@pytest.mark.parametrize("case", sorted(_cases(torch)))
def test_batched_rule_as_torch(case, runs):
    want = _np(_cases(torch)[case]())
    got = _np(_cases(leafgrad)[case]())
    want = want if isinstance(want, list) else [want]
    got = got if isinstance(got, list) else [got]
    assert len(want) == len(got)
    for a, b in zip(want, got):
        assert np.shape(a) == np.shape(b) and a.dtype == b.dtype
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)
    assert runs == ["batched"], runs


@pytest.mark.parametrize("call", [
    lambda T, x: T.func.vmap(lambda a: a[0, T.tensor([1, 0])])(x),     # int + tensor index
])
def test_calls_without_a_rule_loop_to_torch_values(call, runs):
    x = np.random.default_rng(2).standard_normal((3, 2, 3))
    a = call(torch, torch.tensor(x)).numpy()
    b = call(leafgrad, leafgrad.tensor(x)).numpy()
    np.testing.assert_allclose(b, a, rtol=1e-12, equal_nan=True)
    assert runs == ["loop"]


@pytest.mark.parametrize("call", [
    lambda T, x: T.func.vmap(lambda a: a[a > 0].sum())(x),
    lambda T, x: T.func.vmap(lambda a: T.nonzero(a))(x),
    lambda T, x: T.func.vmap(lambda a: a.nonzero())(x),
    lambda T, x: T.func.vmap(lambda a: T.masked_select(a, a > 0))(x),
])
def test_data_dependent_sizes_raise_as_torch(call):
    x = np.random.default_rng(2).standard_normal((3, 2, 3))
    msgs = []
    for T in (torch, leafgrad):
        with pytest.raises(RuntimeError) as e:
            call(T, T.tensor(x))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
