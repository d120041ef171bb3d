"""Rprop, ASGD, Adafactor, SparseAdam and utils.data.DistributedSampler against real PyTorch:
trajectories on a quadratic (parameters and every state tensor after each step), state_dict
round trips (leafgrad's own and a torch-saved one), defaults, param_groups, validation
errors, and DistributedSampler's indices one for one."""
import copy
import io

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import leafgrad as lg

SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4), (7, 1)]


def _arr(v):
    return v.detach().numpy() if isinstance(v, (torch.Tensor, lg.Tensor)) else np.asarray(v)


def _close(a, b, what, rtol):
    a, b = _arr(a), _arr(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (what, a.dtype, b.dtype, a.shape, b.shape)
    if a.dtype == np.float32:
        rtol = max(rtol, 1e-6)      # float32 state (step, eta, mu) beside float64 parameters
    # relative to the tensor's scale: an entry near zero after cancellation keeps the
    # absolute rounding error of its neighbours
    scale = float(np.abs(b).max()) if b.size else 0.0
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * max(scale, 1e-2), err_msg=what)


def _same_state(lopt, topt, rtol):
    lsd, tsd = lopt.state_dict(), topt.state_dict()
    assert lsd["param_groups"] == tsd["param_groups"]
    assert sorted(lsd["state"]) == sorted(tsd["state"])
    for k, tstate in tsd["state"].items():
        assert list(lsd["state"][k]) == list(tstate), k       # keys, in PyTorch's order
        for key, v in tstate.items():
            _close(lsd["state"][k][key], v, "state %d %s" % (k, key), rtol)


def _run(name, kwargs, shapes, dtype, steps, seed, rtol, groups=False):
    """Both libraries' optimizers over the same quadratic: each step's gradient is
    2 c (p - target) with a fresh noisy target; parameters and state compared each step."""
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    tps = [torch.nn.Parameter(torch.tensor(a)) for a in init]
    lps = [lg.nn.Parameter(lg.tensor(a)) for a in init]
    if groups and len(shapes) > 1:
        tps_, lps_ = [{"params": tps[:1]}, {"params": tps[1:], "lr": 0.05}], \
            [{"params": lps[:1]}, {"params": lps[1:], "lr": 0.05}]
    else:
        tps_, lps_ = tps, lps
    topt, lopt = getattr(torch.optim, name)(tps_, **kwargs), getattr(lg.optim, name)(lps_, **kwargs)
    targets = [rng.standard_normal(s).astype(dtype) for s in shapes]
    for _ in range(steps):
        step_targets = [t + 0.1 * rng.standard_normal(t.shape).astype(dtype) for t in targets]
        for ps, opt, T in ((tps, topt, torch), (lps, lopt, lg)):
            opt.zero_grad()
            sum(((p - T.tensor(t)) ** 2).sum() for p, t in zip(ps, step_targets)).backward()
            opt.step()
        for i, (lp, tp) in enumerate(zip(lps, tps)):
            _close(lp, tp, "param %d" % i, rtol)
        _same_state(lopt, topt, rtol)
    return tps, lps, topt, lopt


def _rprop(d):
    return dict(lr=d(st.sampled_from([0.01, 0.1])),
                etas=(d(st.sampled_from([0.5, 0.3])), d(st.sampled_from([1.2, 1.5]))),
                step_sizes=(d(st.sampled_from([1e-6, 1e-3])), d(st.sampled_from([50.0, 0.05]))))


def _asgd(d):
    return dict(lr=d(st.sampled_from([0.01, 0.1])), lambd=d(st.sampled_from([1e-4, 0.1])),
                alpha=d(st.sampled_from([0.75, 0.5])), t0=d(st.sampled_from([1e6, 3.0])),
                weight_decay=d(st.sampled_from([0.0, 0.1])))


def _adafactor(d):
    # lr=1: rho = min(lr, 1/sqrt(t)) takes the 1/sqrt(t) side
    return dict(lr=d(st.sampled_from([0.01, 0.1, 1.0])), beta2_decay=d(st.sampled_from([-0.8, -0.5])),
                eps=(d(st.sampled_from([None, 1e-6])), d(st.sampled_from([1e-3, 1e-2]))),
                d=d(st.sampled_from([1.0, 2.0])), weight_decay=d(st.sampled_from([0.0, 0.1])))


