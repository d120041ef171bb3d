"""Differential fuzzer for torch.optim and torch.optim.lr_scheduler: leafgrad against
real PyTorch.

Optimizers: every optimizer class both libraries have (LBFGS has its own tests: its
step needs a closure), random hyperparameters (weight_decay, momentum, dampening,
nesterov, amsgrad, centered, maximize, decoupled_weight_decay, foreach False/True/None,
betas, eps, lr as float), one or two param groups over 1 to 3 parameters of random
shapes (0-d, size 1, empty), float32 or float64, 1 to 5 steps with random gradients,
some of them None (the parameter is skipped that step). After every step: each
parameter's values and the whole ``state_dict()`` (state keys, each entry's dtype,
shape and values, the param_groups dicts) against torch's; float32 within 1e-6
relative (2e-6 after several steps of Adam-like divisions), float64 within 1e-12.

Schedulers: every LRScheduler class with random arguments, alone or two chained
(ChainedScheduler) or sequenced (SequentialLR), ReduceLROnPlateau with a random
metric sequence: ``get_last_lr()`` after each step and the optimizer's lr, and the
scheduler's ``state_dict()`` at the end.

Default run (./dev test, CI): CASES seeded programs per class (a few CPU seconds);
LEAFGRAD_FUZZ=thorough (or --thorough) runs 10x as many with random seeds;
LEAFGRAD_FUZZ=0 skips it.
"""
import copy
import math
import random
import warnings

import numpy as np
import pytest
import torch

import leafgrad
from _fuzz_mode import needs_fuzz, seeds

CASES = 30


def _foreach(r):
    return r.choice([None, False, True])


def _betas(r):
    return (r.choice([0.0, 0.5, 0.9]), r.choice([0.9, 0.99, 0.999]))


# per optimizer: a random keyword set (lr included)
def _sgd(r):
    mom = r.choice([0.0, 0.0, 0.5, 0.9])
    nest = mom > 0 and r.random() < 0.5
    return dict(lr=r.choice([0.1, 0.01]), momentum=mom,
                dampening=0.0 if nest else r.choice([0.0, 0.3]),
                weight_decay=r.choice([0.0, 0.1]), nesterov=nest,
                maximize=r.random() < 0.3, foreach=_foreach(r))


def _adam(r):
    return dict(lr=r.choice([0.01, 0.1]), betas=_betas(r), eps=r.choice([1e-8, 1e-3]),
                weight_decay=r.choice([0.0, 0.1]), amsgrad=r.random() < 0.4,
                maximize=r.random() < 0.3, foreach=_foreach(r),
                decoupled_weight_decay=r.random() < 0.3)


def _adamw(r):
    k = _adam(r)
    del k["decoupled_weight_decay"]
    return k


def _adamax(r):
    return dict(lr=r.choice([0.002, 0.05]), betas=_betas(r), eps=r.choice([1e-8, 1e-3]),
                weight_decay=r.choice([0.0, 0.1]), maximize=r.random() < 0.3,
                foreach=_foreach(r))


def _nadam(r):
    return dict(lr=r.choice([0.002, 0.05]), betas=_betas(r), eps=r.choice([1e-8, 1e-3]),
                weight_decay=r.choice([0.0, 0.1]), momentum_decay=r.choice([0.004, 0.1]),
                decoupled_weight_decay=r.random() < 0.3, maximize=r.random() < 0.3,
                foreach=_foreach(r))


def _radam(r):
    return dict(lr=r.choice([0.001, 0.05]), betas=_betas(r), eps=r.choice([1e-8, 1e-3]),
                weight_decay=r.choice([0.0, 0.1]), decoupled_weight_decay=r.random() < 0.3,
                maximize=r.random() < 0.3, foreach=_foreach(r))


