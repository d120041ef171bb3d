"""Optimizers against real PyTorch: same trajectories over several steps, same state keys,
state_dict format, repr, validation errors."""
import copy
import importlib

import numpy as np
import pytest
import torch

import leafgrad as lg
import leafgrad.nn as lnn
import leafgrad.optim as loptim

STEPS = 6


def make_models(seed=0):
    torch.manual_seed(seed)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    lm = lnn.Sequential(lnn.Linear(4, 5), lnn.Tanh(), lnn.Linear(5, 2))
    lm.load_state_dict({k: lg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, lm


def data(seed=1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((8, 4)).astype(np.float32), \
        rng.standard_normal((8, 2)).astype(np.float32)


def assert_same_params(tm, lm, rtol=2e-5, atol=1e-6):
    for (tn, tp), (ln, lp) in zip(tm.named_parameters(), lm.named_parameters()):
        assert tn == ln
        np.testing.assert_allclose(lp.detach().numpy(), tp.detach().numpy(), rtol=rtol, atol=atol,
                                   err_msg=tn)


def train_both(tcls, lcls, kwargs, steps=STEPS, groups=False):
    tm, lm = make_models()
    x, y = data()
    if groups:
        tparams = [{"params": tm[0].parameters()}, {"params": tm[2].parameters(), "lr": 0.05}]
        lparams = [{"params": lm[0].parameters()}, {"params": lm[2].parameters(), "lr": 0.05}]
    else:
        tparams, lparams = tm.parameters(), lm.parameters()
    topt, lopt = tcls(tparams, **kwargs), lcls(lparams, **kwargs)
    for _ in range(steps):
        topt.zero_grad()
        lopt.zero_grad()
        tl = ((tm(torch.tensor(x)) - torch.tensor(y)) ** 2).mean()
        ll = ((lm(lg.tensor(x)) - lg.tensor(y)) ** 2).mean()
        np.testing.assert_allclose(ll.item(), tl.item(), rtol=2e-5)
        tl.backward()
        ll.backward()
        topt.step()
        lopt.step()
        assert_same_params(tm, lm)
    return tm, lm, topt, lopt


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.05)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.01, initial_accumulator_value=0.1)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.05, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.01, weight_decay=0.05, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict()),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.05)),
    ("RAdam", dict(lr=0.01, betas=(0.5, 0.5), weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.05, maximize=True)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_trajectory_matches_torch(name, kwargs):
    tm, lm, topt, lopt = train_both(getattr(torch.optim, name), getattr(loptim, name), kwargs)
    # same state keys per parameter, same state values
    tsd, lsd = topt.state_dict(), lopt.state_dict()
    assert sorted(tsd["state"]) == sorted(lsd["state"])
    for k in tsd["state"]:
        assert list(tsd["state"][k]) == list(lsd["state"][k])
        for key, tv in tsd["state"][k].items():
            lv = lsd["state"][k][key]
            np.testing.assert_allclose(lv.numpy(), tv.numpy(), rtol=1e-4, atol=1e-7, err_msg=key)
            assert lv.dtype.name == str(tv.dtype).replace("torch.", "")
    assert tsd["param_groups"] == lsd["param_groups"]
    assert repr(lopt) == repr(topt)


def test_param_groups_with_own_lr():
    _, _, topt, lopt = train_both(torch.optim.SGD, loptim.SGD, dict(lr=0.1, momentum=0.9),
                                  groups=True)
    assert [g["lr"] for g in lopt.param_groups] == [0.1, 0.05]
    assert lopt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]


def test_sgd_first_momentum_buffer_is_copy_of_grad():
    p = lnn.Parameter(lg.tensor([1.0, 2.0]))
    p.grad = lg.tensor([0.5, -1.0])
    opt = loptim.SGD([p], lr=0.1, momentum=0.9)
    opt.step()
    buf = opt.state[p]["momentum_buffer"]
    np.testing.assert_array_equal(buf.numpy(), [0.5, -1.0])
    buf.numpy()[0] = 100.0
    assert p.grad.numpy()[0] == 0.5                      # a clone, not the grad itself
    assert p._version >= 1


def test_params_without_grad_are_skipped():
    a = lnn.Parameter(lg.ones(2))
    b = lnn.Parameter(lg.ones(2))
    a.grad = lg.ones(2)
    opt = loptim.Adam([a, b], lr=0.1)
    opt.step()
    np.testing.assert_array_equal(b.detach().numpy(), [1.0, 1.0])
    assert b not in opt.state and a in opt.state