SAMPLERS = {"Rprop": _rprop, "ASGD": _asgd, "Adafactor": _adafactor}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_trajectory_and_state_match_torch(name, data):
    d = data.draw
    kwargs = SAMPLERS[name](d)
    kwargs["maximize"] = d(st.booleans())
    # foreach=True is PyTorch's multi-tensor path: other roundings, so a looser tolerance
    kwargs["foreach"] = d(st.sampled_from([None, False, True]))
    shapes = d(st.lists(st.sampled_from(SHAPES), min_size=1, max_size=3))
    dtype = d(st.sampled_from(["float32", "float64"]))
    if dtype == "float64":
        # foreach=True: ASGD's eta is a float32 pow there (Sleef's last bit)
        rtol = 1e-12 if not kwargs["foreach"] else 1e-6
    else:
        rtol = 1e-5 if name == "Adafactor" or kwargs["foreach"] else 1e-6
    if kwargs["maximize"]:
        rtol *= 10      # the quadratic is maximised: values grow, and so do the differences
    _run(name, kwargs, shapes, dtype, d(st.integers(15, 30)), d(st.integers(0, 2 ** 16)),
         rtol, groups=d(st.booleans()))


def test_rprop_and_asgd_single_tensor_path_is_bit_exact():
    # PyTorch's add(alpha=) is a fused multiply-add on CPU: leafgrad rounds once too
    for name, kw in (("Rprop", dict(lr=0.1)), ("ASGD", dict(lr=0.1, t0=3.0, weight_decay=0.1,
                                                           lambd=0.1))):
        tps, lps, _, _ = _run(name, kw, [(40,), (3, 4)], "float32", 20, 3, 1e-6)
        for lp, tp in zip(lps, tps):
            np.testing.assert_array_equal(_arr(lp), _arr(tp))


def test_adafactor_factored_state_shapes_and_names():
    tps, lps, topt, lopt = _run("Adafactor", {}, [(2, 3, 4), (5,), ()], "float32", 3, 0, 1e-5)
    for lp, tp in zip(lps, tps):
        assert {k: tuple(v.shape) for k, v in lopt.state[lp].items()} == \
            {k: tuple(v.shape) for k, v in topt.state[tp].items()}
    assert set(lopt.state[lps[0]]) == {"step", "row_var", "col_var"}
    assert tuple(lopt.state[lps[0]]["row_var"].shape) == (2, 3, 1)
    assert tuple(lopt.state[lps[0]]["col_var"].shape) == (2, 1, 4)
    assert set(lopt.state[lps[1]]) == {"step", "variance"}


@pytest.mark.parametrize("name,kwargs", [
    ("Rprop", dict(lr=0.05, etas=(0.4, 1.3))), ("ASGD", dict(lr=0.05, t0=4.0)),
    ("Adafactor", dict(lr=0.05, weight_decay=0.1)), ("SparseAdam", dict(lr=0.01))])
def test_defaults_and_param_groups_match_torch(name, kwargs):
    for kw in ({}, kwargs):
        lo = getattr(lg.optim, name)([lg.nn.Parameter(lg.ones(2))], **kw)
        to = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], **kw)
        assert lo.defaults == to.defaults
        assert list(lo.defaults) == list(to.defaults)
        assert [{k: v for k, v in g.items() if k != "params"} for g in lo.param_groups] == \
            [{k: v for k, v in g.items() if k != "params"} for g in to.param_groups]
        assert repr(lo).replace("leafgrad", "torch") == repr(to)


def test_names_and_module_paths_as_torch():
    for name, mod in (("Rprop", "rprop"), ("ASGD", "asgd"), ("Adafactor", "_adafactor"),
                      ("SparseAdam", "sparse_adam")):
        assert name in lg.optim.__all__ and name in torch.optim.__all__
        assert getattr(getattr(lg.optim, mod), name) is getattr(lg.optim, name)
    assert lg.optim.Adafactor.__module__ == "leafgrad.optim"     # torch: "torch.optim"
    assert "DistributedSampler" in lg.utils.data.__all__
    assert lg.utils.data.distributed.DistributedSampler is lg.utils.data.DistributedSampler