def _rmsprop(r):
    return dict(lr=r.choice([0.01, 0.001]), alpha=r.choice([0.99, 0.5]),
                eps=r.choice([1e-8, 1e-3]), weight_decay=r.choice([0.0, 0.1]),
                momentum=r.choice([0.0, 0.5]), centered=r.random() < 0.4,
                maximize=r.random() < 0.3, foreach=_foreach(r))


def _adagrad(r):
    return dict(lr=r.choice([0.01, 0.1]), lr_decay=r.choice([0.0, 0.1]),
                weight_decay=r.choice([0.0, 0.1]),
                initial_accumulator_value=r.choice([0.0, 0.1]), eps=r.choice([1e-10, 1e-3]),
                maximize=r.random() < 0.3, foreach=_foreach(r))


def _adadelta(r):
    return dict(lr=r.choice([1.0, 0.5]), rho=r.choice([0.9, 0.5]), eps=r.choice([1e-6, 1e-3]),
                weight_decay=r.choice([0.0, 0.1]), maximize=r.random() < 0.3,
                foreach=_foreach(r))


def _asgd(r):
    return dict(lr=r.choice([0.01, 0.1]), lambd=r.choice([1e-4, 0.1]),
                alpha=r.choice([0.75, 0.5]), t0=r.choice([1e6, 2.0]),
                weight_decay=r.choice([0.0, 0.1]), maximize=r.random() < 0.3,
                # not foreach=True: there PyTorch's eta is a float32 pow (Sleef's, whose last
                # bit may differ), checked at float32 tolerance in
                # tests/optim/test_part6_optimizers_vs_torch.py
                foreach=r.choice([None, False]))


def _rprop(r):
    return dict(lr=r.choice([0.01, 0.1]), etas=(r.choice([0.5, 0.3]), r.choice([1.2, 1.5])),
                step_sizes=(r.choice([1e-6, 1e-3]), r.choice([50.0, 0.05])),
                maximize=r.random() < 0.3, foreach=_foreach(r))


def _adafactor(r):
    return dict(lr=r.choice([0.01, 0.1]), beta2_decay=r.choice([-0.8, -0.5]),
                eps=(r.choice([None, 1e-30, 1e-6]), r.choice([1e-3, 1e-2])),
                d=r.choice([1.0, 2.0]), weight_decay=r.choice([0.0, 0.1]),
                maximize=r.random() < 0.3, foreach=r.choice([None, False]))


OPTIMIZERS = {"SGD": _sgd, "Adam": _adam, "AdamW": _adamw, "Adamax": _adamax, "NAdam": _nadam,
              "RAdam": _radam, "RMSprop": _rmsprop, "Adagrad": _adagrad,
              "Adadelta": _adadelta, "ASGD": _asgd, "Rprop": _rprop, "Adafactor": _adafactor}
OPTIM_NAMES = sorted(n for n in OPTIMIZERS if hasattr(leafgrad.optim, n))
MISSING = sorted(n for n in OPTIMIZERS if not hasattr(leafgrad.optim, n))

SHAPES = [(), (1,), (3,), (2, 3), (0,), (4, 1), (2, 0, 3)]


class Mismatch(AssertionError):
    pass


def _arr(t):
    return t.detach().numpy().copy() if isinstance(t, torch.Tensor) else np.asarray(t._data).copy()