def test_state_dict_roundtrip_continues_identically():
    tm, lm, topt, lopt = train_both(torch.optim.Adam, loptim.Adam, dict(lr=0.01), steps=2)
    lm2 = copy.deepcopy(lm)
    lopt2 = loptim.Adam(lm2.parameters(), lr=0.5)
    lopt2.load_state_dict(lopt.state_dict())
    assert lopt2.param_groups[0]["lr"] == 0.01
    assert lopt2.param_groups[0]["params"][0] is next(lm2.parameters())
    x, y = data(5)
    for m, o in ((lm, lopt), (lm2, lopt2)):
        o.zero_grad()
        ((m(lg.tensor(x)) - lg.tensor(y)) ** 2).mean().backward()
        o.step()
    for p1, p2 in zip(lm.parameters(), lm2.parameters()):
        np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())
    # the loaded state is a copy: stepping one does not move the other's state
    s1 = lopt.state[next(lm.parameters())]["exp_avg"]
    s2 = lopt2.state[next(lm2.parameters())]["exp_avg"]
    assert s1 is not s2
    with pytest.raises(ValueError, match="different number of parameter groups"):
        lopt2.load_state_dict({"state": {}, "param_groups": []})


@pytest.mark.parametrize("name,kwargs", [
    ("Adamax", dict(lr=0.01)), ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adadelta", dict(lr=0.5))])
def test_new_optimizers_state_dict_roundtrip(name, kwargs):
    # 8 steps (RAdam's rectified branch starts at step 6), a save/load into a fresh
    # optimizer, then the two continue identically and like torch
    tm, lm, topt, lopt = train_both(getattr(torch.optim, name), getattr(loptim, name), kwargs,
                                    steps=8)
    lm2 = copy.deepcopy(lm)
    lopt2 = getattr(loptim, name)(lm2.parameters())
    lopt2.load_state_dict(lopt.state_dict())
    assert lopt2.param_groups[0]["lr"] == kwargs["lr"]
    for st in lopt2.state.values():
        assert st["step"].dtype.name == "float32" and st["step"].item() == 8.0
    x, y = data(5)
    for m, o in ((lm, lopt), (lm2, lopt2), (tm, topt)):
        T = torch if m is tm else lg
        o.zero_grad()
        ((m(T.tensor(x)) - T.tensor(y)) ** 2).mean().backward()
        o.step()
    for p1, p2 in zip(lm.parameters(), lm2.parameters()):
        np.testing.assert_array_equal(p1.detach().numpy(), p2.detach().numpy())
    assert_same_params(tm, lm)


def test_zero_grad_modes():
    p = lnn.Parameter(lg.ones(2))
    p.grad = lg.ones(2)
    opt = loptim.SGD([p], lr=0.1)
    opt.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(p.grad.numpy(), [0.0, 0.0])
    opt.zero_grad()
    assert p.grad is None


def test_closure_is_called_with_grad_enabled():
    p = lnn.Parameter(lg.tensor([2.0]))
    opt = loptim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    with lg.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0
    np.testing.assert_allclose(p.detach().numpy(), [1.6], rtol=1e-6)


def test_add_param_group():
    a, b = lnn.Parameter(lg.ones(1)), lnn.Parameter(lg.ones(1))
    opt = loptim.SGD([a], lr=0.1, momentum=0.5)
    opt.add_param_group({"params": b, "lr": 0.01})
    assert opt.param_groups[1]["momentum"] == 0.5 and opt.param_groups[1]["params"] == [b]
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})