def _save_load_continue(name, kwargs, steps=6):
    """Train both, save torch's state_dict with torch.save, load it with leafgrad.load into
    a fresh leafgrad optimizer (and leafgrad's own state_dict into another): all continue
    as torch does."""
    tps, lps, topt, lopt = _run(name, kwargs, [(3, 4), (5,)], "float32", steps, 1, 1e-5)
    buf = io.BytesIO()
    torch.save(topt.state_dict(), buf)
    buf.seek(0)
    from_torch = lg.load(buf)
    outs = []
    for sd in (from_torch, copy.deepcopy(lopt.state_dict())):
        ps = [lg.nn.Parameter(lg.tensor(_arr(p).copy())) for p in lps]
        opt = getattr(lg.optim, name)(ps)
        opt.load_state_dict(sd)
        assert opt.param_groups[0]["lr"] == kwargs["lr"]
        outs.append((ps, opt))
    rng = np.random.default_rng(9)
    for _ in range(4):
        gs = [rng.standard_normal(p.shape).astype(np.float32) for p in tps]
        for p, g in zip(tps, gs):
            p.grad = torch.tensor(g)
        topt.step()
        for ps, opt in outs:
            for p, g in zip(ps, gs):
                p.grad = lg.tensor(g)
            opt.step()
            for lp, tp in zip(ps, tps):
                _close(lp, tp, name, 1e-5)
            _same_state(opt, topt, 1e-5)


@pytest.mark.parametrize("name,kwargs", [
    ("Rprop", dict(lr=0.05)), ("ASGD", dict(lr=0.05, t0=2.0)),
    ("Adafactor", dict(lr=0.05, weight_decay=0.1))])
def test_state_dict_round_trip_and_torch_saved_state_dict(name, kwargs):
    _save_load_continue(name, kwargs)


def test_asgd_state_after_a_float64_load_keeps_float64_eta_and_mu():
    out = []
    for T in (torch, lg):
        p = T.nn.Parameter(T.ones(3, dtype=T.float64))
        o = T.optim.ASGD([p], t0=1.0)
        p.grad = T.ones(3, dtype=T.float64)
        o.step()
        o2 = T.optim.ASGD([p], t0=1.0)
        o2.load_state_dict(o.state_dict())
        o2.step()
        out.append({k: (str(v.dtype).split(".")[-1], _arr(v).tolist())
                    for k, v in o2.state[p].items()})
    assert out[0] == out[1]


BAD = [
    ("Rprop", dict(lr=-1.0)), ("Rprop", dict(etas=(1.5, 1.2))), ("Rprop", dict(etas=(0.5, 0.9))),
    ("Rprop", dict(etas=(0.0, 1.2))), ("Rprop", dict(lr=lg.ones(2))),
    ("ASGD", dict(lr=-0.1)), ("ASGD", dict(weight_decay=-1.0)),
    ("Adafactor", dict(lr=-1.0)), ("Adafactor", dict(beta2_decay=0.1)),
    ("Adafactor", dict(eps=(-1.0, 1e-3))), ("Adafactor", dict(eps=(None, -1.0))),
    ("Adafactor", dict(d=0.5)), ("Adafactor", dict(weight_decay=-0.1)),
    ("SparseAdam", dict(lr=0.0)), ("SparseAdam", dict(eps=0.0)),
    ("SparseAdam", dict(betas=(1.0, 0.9))), ("SparseAdam", dict(betas=(0.9, -0.1))),
    ("SparseAdam", dict(betas=(0.9,))), ("ASGD", dict(lr="x")), ("Rprop", dict(lr=None)),
]


def _to_torch(v):
    return torch.tensor(_arr(v)) if isinstance(v, lg.Tensor) else v


@pytest.mark.parametrize("name,kwargs", BAD)
def test_constructor_errors_as_torch(name, kwargs):
    with pytest.raises(Exception) as te:
        getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))],
                                   **{k: _to_torch(v) for k, v in kwargs.items()})
    with pytest.raises(type(te.value)) as le:
        getattr(lg.optim, name)([lg.nn.Parameter(lg.ones(2))], **kwargs)
    if type(te.value) is ValueError:
        assert str(le.value) == str(te.value)