def _same(a, b, what, rtol, atol=0.0):
    """leafgrad's value ``a`` against torch's ``b``: tensors, numbers, containers."""
    if isinstance(b, torch.Tensor):
        if not isinstance(a, leafgrad.Tensor):
            raise Mismatch("%s: %r, torch a tensor %r" % (what, a, b))
        if str(a.dtype) != str(b.dtype).replace("torch.", "leafgrad.") \
                and str(a.dtype).split(".")[-1] != str(b.dtype).split(".")[-1]:
            raise Mismatch("%s: dtype %s, torch %s" % (what, a.dtype, b.dtype))
        x, y = _arr(a), _arr(b)
        if x.shape != y.shape:
            raise Mismatch("%s: shape %s, torch %s" % (what, x.shape, y.shape))
        if x.dtype.kind == "f":
            if not np.array_equal(np.isnan(x), np.isnan(y)):
                raise Mismatch("%s: nan at other places\n%s\ntorch %s" % (what, x, y))
            ok = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
            if not ok.all():
                raise Mismatch("%s: values differ\nleafgrad %r\ntorch    %r" % (what, x, y))
        elif not np.array_equal(x, y):
            raise Mismatch("%s: %s, torch %s" % (what, x, y))
        return
    if isinstance(b, dict):
        if not isinstance(a, dict) or list(a) != list(b):
            raise Mismatch("%s: keys %s, torch %s" % (what, list(a) if isinstance(a, dict)
                                                      else type(a), list(b)))
        for k in b:
            _same(a[k], b[k], "%s[%r]" % (what, k), rtol, atol)
        return
    if isinstance(b, (list, tuple)):
        if type(a) is not type(b) or len(a) != len(b):
            raise Mismatch("%s: %r, torch %r" % (what, a, b))
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, "%s[%d]" % (what, i), rtol, atol)
        return
    if isinstance(b, float) and isinstance(a, float):
        if not (a == b or math.isclose(a, b, rel_tol=rtol, abs_tol=atol)
                or (math.isnan(a) and math.isnan(b))):
            raise Mismatch("%s: %r, torch %r" % (what, a, b))
        return
    if type(a) is not type(b) or a != b:
        raise Mismatch("%s: %r (%s), torch %r (%s)" % (what, a, type(a).__name__, b,
                                                        type(b).__name__))


def _optim_program(name, s):
    r = random.Random(s)
    rng = np.random.default_rng(s)
    dtype = r.choice(["float32", "float64"])
    kw = OPTIMIZERS[name](r)
    # Adafactor divides by sqrt(numel): PyTorch's step raises ZeroDivisionError for an empty
    # parameter (tests/optim/test_part6_optimizers_vs_torch.py checks leafgrad's does too)
    pool = [sh for sh in SHAPES if 0 not in sh] if name == "Adafactor" else SHAPES
    shapes = [r.choice(pool) for _ in range(r.randint(1, 3))]
    init = [rng.standard_normal(sh).astype(dtype) for sh in shapes]
    two_groups = len(shapes) > 1 and r.random() < 0.4
    group_lr = kw["lr"] * r.choice([0.5, 2.0])
    steps = []
    for _ in range(r.randint(1, 5)):
        # a None gradient: the parameter takes no part in this step
        steps.append([None if r.random() < 0.2 else
                      (rng.standard_normal(sh) * r.choice([1.0, 1e-3, 10.0])).astype(dtype)
                      for sh in shapes])
    zero_grad_none = r.random() < 0.5
    if r.random() < 0.1:
        # an invalid hyperparameter: the same exception class at construction
        bad = r.choice([k for k in ("lr", "eps", "weight_decay", "momentum", "betas", "alpha",
                                    "rho", "lr_decay", "etas", "step_sizes") if k in kw])
        kw[bad] = {"betas": (1.5, 0.9), "etas": (1.5, 0.5),
                   "step_sizes": (-1.0, 1.0)}.get(bad, -0.5)
    return dict(name=name, dtype=dtype, kw=kw, init=init, two_groups=two_groups,
                group_lr=group_lr, steps=steps, zero_grad_none=zero_grad_none,
                reload=r.randrange(len(steps)) if r.random() < 0.3 else None)


def _make_opt(T, prog, params):
    if prog["two_groups"]:
        groups = [{"params": params[:1]}, {"params": params[1:], "lr": prog["group_lr"]}]
    else:
        groups = params
    return getattr(T.optim, prog["name"])(groups, **prog["kw"])


