"""``foreach=True`` / ``fused=True``: the flat update (optim/_foreach.py) gives bit for bit
the per-parameter loop's parameters and state, and PyTorch's foreach / fused results
within float tolerance; PyTorch's flag errors; state_dict round trips."""
import copy

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad as lg
import leafgrad.optim as loptim

STEPS = 20
OPTIMS = {
    "SGD": dict(lr=st.sampled_from([0.1, 0.01]), momentum=st.sampled_from([0.0, 0.9]),
                dampening=st.sampled_from([0.0, 0.3]), weight_decay=st.sampled_from([0.0, 0.1]),
                nesterov=st.booleans(), maximize=st.booleans()),
    "Adam": dict(lr=st.sampled_from([0.1, 1e-3]), weight_decay=st.sampled_from([0.0, 0.1]),
                 amsgrad=st.booleans(), maximize=st.booleans(),
                 betas=st.sampled_from([(0.9, 0.999), (0.3, 0.5), (0.0, 0.0)])),
    "AdamW": dict(lr=st.sampled_from([0.1, 1e-3]), weight_decay=st.sampled_from([0.0, 0.1]),
                  amsgrad=st.booleans(), maximize=st.booleans(),
                  betas=st.sampled_from([(0.9, 0.999), (0.3, 0.5)])),
    "Adagrad": dict(lr=st.sampled_from([0.1, 0.01]), weight_decay=st.sampled_from([0.0, 0.1]),
                    lr_decay=st.sampled_from([0.0, 0.01]), maximize=st.booleans()),
    "RMSprop": dict(lr=st.sampled_from([0.01, 1e-3]), alpha=st.sampled_from([0.99, 0.5]),
                    weight_decay=st.sampled_from([0.0, 0.1]), momentum=st.sampled_from([0.0, 0.9]),
                    centered=st.booleans(), maximize=st.booleans()),
}
FUSED = ("SGD", "Adam", "AdamW", "Adagrad")     # the ones with fused=True in PyTorch 2.13


def _valid(name, kw):
    if name == "SGD" and kw["nesterov"]:
        kw["momentum"], kw["dampening"] = 0.9, 0.0
    return kw


shapes = st.lists(st.lists(st.integers(1, 4), max_size=3).map(tuple), min_size=1, max_size=6)


def _trajectory(lib, name, kw, shapes, dtype, seed, flags, drop):
    """STEPS steps of ``name`` on random parameters with random gradients (the gradient of
    parameter j is None at step i when (i, j) is in ``drop``); returns (params, optimizer)."""
    rng = np.random.default_rng(seed)
    params = [lib.tensor(rng.standard_normal(s).astype(dtype), requires_grad=True)
              for s in shapes]
    opt = getattr(lib.optim, name)(params, **kw, **flags)
    for i in range(STEPS):
        for j, p in enumerate(params):
            g = rng.standard_normal(p.shape).astype(dtype)
            p.grad = None if (i, j) in drop else lib.tensor(g)
        opt.step()
    return params, opt


def _state(opt):
    return {k: {n: np.array(v) if not hasattr(v, "numpy") else v.detach().numpy()
                for n, v in s.items()} for k, s in opt.state_dict()["state"].items()}


def _drops(n):
    return st.sets(st.tuples(st.integers(0, STEPS - 1), st.integers(0, max(n - 1, 0))),
                   max_size=8)


@pytest.mark.parametrize("name", sorted(OPTIMS))
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_flat_step_is_the_loop_bit_for_bit_and_torch_within_tolerance(name, data):
    kw = _valid(name, data.draw(st.fixed_dictionaries(OPTIMS[name])))
    shp = data.draw(shapes)
    drop = data.draw(_drops(len(shp)))
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    seed = data.draw(st.integers(0, 2 ** 16))
    loop_p, loop_o = _trajectory(lg, name, kw, shp, dtype, seed, {}, drop)
    flag_sets = [dict(foreach=True)] + ([dict(fused=True)] if name in FUSED else [])
    for flags in flag_sets:
        p, o = _trajectory(lg, name, kw, shp, dtype, seed, flags, drop)
        for a, b in zip(loop_p, p):
            assert np.array_equal(a.detach().numpy(), b.detach().numpy()), flags
        sa, sb = _state(loop_o), _state(o)
        assert sa.keys() == sb.keys()
        for k in sa:
            assert sa[k].keys() == sb[k].keys()
            for n in sa[k]:
                assert sa[k][n].dtype == sb[k][n].dtype
                assert np.array_equal(sa[k][n], sb[k][n]), (flags, k, n)
        tp, to = _trajectory(torch, name, kw, shp, dtype, seed, flags, drop)
        tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-9, atol=1e-11)
        for a, b in zip(tp, p):
            np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), **tol)
        st_t = _state(to)
        assert st_t.keys() == sb.keys()
        for k in st_t:
            assert st_t[k].keys() == sb[k].keys()
            for n in st_t[k]:
                np.testing.assert_allclose(sb[k][n], st_t[k][n], **tol)


@pytest.mark.parametrize("name", FUSED)
@pytest.mark.parametrize("kw", [dict(fused=True, foreach=True),
                                dict(fused=True, differentiable=True)])
def test_flag_errors_like_torch(name, kw):
    with pytest.raises(RuntimeError) as te:
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], lr=0.1, **kw)
    with pytest.raises(RuntimeError) as le:
        getattr(loptim, name)([lg.zeros(2, requires_grad=True)], lr=0.1, **kw)
    assert str(le.value).startswith(str(te.value))
    assert "Fix:" in str(le.value)


