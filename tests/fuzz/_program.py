"""Random programs over the op table, for the differential fuzzer (test_fuzz_vs_torch.py).

A program is a list of steps. Each step is one row of ``tests/op_table.py`` (its
``fn`` with parameters and shapes drawn by the row's own strategy) or an in-place
op on a view of an earlier value. A row's inputs are fresh leaves (``requires_grad``)
or earlier values of the same shape, so programs are DAGs: values are shared,
views alias them, in-place ops change what later steps and the backward pass see.

The program is drawn and run in real PyTorch at the same time (a step's inputs can
only be chosen once the shapes of earlier results are known); leafgrad then replays
it step by step. Leaves get one of several value profiles: the row's own domain,
small integers (ties, exact zeros), special values (+-0, +-inf, nan, 1e30, 1e-30
among ordinary ones) or large magnitudes.
"""
import dataclasses
import math
import warnings
import zlib
from typing import Any, List, Optional, Tuple

import numpy as np
from hypothesis import strategies as st

from op_table import DOMAINS, ROWS, _bcast, _same

PROFILES = ("domain", "domain", "ties", "special", "large")

# Rows whose gradient (or value) depends on a choice PyTorch leaves undocumented or to
# LAPACK when inputs tie or are degenerate: which of equal elements max(dim)/median/
# max pooling pick, the subgradient at a singular matrix, how LAPACK treats inf/nan.
# They get fresh leaves from their own (continuous) domain only: ties have probability 0.
FRAGILE = {
    "max:dim", "min:dim", "median:dim", "median:full", "max_pool2d", "max_pool2d:indices",
    "max_pool1d", "inv", "inv:method", "det", "det:method", "solve", "svdvals",
    "matrix_norm", "matrix_norm:svd", "linalg_norm", "cdist", "argmax", "argmin",
    "argmax:flat", "max:full", "min:full",
    # which of tied elements kthvalue / nanmedian / mode / cummax / cummin return
    "kthvalue", "kthvalue:method", "nanmedian:full", "nanmedian:plain", "nanmedian:dim",
    "nanmedian:dim_nan", "mode", "cummax", "cummin",
    # quantile sorts, and which of tied elements torch's unstable sort puts at a rank
    # (its gradient's position) is not specified (torch differs from a stable sort from
    # 17 elements on)
    "quantile", "quantile:method", "quantile:nan", "nanquantile", "nanquantile:plain",
}

_SPECIAL = np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 1e30, -1e30, 1e-30, 1.0, -2.5])


def leaf_values(rng, profile, domain, shape):
    if profile == "domain":
        return np.asarray(DOMAINS[domain](rng, shape), dtype=np.float64)
    if profile == "ties":
        return rng.integers(-2, 3, shape).astype(np.float64)
    if profile == "large":
        return rng.choice([-1.0, 1.0], shape) * 10.0 ** rng.uniform(3, 8, shape)
    # special: mostly ordinary values of the domain, some special ones
    v = np.asarray(DOMAINS[domain](rng, shape), dtype=np.float64)
    pick = rng.random(shape) < 0.35
    return np.where(pick, rng.choice(_SPECIAL, shape), v)


def stable_seed(name):
    """A seed that depends on ``name`` only (not on the order or number of rows)."""
    return zlib.crc32(name.encode())


_MASK = np.uint64(2 ** 64 - 1)