def _run_optim(T, prog, after_step):
    """The program's steps; after_step(i, params, optimizer) after each. The exception
    class's name where construction raises, else None."""
    params = [T.nn.Parameter(T.tensor(a.copy())) for a in prog["init"]]
    try:
        opt = _make_opt(T, prog, params)
    except Exception as e:   # noqa: BLE001
        return type(e).__name__
    for i, grads in enumerate(prog["steps"]):
        opt.zero_grad(set_to_none=prog["zero_grad_none"])
        for p, g in zip(params, grads):
            if g is None:
                p.grad = None
            else:
                p.grad = T.tensor(g.copy())
        opt.step()
        after_step(i, params, opt)
        if prog["reload"] == i:
            # fresh parameters and optimizer given the state: the same from here on
            sd = copy.deepcopy(opt.state_dict())
            params = [T.nn.Parameter(p.detach().clone()) for p in params]
            opt = _make_opt(T, prog, params)
            opt.load_state_dict(sd)
    return None


def _describe(prog):
    return "%s(%s) dtype=%s shapes=%s two_groups=%s steps=%d nones=%s" % (
        prog["name"], prog["kw"], prog["dtype"], [a.shape for a in prog["init"]],
        prog["two_groups"], len(prog["steps"]),
        [[g is None for g in gs] for gs in prog["steps"]])


def check_optim(prog):
    rtol = 2e-6 if prog["dtype"] == "float32" else 1e-12
    atol = 1e-7 if prog["dtype"] == "float32" else 1e-14
    record = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _run_optim(torch, prog, lambda i, ps, o: record.append(
            ([p.detach().clone() for p in ps], copy.deepcopy(o.state_dict()))))

    def compare(i, ps, o):
        tps, tsd = record[i]
        for j, (p, tp) in enumerate(zip(ps, tps)):
            _same(p.detach(), tp, "step %d param %d" % (i, j), rtol, atol)
        _same(o.state_dict(), tsd, "step %d state_dict()" % i, rtol, atol)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = _run_optim(leafgrad, prog, compare)
            if got != want:
                raise Mismatch("construction raises %s, torch %s" % (got, want))
        except Mismatch as e:
            raise Mismatch("%s\n%s" % (_describe(prog), e)) from None


def test_every_optimizer_is_fuzzed():
    """A new optimizer class in torch.optim that leafgrad has gets a keyword sampler here;
    MISSING lists the ones leafgrad does not have (LBFGS needs a closure: own tests)."""
    torch_has = {n for n in dir(torch.optim) if isinstance(getattr(torch.optim, n), type)
                 and issubclass(getattr(torch.optim, n), torch.optim.Optimizer)}
    lg_has = {n for n in torch_has if hasattr(leafgrad.optim, n)}
    # SparseAdam: PyTorch's step needs sparse gradients, which leafgrad does not have
    # (tests/optim/test_part6_optimizers_vs_torch.py checks both refuse dense ones)
    assert lg_has - {"Optimizer", "LBFGS", "SparseAdam"} <= set(OPTIM_NAMES)


@needs_fuzz
@pytest.mark.parametrize("name", OPTIM_NAMES)
def test_optimizer_vs_torch(name):
    for s in seeds("optim:" + name, CASES):
        check_optim(_optim_program(name, s))