def test_asgd_unchecked_hyperparameters_fail_at_step_as_torch():
    # PyTorch checks only lr and weight_decay in ASGD's constructor
    for T in (torch, lg):
        p = T.nn.Parameter(T.ones(2))
        o = T.optim.ASGD([p], lambd="x")
        p.grad = T.ones(2)
        with pytest.raises(TypeError):
            o.step()


def test_sparse_adam_refuses_dense_gradients_as_torch():
    msgs = []
    for T in (torch, lg):
        p = T.nn.Parameter(T.ones(3))
        o = T.optim.SparseAdam([p])
        assert o.step(lambda: 7) == 7          # no gradient yet: nothing refused
        p.grad = T.ones(3)
        with pytest.raises(RuntimeError) as e:
            o.step()
        msgs.append(str(e.value))
        assert len(o.state) == 0
        np.testing.assert_array_equal(_arr(p), np.ones(3, np.float32))
    assert msgs[1].startswith(msgs[0])
    assert "leafgrad has no sparse gradients" in msgs[1]


def test_sparse_adam_refuses_complex_parameters_as_torch():
    msgs = []
    for T in (torch, lg):
        with pytest.raises(ValueError) as e:
            T.optim.SparseAdam([T.nn.Parameter(T.ones(2)),
                                T.nn.Parameter(T.zeros(2, dtype=T.complex64))])
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_sparse_adam_loads_a_torch_state_dict_from_sparse_steps():
    emb = torch.nn.Embedding(6, 3, sparse=True)
    topt = torch.optim.SparseAdam(emb.parameters(), lr=0.1)
    for idx in ([1, 2], [2, 4]):
        topt.zero_grad()
        emb(torch.tensor(idx)).sum().backward()
        topt.step()
    buf = io.BytesIO()
    torch.save(topt.state_dict(), buf)
    buf.seek(0)
    lopt = lg.optim.SparseAdam([lg.nn.Parameter(lg.tensor(emb.weight.detach().numpy()))])
    lopt.load_state_dict(lg.load(buf))
    lsd, tsd = lopt.state_dict(), topt.state_dict()
    assert lsd["param_groups"] == tsd["param_groups"]
    assert lsd["state"][0]["step"] == tsd["state"][0]["step"] == 2
    for key in ("exp_avg", "exp_avg_sq"):
        np.testing.assert_array_equal(_arr(lsd["state"][0][key]), _arr(tsd["state"][0][key]))


def test_adafactor_refusals_as_torch():
    for T in (torch, lg):
        p = T.nn.Parameter(T.zeros(2, dtype=T.complex64))
        o = T.optim.Adafactor([p])
        p.grad = T.zeros(2, dtype=T.complex64)
        with pytest.raises(RuntimeError, match="Adafactor does not support complex parameters"):
            o.step()
        e = T.nn.Parameter(T.zeros(0, 3))   # divides by sqrt(numel): PyTorch's ZeroDivisionError
        o = T.optim.Adafactor([e])
        e.grad = T.zeros(0, 3)
        with pytest.raises(ZeroDivisionError):
            o.step()


def test_adafactor_default_eps1_is_the_dtype_epsilon():
    # eps=(None, ...): float64 parameters use float64's epsilon; tiny gradients show it
    _run("Adafactor", dict(eps=(None, 1e-3)), [(3, 4), (4,)], "float64", 5, 2, 1e-12)
    for T in (torch, lg):
        p = T.nn.Parameter(T.ones(2, 2, dtype=T.float64))
        o = T.optim.Adafactor([p])
        p.grad = T.full((2, 2), 1e-12, dtype=T.float64)
        o.step()
    np.testing.assert_allclose(_arr(p), np.ones((2, 2)) - 0.01, rtol=1e-12)


# ------------------------------------------------------------------ DistributedSampler
@settings(max_examples=150, deadline=None)
@given(n=st.integers(0, 40), replicas=st.integers(1, 8), data=st.data(),
       shuffle=st.booleans(), seed=st.integers(0, 2 ** 31), drop_last=st.booleans(),
       epoch=st.integers(0, 5))