def _mix(v):
    # splitmix64's finaliser: a uint64 array -> well-spread uint64 scores
    v = (v ^ (v >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    v = (v ^ (v >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return v ^ (v >> np.uint64(31))


_KEYS = {}


def pick_row(u, rows):
    """The row of ``rows`` that the drawn number ``u`` (0 <= u < 2**64) selects, by
    rendezvous hashing: the row whose name scores highest with ``u``. Adding or removing
    a row changes only the draws that row wins (or won), about 1 in len(rows), so the
    programs of the other rows stay the same as the op table grows."""
    key = id(rows)
    if key not in _KEYS or _KEYS[key][0] is not rows:
        _KEYS[key] = (rows, _mix(np.array([stable_seed(r.name) for r in rows], np.uint64)
                                 * np.uint64(0x9E3779B97F4A7C15)))
    with np.errstate(over="ignore"):
        return rows[int(np.argmax(_mix(_KEYS[key][1] ^ np.uint64(u))))]


def _gen(row):
    if row.gen is not None:
        return row.gen
    return _bcast(row.arity) if row.broadcasts else _same(row.arity)


# ------------------------------------------------- in-place ops on views of values
VIEWS = {
    "whole": lambda v: v,
    "first": lambda v: v[0],
    "t": lambda v: v.t(),
    "every_other": lambda v: v[..., ::2],
    "unsqueeze": lambda v: v.unsqueeze(0),
    "flat": lambda v: v.view(-1),
    "diag": lambda v: v.diagonal(),
}
INPLACE = {
    "add_": lambda T, w, c: w.add_(c),
    "mul_": lambda T, w, c: w.mul_(c),
    "zero_": lambda T, w, c: w.zero_(),
    "fill_": lambda T, w, c: w.fill_(c),
    "clamp_": lambda T, w, c: w.clamp_(-abs(c), abs(c)),
    "relu_": lambda T, w, c: w.relu_(),
    "exp_": lambda T, w, c: w.exp_(),
    "sigmoid_": lambda T, w, c: w.sigmoid_(),
    "masked_fill_": lambda T, w, c: w.masked_fill_(w > c, 0.0),
    "copy_": lambda T, w, c: w.copy_(w * c + 1),
}


def _view_ok(name, shape):
    nd = len(shape)
    return {"first": nd >= 1 and shape[0] > 0, "t": nd <= 2, "every_other": nd >= 1,
            "diag": nd >= 2}.get(name, True)


@dataclasses.dataclass
class Step:
    kind: str                      # "row" or "inplace"
    row: Any = None                # the Row (kind "row")
    inputs: Tuple = ()             # ("leaf", index) or ("value", index) per input
    kw: Any = None                 # the row's parameters / (view, op, constant)


@dataclasses.dataclass
class Program:
    leaves: List[np.ndarray] = dataclasses.field(default_factory=list)
    steps: List[Step] = dataclasses.field(default_factory=list)
    dtype: Any = np.float64
    second_order: bool = False

    def describe(self):
        lines = ["dtype=%s second_order=%s" % (np.dtype(self.dtype).name, self.second_order)]
        for i, a in enumerate(self.leaves):
            lines.append("leaf%d = %r" % (i, a.astype(self.dtype)))
        for i, s in enumerate(self.steps):
            ins = ", ".join("%s%d" % ("leaf" if k == "leaf" else "v", j) for k, j in s.inputs)
            what = s.row.name if s.kind == "row" else "%s.%s(%r)" % s.kw
            lines.append("step %d: %s(%s) %s" % (i, what, ins,
                                                 s.kw if s.kind == "row" else ""))
        return "\n".join(lines)


def _flat(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flat(o))
        return res
    return [out]


def run_step(T, step, leaves, values, npdtype):
    """Run one step with ``T`` (torch or leafgrad); returns its outputs (a list)."""
    args = [leaves[j] if k == "leaf" else values[j] for k, j in step.inputs]
    if step.kind == "row":
        return _flat(step.row.fn(T, *args, **_kw_as(dict(step.kw), npdtype)))
    view, op, c = step.kw
    w = VIEWS[view](args[0])
    INPLACE[op](T, w, c)
    return []


@dataclasses.dataclass
class Run:
    """One library's run of a program: leaves, values (tensors, in their final state)
    and the step that raised with its exception (None: no step raised)."""
    leaves: List[Any]
    values: List[Any]
    failed_at: Optional[int] = None
    error: Optional[BaseException] = None


def replay(T, prog, npdtype, leaves=None):
    """Run ``prog``'s steps with ``T`` in ``npdtype`` (on other leaf values: ``leaves``)."""
    T.manual_seed(0)        # as draw_program: random steps draw the same numbers
    run = Run([T.tensor(a.astype(npdtype), requires_grad=True)
               for a in (prog.leaves if leaves is None else leaves)], [])
    for i, step in enumerate(prog.steps):
        try:
            outs = run_step(T, step, run.leaves, run.values, npdtype)
        except Exception as e:   # noqa: BLE001 - compared with the other library
            run.failed_at, run.error = i, e
            return run
        run.values.extend(o for o in outs if isinstance(o, T.Tensor))
    return run


def perturbed_leaves(prog, rel):
    """The leaves with every distinct finite nonzero value scaled by its own random
    factor 1 + O(rel): ties, zeros, signs and specials stay, rounding changes. Torch's
    result on them estimates how much rounding alone moves an ill-conditioned result."""
    flat = np.concatenate([a.ravel() for a in prog.leaves]) if prog.leaves else np.zeros(0)
    uniq, inv = np.unique(flat, return_inverse=True)
    f = 1 + np.random.default_rng(1).uniform(-rel, rel, uniq.shape)
    new = (uniq * f)[inv]
    out, k = [], 0
    for a in prog.leaves:
        out.append(new[k:k + a.size].reshape(a.shape))
        k += a.size
    return out


def _is_float(t):
    return t.dtype.is_floating_point and not t.dtype.is_complex


def draw_program(data, torch, rows, focus, max_steps, mutators=None, skip_0d_bases=False,
                 fragile_rows=FRAGILE, salt=0):
    """Draw a program while running it in ``torch``; ``focus`` (a row) is one of its steps.
    Returns the program and torch's run. ``salt`` changes the leaf values and the step
    count of every draw (each of a row's hypothesis runs starts with its simplest draw:
    with another salt that is another program)."""
    draw = data.draw
    # the global generator as every replay starts it: a step that draws random numbers
    # (and whether it raises) must not depend on the tests that ran before in the process
    torch.manual_seed(0)
    prog = Program()
    prog.dtype = draw(st.sampled_from([np.float32, np.float64]), label="dtype")
    n = 1 + (draw(st.integers(0, max_steps - 1), label="steps") + salt) % max_steps
    at = draw(st.integers(0, n - 1), label="focus position")
    seed = draw(st.integers(0, 2 ** 32 - 1), label="seed")
    rng = np.random.default_rng([seed, salt])
    run = Run([], [])
    second = prog.dtype is np.float64
    for i in range(n):
        step = None
        if i != at and run.values and draw(st.integers(0, 4), label="inplace?") == 0:
            floats = [j for j, v in enumerate(run.values) if _is_float(v) and v.requires_grad
                      and not (skip_0d_bases and (v if v._base is None else v._base).dim() == 0)]
            if floats:
                j = draw(st.sampled_from(floats), label="target")
                vname = draw(st.sampled_from(sorted(VIEWS)), label="view")
                if _view_ok(vname, tuple(run.values[j].shape)):
                    op = draw(st.sampled_from(mutators or sorted(INPLACE)), label="op")
                    c = draw(st.sampled_from([0.5, -1.5, 2.0, 0.0]), label="constant")
                    step = Step("inplace", inputs=(("value", j),), kw=(vname, op, c))
        if step is None:
            row = focus if i == at else pick_row(draw(st.integers(0, 2 ** 64 - 1),
                                                      label="row"), rows)
            shp, kw = draw(_gen(row), label="shapes, params " + row.name)
            fragile = row.name in fragile_rows
            inputs = []
            for s, dom in zip(shp, row.domains_for(len(shp))):
                same = [j for j, v in enumerate(run.values)
                        if tuple(v.shape) == tuple(s) and _is_float(v) and not fragile]
                if same and draw(st.booleans(), label="reuse?"):
                    inputs.append(("value", draw(st.sampled_from(same), label="value")))
                    continue
                profile = "domain" if fragile else draw(st.sampled_from(PROFILES),
                                                        label="profile")
                prog.leaves.append(leaf_values(rng, profile, dom, tuple(s)))
                run.leaves.append(torch.tensor(prog.leaves[-1].astype(prog.dtype),
                                               requires_grad=True))
                inputs.append(("leaf", len(prog.leaves) - 1))
            second = second and row.second_order
            step = Step("row", row=row, inputs=tuple(inputs), kw=tuple(kw.items()))
        prog.steps.append(step)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                outs = run_step(torch, step, run.leaves, run.values, prog.dtype)
        except Exception as e:   # noqa: BLE001 - leafgrad must raise the same class here
            run.failed_at, run.error = i, e
            break
        run.values.extend(o for o in outs if isinstance(o, torch.Tensor))
    prog.second_order = second
    return prog, run


def _kw_as(kw, npdtype):
    """Float arrays among the parameters (class weights, running stats) in ``npdtype``."""
    def conv(v):
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            return v.astype(npdtype)
        if isinstance(v, tuple):
            return tuple(conv(e) for e in v)
        return v
    return {k: conv(v) for k, v in kw.items()}