# ----------------------------------------------------------------- lr schedulers
def _sched_kw(name, r):
    """Random arguments (the optimizer aside) of the scheduler ``name``."""
    if name == "StepLR":
        return dict(step_size=r.randint(1, 4), gamma=r.choice([0.1, 0.5, 0.9]))
    if name == "MultiStepLR":
        return dict(milestones=sorted(r.sample(range(1, 9), r.randint(1, 3))),
                    gamma=r.choice([0.1, 0.5]))
    if name == "ConstantLR":
        return dict(factor=r.choice([1.0 / 3, 0.5, 0.25]), total_iters=r.randint(0, 6))
    if name == "LinearLR":
        return dict(start_factor=r.choice([1.0 / 3, 0.1, 1.0]),
                    end_factor=r.choice([1.0, 0.5, 0.0]), total_iters=r.randint(1, 6))
    if name == "ExponentialLR":
        return dict(gamma=r.choice([0.9, 0.5, 1.1]))
    if name == "PolynomialLR":
        return dict(total_iters=r.randint(1, 8), power=r.choice([1.0, 2.0, 0.5]))
    if name == "CosineAnnealingLR":
        return dict(T_max=r.randint(1, 6), eta_min=r.choice([0.0, 0.001]))
    if name == "CosineAnnealingWarmRestarts":
        return dict(T_0=r.randint(1, 4), T_mult=r.randint(1, 3), eta_min=r.choice([0.0, 0.001]))
    if name == "LambdaLR":
        return dict(lr_lambda=r.choice([_lam_a, _lam_b]))
    if name == "MultiplicativeLR":
        return dict(lr_lambda=r.choice([_mul_a, _mul_b]))
    if name == "CyclicLR":
        mode = r.choice(["triangular", "triangular2", "exp_range"])
        return dict(base_lr=r.choice([0.001, 0.01]), max_lr=r.choice([0.1, 0.05]),
                    step_size_up=r.randint(1, 4),
                    step_size_down=r.choice([None, r.randint(1, 4)]), mode=mode,
                    gamma=r.choice([1.0, 0.9]), cycle_momentum=r.random() < 0.5,
                    base_momentum=0.8, max_momentum=0.9)
    if name == "OneCycleLR":
        return dict(max_lr=r.choice([0.1, 1.0]), total_steps=r.randint(2, 10),
                    pct_start=r.choice([0.3, 0.5, 0.1]),
                    anneal_strategy=r.choice(["cos", "linear"]),
                    cycle_momentum=r.random() < 0.5, three_phase=r.random() < 0.3,
                    div_factor=r.choice([25.0, 10.0]), final_div_factor=r.choice([1e4, 100.0]))
    raise AssertionError(name)


def _lam_a(epoch):
    return 0.95 ** epoch


def _lam_b(epoch):
    return 1.0 / (epoch + 1)


def _mul_a(epoch):
    return 0.9


def _mul_b(epoch):
    return 1.0 if epoch % 2 else 0.5


SCHEDULERS = ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
              "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "LambdaLR",
              "MultiplicativeLR", "CyclicLR", "OneCycleLR"]
# the ones that may be chained / sequenced (closed-form-free ones included)
CHAINABLE = ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
             "PolynomialLR", "CosineAnnealingLR", "MultiplicativeLR"]


def _sched_program(kind, s):
    r = random.Random(s)
    prog = dict(kind=kind, groups=r.randint(1, 2), lr=r.choice([0.1, 0.01, 1.0]),
                momentum=r.choice([0.0, 0.9]), steps=r.randint(1, 14),
                # scheduler.step() before optimizer.step() (a warning), get_lr() by hand
                # (a warning), a copy of the state loaded into a fresh scheduler
                skip_opt=r.random() < 0.15, call_get_lr=r.random() < 0.2,
                reload=r.randint(0, 14) if r.random() < 0.3 else None)
    if kind == "ReduceLROnPlateau":
        prog["kw"] = dict(mode=r.choice(["min", "max"]), factor=r.choice([0.1, 0.5]),
                          patience=r.randint(0, 3), threshold=r.choice([1e-4, 0.1]),
                          threshold_mode=r.choice(["rel", "abs"]), cooldown=r.randint(0, 2),
                          min_lr=r.choice([0.0, 0.005, [0.0, 0.001]]),
                          eps=r.choice([1e-8, 1e-3]))
        if isinstance(prog["kw"]["min_lr"], list):
            prog["kw"]["min_lr"] = prog["kw"]["min_lr"][:prog["groups"]]
        prog["metrics"] = [r.choice([1.0, 0.9, 0.5, 2.0, 0.99, 0.95]) for _ in range(prog["steps"])]
    elif kind in ("ChainedScheduler", "SequentialLR"):
        names = [r.choice(CHAINABLE) for _ in range(r.randint(2, 3))]
        prog["subs"] = [(n, _sched_kw(n, r)) for n in names]
        prog["milestones"] = sorted(r.sample(range(1, 8), len(names) - 1))
    else:
        prog["kw"] = _sched_kw(kind, r)
        if kind == "CyclicLR" and prog["kw"]["cycle_momentum"] or kind == "OneCycleLR" \
                and prog["kw"]["cycle_momentum"]:
            prog["momentum"] = 0.9
    return prog