def _model_step(opt, params, rng):
    for p in params:
        p.grad = lg.tensor(rng.standard_normal(p.shape).astype(np.float32))
    opt.step()


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.1, momentum=0.9)),
                                     ("Adam", dict(lr=0.1, amsgrad=True)),
                                     ("AdamW", dict(lr=0.1)), ("Adagrad", dict(lr=0.1)),
                                     ("RMSprop", dict(lr=0.1, momentum=0.9, centered=True))])
def test_state_dict_round_trip_and_external_state_changes(name, kw):
    """load_state_dict, a state tensor replaced by the user, and a deepcopy all give the
    loop's results afterwards (the flat buffers are rebuilt, never stale)."""
    rng = np.random.default_rng(0)
    shapes = [(3, 2), (2,), (4,)]
    init = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    runs = []
    for flags in ({}, dict(foreach=True)):
        rng = np.random.default_rng(1)
        params = [lg.tensor(a.copy(), requires_grad=True) for a in init]
        opt = getattr(loptim, name)(params, **kw, **flags)
        for _ in range(3):
            _model_step(opt, params, rng)
        sd = copy.deepcopy(opt.state_dict())
        _model_step(opt, params, rng)
        opt.load_state_dict(sd)                 # back to the state of step 3
        _model_step(opt, params, rng)
        key = next(k for k in opt.state[params[0]] if k != "step")
        opt.state[params[0]][key] = opt.state[params[0]][key].clone() * 0.5
        _model_step(opt, params, rng)
        twin = copy.deepcopy(opt)
        _model_step(opt, params, rng)
        _model_step(twin, twin.param_groups[0]["params"], np.random.default_rng(2))
        runs.append(([p.detach().numpy().copy() for p in params], _state(opt), _state(twin)))
    (pa, sa, ta), (pb, sb, tb) = runs
    for a, b in zip(pa, pb):
        assert np.array_equal(a, b)
    for s, t in ((sa, sb), (ta, tb)):
        for k in s:
            for n in s[k]:
                assert np.array_equal(s[k][n], t[k][n]), (k, n)


def test_mixed_dtypes_and_steps_and_non_float_params():
    """Parameters of several dtypes, of several step counts (one joined late) and a
    complex one: each bucket gets its own scalars; complex ones take the loop."""
    runs = []
    for flags in ({}, dict(foreach=True)):
        rng = np.random.default_rng(0)
        params = [lg.tensor(rng.standard_normal(3).astype(np.float32), requires_grad=True),
                  lg.tensor(rng.standard_normal(2), requires_grad=True),
                  lg.tensor(rng.standard_normal(2).astype(np.float32), requires_grad=True),
                  lg.tensor((rng.standard_normal(2) + 1j).astype(np.complex64),
                            requires_grad=True)]
        opt = loptim.Adam(params, lr=0.1, **flags)
        for i in range(5):
            for j, p in enumerate(params):
                g = rng.standard_normal(p.shape).astype(p.detach().numpy().dtype)
                p.grad = None if (j == 2 and i < 2) else lg.tensor(g)
            opt.step()
        runs.append([p.detach().numpy().copy() for p in params])
    for a, b in zip(*runs):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_a_parameter_listed_twice_is_updated_twice_as_the_loop_does(name):
    runs = []
    for flags in ({}, dict(foreach=True)):
        a = lg.tensor([1.0, -2.0], requires_grad=True)
        b = lg.tensor([0.5], requires_grad=True)
        with pytest.warns(UserWarning, match="duplicate parameters"):
            opt = getattr(loptim, name)([a, b, a], lr=0.1, momentum=0.9, **flags) \
                if name != "Adam" else loptim.Adam([a, b, a], lr=0.1, **flags)
        for i in range(3):
            a.grad = lg.tensor([0.3 * i, 1.0])
            b.grad = lg.tensor([-1.0])
            opt.step()
        runs.append((a.detach().numpy().copy(), b.detach().numpy().copy()))
    for x, y in zip(*runs):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.05, momentum=0.9, weight_decay=1e-4)),
                                     ("Adam", dict(lr=1e-2)), ("AdamW", dict(lr=1e-2))])
def test_model_training_is_the_loop_bit_for_bit(name, kw):
    """A digits-like MLP trained 10 steps (backward through the engine, zero_grad between
    steps, two param groups, a saved and reloaded state dict and a torch.save round trip)
    gives the loop's losses, parameters and state exactly."""
    import io
    rng = np.random.default_rng(0)
    x = lg.tensor(rng.standard_normal((16, 8)).astype(np.float32))
    y = lg.tensor(rng.integers(0, 3, 16))
    runs = []
    for flags in ({}, dict(foreach=True), dict(fused=True)):
        lg.manual_seed(0)
        model = lg.nn.Sequential(lg.nn.Linear(8, 16), lg.nn.ReLU(), lg.nn.Linear(16, 3))
        groups = [{"params": model[0].parameters()},
                  {"params": model[2].parameters(), "lr": kw["lr"] / 2}]
        opt = getattr(loptim, name)(groups, **kw, **flags)
        losses = []
        for i in range(10):
            opt.zero_grad()
            loss = lg.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if i == 5:
                buf = io.BytesIO()
                lg.save(opt.state_dict(), buf)
                buf.seek(0)
                opt.load_state_dict(lg.load(buf))
        runs.append((losses, [p.detach().numpy().copy() for p in model.parameters()],
                     _state(opt)))
    for losses, params, state in runs[1:]:
        assert losses == runs[0][0]
        for a, b in zip(params, runs[0][1]):
            assert np.array_equal(a, b)
        for k in state:
            for n in state[k]:
                assert np.array_equal(state[k][n], runs[0][2][k][n])