@pytest.mark.parametrize("call,match", [
    (lambda P: loptim.SGD(P, lr=-0.1), "Invalid learning rate: -0.1"),
    (lambda P: loptim.SGD(P, lr=0.1, nesterov=True),
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda P: loptim.SGD(P, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda P: loptim.SGD(P, lr=0.1, momentum=-1), "Invalid momentum value: -1"),
    (lambda P: loptim.Adam(P, betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    (lambda P: loptim.Adam(P, eps=-1.0), "Invalid epsilon value: -1.0"),
    (lambda P: loptim.AdamW(P, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda P: loptim.RMSprop(P, alpha=-0.1), "Invalid alpha value: -0.1"),
    (lambda P: loptim.Adagrad(P, lr_decay=-1), "Invalid lr_decay value: -1"),
    (lambda P: loptim.Adamax(P, betas=(0.9, 1.5)), "Invalid beta parameter at index 1: 1.5"),
    (lambda P: loptim.NAdam(P, momentum_decay=-1), "Invalid momentum_decay value: -1"),
    (lambda P: loptim.RAdam(P, lr=-1), "Invalid learning rate: -1"),
    (lambda P: loptim.Adadelta(P, rho=1.1), "Invalid rho value: 1.1"),
])
def test_validation_errors_match_torch(call, match):
    with pytest.raises(ValueError, match=match):
        call([lnn.Parameter(lg.ones(1))])


def test_validation_messages_equal_torch_text():
    for lib, P in ((loptim, lnn.Parameter(lg.ones(1))),
                   (torch.optim, torch.nn.Parameter(torch.ones(1)))):
        with pytest.raises(ValueError, match="^Invalid learning rate: -0.1$"):
            lib.SGD([P], lr=-0.1)
        with pytest.raises(ValueError, match="^optimizer got an empty parameter list$"):
            lib.SGD([], lr=0.1)
        with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
            lib.SGD(P, lr=0.1)


def test_non_leaf_tensor_error_explains_fix():
    x = lg.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor") as err:
        loptim.SGD([x * 2], lr=0.1)
    assert "requires_grad=True" in str(err.value) and "detach().requires_grad_()" in str(err.value)
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor"):
        torch.optim.SGD([torch.ones(2, requires_grad=True) * 2], lr=0.1)


def test_step_hooks():
    p = lnn.Parameter(lg.ones(1))
    p.grad = lg.ones(1)
    opt = loptim.SGD([p], lr=0.1)
    seen = []
    h = opt.register_step_pre_hook(lambda o, a, k: seen.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: seen.append("post"))
    opt.step()
    h.remove()
    opt.step()
    assert seen == ["pre", "post", "post"]


def _hook_order(T, optim_mod, nn_mod):
    p = nn_mod.Parameter(T.ones(1))
    p.grad = T.ones(1)
    opt = optim_mod.SGD([p], lr=0.1)
    seen = []
    opt.register_step_pre_hook(lambda o, a, k: seen.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: seen.append("post"))
    mod = importlib.import_module(optim_mod.__name__ + ".optimizer")
    g1 = mod.register_optimizer_step_pre_hook(
        lambda o, a, k: seen.append(("global pre", o is opt)))
    g2 = mod.register_optimizer_step_post_hook(
        lambda o, a, k: seen.append(("global post", o is opt)))
    try:
        opt.step()
        g1.remove()
        opt.step()
    finally:
        g1.remove()
        g2.remove()
    opt.step()
    return seen, p.detach().numpy().tolist()


def test_global_step_hooks_like_torch():
    # PyTorch's order: the global pre-hooks before the optimizer's own, its post-hooks after
    got = _hook_order(lg, loptim, lnn)
    assert got == _hook_order(torch, torch.optim, torch.nn)
    assert got[0][:3] == [("global pre", True), "pre", "post"]


def test_default_hyperparameters_match_torch():
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
                 "Adadelta"):
        lo = getattr(loptim, name)([lnn.Parameter(lg.ones(1))])
        to = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(1))])
        assert lo.defaults == to.defaults, name


@pytest.mark.parametrize("kwargs", [dict(lr=0.1), dict(lr=0.1, momentum=0.9),
                                    dict(lr=0.1, momentum=0.9, nesterov=True),
                                    dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01)])