def _make_sched(T, prog, opt):
    kind = prog["kind"]
    if kind in ("ChainedScheduler", "SequentialLR"):
        subs = [getattr(T.optim.lr_scheduler, n)(opt, **kw) for n, kw in prog["subs"]]
        if kind == "ChainedScheduler":
            return T.optim.lr_scheduler.ChainedScheduler(subs, optimizer=opt)
        return T.optim.lr_scheduler.SequentialLR(opt, subs, prog["milestones"])
    return getattr(T.optim.lr_scheduler, kind)(opt, **prog["kw"])


def _run_sched(T, prog):
    """Outcomes: ('lr', get_last_lr(), the groups' lr and momentum) per step, or
    ('raises', class name) where a call raises (then the program stops); then the
    scheduler's state_dict() (lambdas and optimizer left out); the warnings (class and
    message) along the way."""
    params = [T.nn.Parameter(T.zeros(2)) for _ in range(prog["groups"])]
    opt = T.optim.SGD([{"params": [p]} for p in params], lr=prog["lr"],
                      momentum=prog["momentum"])
    out = []

    def note(sch):
        out.append(("lr", list(sch.get_last_lr()) if hasattr(sch, "get_last_lr") else None,
                    [g["lr"] for g in opt.param_groups],
                    [g.get("momentum") for g in opt.param_groups]))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            kind = prog["kind"]
            sch = _make_sched(T, prog, opt)
            note(sch)
            for i in range(prog["steps"]):
                if not (prog["skip_opt"] and i == 0):
                    opt.step()
                if kind == "ReduceLROnPlateau":
                    sch.step(prog["metrics"][i])
                else:
                    sch.step()
                note(sch)
                if prog["call_get_lr"] and kind != "ReduceLROnPlateau":
                    out.append(("get_lr", list(sch.get_lr())))
                if prog["reload"] == i:
                    # a fresh optimizer + scheduler given the state: the same from here on
                    sd = copy.deepcopy(sch.state_dict())
                    sch = _make_sched(T, prog, opt)
                    sch.load_state_dict(sd)
                    note(sch)
            sd = sch.state_dict()
            out.append(("state", {k: v for k, v in sd.items()
                                  if k not in ("lr_lambdas", "_scale_fn_ref", "_schedulers")}))
            if "_schedulers" in sd:
                out.append(("subs", [{k: v for k, v in d.items() if k != "lr_lambdas"}
                                     for d in sd["_schedulers"]]))
        except Exception as e:   # noqa: BLE001
            out.append(("raises", type(e).__name__))
    out.append(("warnings", [(w.category.__name__, str(w.message)) for w in caught]))
    return out


def check_sched(prog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _run_sched(torch, prog)
        got = _run_sched(leafgrad, prog)
    try:
        _same(got, want, "outcomes", 1e-12, 1e-15)
    except Mismatch as e:
        raise Mismatch("%s\n%s\nleafgrad %s\ntorch    %s" % (prog, e, got, want)) from None


@needs_fuzz
@pytest.mark.parametrize("kind", SCHEDULERS + ["ChainedScheduler", "SequentialLR",
                                               "ReduceLROnPlateau"])
def test_lr_scheduler_vs_torch(kind):
    for s in seeds("sched:" + kind, CASES):
        check_sched(_sched_program(kind, s))