def test_distributed_sampler_indices_match_torch(n, replicas, data, shuffle, seed, drop_last,
                                                 epoch):
    rank = data.draw(st.integers(0, replicas - 1))
    kw = dict(num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
              drop_last=drop_last)
    ts = torch.utils.data.DistributedSampler(range(n), **kw)
    ls = lg.utils.data.DistributedSampler(range(n), **kw)
    assert len(ls) == len(ts) and ls.total_size == ts.total_size
    for e in (0, epoch):
        ts.set_epoch(e)
        ls.set_epoch(e)
        try:
            want = list(ts)
        except ZeroDivisionError:           # an empty dataset padded to a non-empty total
            with pytest.raises(ZeroDivisionError):
                list(ls)
            continue
        assert list(ls) == want


def test_distributed_sampler_with_a_dataloader_as_torch():
    x = np.arange(22, dtype=np.float32)
    out = []
    for T in (torch, lg):
        ds = T.utils.data.TensorDataset(T.tensor(x))
        s = T.utils.data.DistributedSampler(ds, num_replicas=3, rank=1, seed=4)
        s.set_epoch(2)
        out.append([b[0].tolist() for b in T.utils.data.DataLoader(ds, batch_size=3, sampler=s)])
    assert out[0] == out[1]


@pytest.mark.parametrize("kwargs", [dict(), dict(num_replicas=2), dict(rank=0),
                                    dict(num_replicas=2, rank=2),
                                    dict(num_replicas=2, rank=-1)])
def test_distributed_sampler_errors_as_torch(kwargs):
    with pytest.raises(Exception) as te:
        torch.utils.data.DistributedSampler(range(5), **kwargs)
    with pytest.raises(type(te.value)) as le:
        lg.utils.data.DistributedSampler(range(5), **kwargs)
    assert str(le.value).startswith(str(te.value))
    if "num_replicas" not in kwargs or "rank" not in kwargs:
        assert "num_replicas=1, rank=0" in str(le.value)     # the fix


@pytest.mark.parametrize("name,kwargs", [
    ("Rprop", {}), ("ASGD", dict(t0=3.0, lambd=0.1)), ("Adafactor", dict(weight_decay=0.1)),
    ("ASGD", dict(t0=3.0, lambd=0.1, foreach=True))])
def test_tensor_lr_as_torch(name, kwargs):
    # a 0-dim lr: PyTorch computes with it as a float32 tensor; leafgrad does for ASGD's eta,
    # not for Adafactor's rho and decay factor (Python floats: last-bit differences)
    rtol = 1e-5 if name == "Adafactor" else 1e-6
    rng = np.random.default_rng(4)
    x0 = rng.standard_normal((3, 4)).astype(np.float32)
    tp, lp = torch.nn.Parameter(torch.tensor(x0)), lg.nn.Parameter(lg.tensor(x0))
    topt = getattr(torch.optim, name)([tp], lr=torch.tensor(0.05), **kwargs)
    lopt = getattr(lg.optim, name)([lp], lr=lg.tensor(0.05), **kwargs)
    for _ in range(20):
        g = rng.standard_normal((3, 4)).astype(np.float32)
        tp.grad, lp.grad = torch.tensor(g), lg.tensor(g)
        topt.step()
        lopt.step()
        _close(lp, tp, "param", rtol)
        for key, v in topt.state[tp].items():
            _close(lopt.state[lp][key], v, key, rtol)


@pytest.mark.parametrize("name", ["Rprop", "ASGD", "Adafactor"])
def test_setstate_fills_flags_and_makes_number_state_tensors_as_torch(name):
    out = []
    for T in (torch, lg):
        p = T.nn.Parameter(T.ones(2, 2))
        o = getattr(T.optim, name)([p])
        p.grad = T.ones(2, 2)
        o.step()
        state = o.__getstate__()
        for k in ("step", "eta", "mu"):
            if k in state["state"][p]:
                state["state"][p][k] = float(state["state"][p][k])   # an older checkpoint
        del state["param_groups"][0]["foreach"]
        o.__setstate__(state)
        out.append(({k: (str(v.dtype).split(".")[-1], _arr(v).tolist())
                     for k, v in o.state[p].items()}, o.param_groups[0]["foreach"]))
        o.step()
    assert out[0] == out[1]