def test_sgd_large_parameters_match_torch(kwargs):
    # more than 2 blocks of leafgrad.optim.sgd._BLOCK elements (updated block by
    # block), an odd size (a short last block), and a parameter whose gradient is
    # Fortran-ordered (updated whole)
    from leafgrad.optim import sgd
    n = 2 * sgd._BLOCK + 12345
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal(n).astype(np.float32)
    m0 = rng.standard_normal((300, 301)).astype(np.float32)     # > 2 blocks too
    tw, tm = torch.tensor(w0, requires_grad=True), torch.tensor(m0, requires_grad=True)
    lw, lm = lg.tensor(w0, requires_grad=True), lg.tensor(m0, requires_grad=True)
    topt, lopt = torch.optim.SGD([tw, tm], **kwargs), loptim.SGD([lw, lm], **kwargs)
    for step in range(3):
        gm = np.asfortranarray(rng.standard_normal((300, 301)).astype(np.float32))
        for T, w, m, opt in ((torch, tw, tm, topt), (lg, lw, lm, lopt)):
            opt.zero_grad()
            ((w * w).sum() * (step + 1) + w.sin().sum()).backward()
            # Fortran order first (the whole-array path; a Fortran-ordered momentum
            # buffer), then C order (a C gradient with that buffer)
            m.grad = T.from_numpy(gm.copy(order="F" if step == 0 else "C"))
            opt.step()
        assert lm.grad.numpy().flags.c_contiguous == (step > 0)
        np.testing.assert_allclose(lw.detach().numpy(), tw.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(lm.detach().numpy(), tm.detach().numpy(), rtol=1e-5, atol=1e-6)
    if kwargs.get("momentum"):
        np.testing.assert_allclose(lopt.state[lw]["momentum_buffer"].numpy(),
                                   topt.state[tw]["momentum_buffer"].numpy(), rtol=1e-5, atol=1e-6)


BAD_HYPER = [
    ("SGD", dict(lr=0.1, momentum=0.9), [("lr", "0.1"), ("lr", None), ("momentum", "0.9"),
                                         ("weight_decay", None), ("dampening", "x")]),
    ("Adam", {}, [("lr", "0.1"), ("lr", None), ("eps", None), ("eps", "x"), ("betas", "bad"),
                  ("betas", (0.9,)), ("betas", (0.9, None)), ("weight_decay", None)]),
    ("AdamW", {}, [("lr", None), ("eps", None), ("betas", "bad"), ("weight_decay", None)]),
    ("RMSprop", dict(momentum=0.5, centered=True),
     [("lr", "0.1"), ("eps", None), ("alpha", None), ("momentum", "0.9"),
      ("weight_decay", None)]),
    ("Adagrad", {}, [("lr", "0.1"), ("eps", None), ("weight_decay", None), ("lr_decay", None)]),
    ("Adamax", {}, [("lr", None), ("eps", None), ("betas", "bad"), ("weight_decay", None)]),
    ("NAdam", {}, [("lr", None), ("eps", None), ("momentum_decay", None),
                   ("weight_decay", None)]),
    ("RAdam", {}, [("lr", None), ("betas", (0.9, None)), ("weight_decay", None)]),
    ("Adadelta", {}, [("lr", None), ("rho", None), ("eps", None), ("weight_decay", None)]),
]


def _stepped(lib, name, base):
    """An optimizer of ``lib`` after one good step, with a gradient ready for the next."""
    p = lib.nn.Parameter(lib.tensor([1.0, -2.0]))
    opt = getattr(lib.optim, name)([p], **base)
    p.grad = lib.tensor([0.5, 0.25])
    opt.step()
    return p, opt


def _snapshot(p, opt):
    return (p.detach().numpy().copy(),
            {k: (v.numpy().copy() if hasattr(v, "numpy") else v)
             for k, v in opt.state[p].items()}, p._version)


@pytest.mark.parametrize("name,base,bad", BAD_HYPER, ids=[n for n, _, _ in BAD_HYPER])
def test_bad_hyperparameter_raises_like_torch_and_changes_nothing(name, base, bad):
    for key, value in bad:
        kw = dict(base, **{key: value})
        try:                                        # torch's constructor
            getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], **kw)
        except Exception as e:
            with pytest.raises(type(e), match="Fix") as le:
                getattr(loptim, name)([lnn.Parameter(lg.ones(2))], **kw)
            assert repr(value) in str(le.value)
        else:
            getattr(loptim, name)([lnn.Parameter(lg.ones(2))], **kw)
        # set on a group after construction: step() raises before touching anything
        tp, topt = _stepped(torch, name, base)
        topt.param_groups[0][key] = value
        with pytest.raises(Exception) as te:
            topt.step()
        p, opt = _stepped(lg, name, base)
        extra = lnn.Parameter(lg.ones(3))
        extra.grad = lg.ones(3)
        opt.add_param_group({"params": [extra]})      # a good group first: not updated either
        opt.param_groups[0], opt.param_groups[1] = opt.param_groups[1], opt.param_groups[0]
        opt.param_groups[1][key] = value
        before, before_extra = _snapshot(p, opt), _snapshot(extra, opt)
        with pytest.raises(type(te.value), match="Fix") as le:
            opt.step()
        assert "param_groups[1]" in str(le.value) and repr(key) in str(le.value)
        after, after_extra = _snapshot(p, opt), _snapshot(extra, opt)
        for b, a in ((before, after), (before_extra, after_extra)):
            np.testing.assert_array_equal(a[0], b[0])
            assert a[2] == b[2]
            assert list(a[1]) == list(b[1])
            for k in b[1]:
                np.testing.assert_array_equal(a[1][k], b[1][k])


@pytest.mark.parametrize("name,base", [(n, b) for n, b, _ in BAD_HYPER])
def test_unusual_but_valid_hyperparameters_still_step(name, base):
    # PyTorch steps with these (bool is a number; ranges are checked by constructors only)
    for key, value in [("lr", True), ("lr", -0.5), ("weight_decay", -0.1), ("lr", np.float64(0.1))]:
        tp, topt = _stepped(torch, name, base)
        p, opt = _stepped(lg, name, base)
        topt.param_groups[0][key] = value
        opt.param_groups[0][key] = value
        topt.step()
        opt.step()
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-5, atol=1e-6)
