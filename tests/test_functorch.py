"""``functorch`` (leafgrad._functorch, what ``leafgrad run`` gives for ``import
functorch``) against PyTorch's own functorch: make_functional(_with_buffers),
combine_state_for_ensemble, the deprecated transforms and their FutureWarning."""
import warnings

import functorch as real_ft
import numpy as np
import pytest
import torch

import leafgrad
from leafgrad import _functorch as lg_ft

SIDES = ((torch, real_ft), (leafgrad, lg_ft))


def _mlp(T, seed=0):
    T.manual_seed(seed)
    return T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2))


def _bn(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4))


def _np(t):
    return t.detach().numpy()


def _quiet(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return f()


def test_make_functional_values_grads_and_state_separate_from_model():
    out = []
    for T, ft in SIDES:
        model = _mlp(T)
        fmodel, params = _quiet(lambda: ft.make_functional(model))
        x = T.tensor(np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3))
        y = fmodel(params, x)
        y.sum().backward()
        new = [p.detach() * 2 for p in params]
        y2 = fmodel(new, x)
        out.append((_np(y), [_np(p.grad) for p in params], _np(y2), len(params),
                    all(p.requires_grad for p in params), model[0].weight.grad is None,
                    [tuple(p.shape) for p in params], fmodel.param_names))
    (a, b) = out
    for u, v in zip(a, b):
        if isinstance(u, np.ndarray):
            np.testing.assert_allclose(u, v, rtol=1e-6, atol=1e-6)
        elif isinstance(u, list) and u and isinstance(u[0], np.ndarray):
            for p, q in zip(u, v):
                np.testing.assert_allclose(p, q, rtol=1e-6, atol=1e-6)
        else:
            assert u == v


def test_make_functional_with_buffers_and_disable_tracking():
    out = []
    for T, ft in SIDES:
        model = _bn(T)
        fmodel, params, buffers = _quiet(
            lambda: ft.make_functional_with_buffers(model, disable_autograd_tracking=True))
        x = T.tensor(np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3))
        y = fmodel(params, buffers, x)
        out.append((_np(y), [_np(b) for b in buffers], [p.requires_grad for p in params],
                    fmodel.param_names, fmodel.buffer_names))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-5, atol=1e-6)
    for u, v in zip(out[0][1], out[1][1]):     # running stats updated in the given buffers
        np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)
    assert out[0][2:] == out[1][2:]


def test_make_functional_refuses_buffers_as_pytorch():
    for T, ft in SIDES:
        with pytest.raises(RuntimeError, match="make_functional_with_buffers"):
            _quiet(lambda: ft.make_functional(_bn(T)))


def test_tied_parameters_are_returned_once_and_fill_every_name():
    out = []
    for T, ft in SIDES:
        T.manual_seed(0)
        a = T.nn.Linear(2, 2, bias=False)
        model = T.nn.Sequential(a, T.nn.ReLU(), a)
        fmodel, params = _quiet(lambda: ft.make_functional(model))
        x = T.ones(1, 2)
        out.append((len(params), _np(fmodel([params[0] * 0 + 1], x))))
    assert out[0][0] == out[1][0] == 1
    np.testing.assert_allclose(out[0][1], out[1][1])


def test_combine_state_for_ensemble_with_vmap():
    out = []
    for T, ft in SIDES:
        models = [_mlp(T, s) for s in range(3)]
        fmodel, params, buffers = _quiet(lambda: ft.combine_state_for_ensemble(models))
        x = T.tensor(np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3))
        y = _quiet(lambda: ft.vmap(fmodel, (0, 0, None)))(params, buffers, x)
        out.append((_np(y), [p.requires_grad for p in params]))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-5, atol=1e-6)
    assert out[0][1] == out[1][1]
    with pytest.raises(RuntimeError, match="at least one model"):
        _quiet(lambda: lg_ft.combine_state_for_ensemble([]))


@pytest.mark.parametrize("name", ["vmap", "grad", "grad_and_value", "jacrev", "jacfwd",
                                  "hessian", "make_functional"])
def test_deprecated_names_warn_as_pytorch(name):
    msgs = []
    for T, ft in SIDES:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            if name == "make_functional":
                ft.make_functional(T.nn.Linear(1, 1))
            else:
                getattr(ft, name)(lambda v: v.sum())
        msgs.append([(c.category, str(c.message)) for c in w])
    assert msgs[0] == msgs[1] and msgs[0]


def test_jvp_through_make_functional_with_buffers_as_the_tutorial():
    out = []
    for T, ft in SIDES:
        model = _bn(T).eval()     # (training mode: PyTorch refuses the running-stat update)
        fmodel, params, buffers = _quiet(lambda: ft.make_functional_with_buffers(model))
        x = T.tensor(np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3))
        tangents = tuple(T.ones_like(p) for p in params)
        primal, tangent = _quiet(lambda: ft.jvp(lambda *p: fmodel(p, buffers, x),
                                                tuple(params), tangents))
        out.append((_np(primal), _np(tangent)))
    for u, v in zip(*out):
        np.testing.assert_allclose(u, v, rtol=1e-4, atol=1e-5)


def test_import_functorch_under_the_alias_gives_leafgrad(tmp_path):
    import subprocess
    import sys
    script = tmp_path / "s.py"
    script.write_text("import torch, functorch, torch._functorch.make_functional as m\n"
                      "from torch._functorch.python_key import make_fx\n"
                      "print(functorch.__name__, m.__name__, functorch.__version__ == "
                      "torch.__version__)\n"
                      "try:\n    make_fx(lambda v: v)\nexcept NotImplementedError:\n"
                      "    print('refused')\n")
    r = subprocess.run([sys.executable, "-m", "leafgrad", "run", str(script)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["leafgrad._functorch", "leafgrad._functorch.make_functional",
                                "True", "refused"]
