"""gradcheck / gradgradcheck and anomaly detection against real PyTorch."""
import warnings

import pytest

import leafgrad
from _diff import compare


def _bad_square(torch):
    class BadSquare(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x
    return BadSquare


def _detached_backward(torch):
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2      # right value, wrong second derivative
    return Cube


def case_gradcheck(torch, R):
    gc = torch.autograd.gradcheck
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([[1.0, 2.0], [0.5, -0.5]], dtype=torch.float64, requires_grad=True)
    R("sin", gc(torch.sin, (x,)))
    R("bare_tensor_input", gc(torch.exp, x))
    R("two_inputs", gc(lambda a, b: (a[:2] * b).sum(0), (x, y)))
    R("tuple_out", gc(lambda a: (a * 2, a.sum()), (x,)))
    R("non_tensor_arg", gc(lambda a, k: a * k, (x, 3.0)))
    R("tols", gc(torch.tanh, (x,), eps=1e-6, atol=1e-5, rtol=1e-3))
    R("fast_mode", gc(torch.sigmoid, (x,), fast_mode=True))
    R("matmul", gc(lambda a: a @ a.t(), (y,)))
    R("constant_input", gc(lambda a, b: a * b, (x, x.detach() + 1)))
    Bad = _bad_square(torch)
    R.error("mismatch", lambda: gc(Bad.apply, (x,)))
    R("no_raise", gc(Bad.apply, (x,), raise_exception=False))
    R.error("none_require_grad", lambda: gc(torch.sin, (x.detach(),)))


def case_gradcheck_float32_warns(torch, R):
    x = torch.tensor([0.3, 1.2], requires_grad=True)
    R("result", torch.autograd.gradcheck(lambda t: t * 2, (x,), eps=1e-3, atol=1e-2))


def case_gradgradcheck(torch, R):
    ggc = torch.autograd.gradgradcheck
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    R("cube", ggc(lambda t: t ** 3, (x,)))
    R("sin_exp", ggc(lambda t: torch.sin(t) * torch.exp(t), (x,)))
    R("given_grad_outputs", ggc(lambda t: t ** 3, (x,), (torch.ones(3, dtype=torch.float64),)))
    R("tanh_sum", ggc(lambda t: torch.tanh(t).sum(), (x,)))
    Cube = _detached_backward(torch)
    R("first_order_ok", torch.autograd.gradcheck(Cube.apply, (x,)))
    R.error("second_order_wrong", lambda: ggc(Cube.apply, (x,)))


def case_anomaly_nan(torch, R):
    x = torch.tensor([-1.0, 4.0], requires_grad=True)
    R("off", torch.is_anomaly_enabled())
    with torch.autograd.detect_anomaly():
        R("on", torch.is_anomaly_enabled())
        y = torch.sqrt(x) * 0
        z = (y * torch.tensor([0.0, 1.0])).sum()
        R.error("nan", lambda: z.backward())
    R("off_again", torch.is_anomaly_enabled())
    # without anomaly mode the NaN just flows into .grad
    x.grad = None
    (torch.sqrt(x) * 0).sum().backward()
    R("nan_grad", x.grad)


def case_set_detect_anomaly(torch, R):
    torch.autograd.set_detect_anomaly(True)
    R("on", torch.is_anomaly_enabled())
    w = torch.tensor([0.0, 1.0], requires_grad=True)
    R.error("sqrt0", lambda: (w.sqrt() * torch.tensor([0.0, 1.0])).sum().backward())
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    (v * v).sum().backward()
    R("clean_backward_ok", v.grad)
    torch.autograd.set_detect_anomaly(False)
    R("off", torch.is_anomaly_enabled())
    with torch.autograd.set_detect_anomaly(True):
        R("cm_on", torch.is_anomaly_enabled())
    R("cm_off", torch.is_anomaly_enabled())
    with torch.autograd.detect_anomaly(check_nan=False):
        w.grad = None
        (w.sqrt() * torch.tensor([0.0, 1.0])).sum().backward()
        R("check_nan_false", w.grad)


def case_anomaly_other_errors_warn(torch, R):
    with torch.autograd.detect_anomaly():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.sigmoid()
        y.mul_(2)
        R.error("inplace", lambda: y.sum().backward())


def case_anomaly_only_around_backward(torch, R):
    # the forward ran outside anomaly mode: backward under it still checks for NaN
    x = torch.tensor([-1.0, 4.0], requires_grad=True)
    y = x.sqrt().sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            R.error("nan", lambda: y.backward())
    R("grad_untouched", x.grad)


def case_anomaly_only_around_forward(torch, R):
    # what counts is the mode at backward time (as PyTorch): no check outside it
    x = torch.tensor([-1.0, 4.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            y = x.sqrt().sum()
    y.backward()
    R("nan_grad", x.grad)


CASES = [v for k, v in sorted(globals().items()) if k.startswith("case_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_matches_torch(case):
    compare(case)


def test_gradcheck_error_reports_worst_element():
    x = leafgrad.tensor([1.0, 2.0], dtype=leafgrad.float64, requires_grad=True)
    with pytest.raises(leafgrad.autograd.gradcheck_module.GradcheckError
                       if hasattr(leafgrad.autograd, "gradcheck_module") else RuntimeError) as ei:
        leafgrad.autograd.gradcheck(_bad_square(leafgrad).apply, (x,))
    msg = str(ei.value)
    assert "Jacobian mismatch for output 0 with respect to input 0" in msg
    assert "worst element: d output[1] / d input[1]" in msg and "is 6" in msg and "but 4" in msg


def test_anomaly_error_names_op_and_forward_line():
    x = leafgrad.tensor([-1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with leafgrad.autograd.detect_anomaly():
            y = leafgrad.sqrt(x) * 0  # THE FORWARD LINE
            with pytest.raises(RuntimeError) as ei:
                y.sum().backward()
    msg = str(ei.value)
    assert "Function 'SqrtBackward0' returned nan values in its 0th output" in msg
    assert "THE FORWARD LINE" in msg and "test_ag_gradcheck_anomaly.py" in msg
    texts = [str(w.message) for w in ws]
    assert any(t.startswith("Error detected in SqrtBackward0. Traceback of forward call") and
               "THE FORWARD LINE" in t for t in texts)


def test_anomaly_warnings_point_at_user_code():
    x = leafgrad.tensor([-1.0], requires_grad=True)
    y = leafgrad.sqrt(x).sum()
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with leafgrad.autograd.detect_anomaly():
            with pytest.raises(RuntimeError) as ei:
                y.backward()
    assert "recorded outside anomaly mode" in str(ei.value) and "Fix" in str(ei.value)
    errs = [w for w in ws if str(w.message).startswith("Error detected in SqrtBackward0")]
    assert len(errs) == 1 and "No forward pass information available" in str(errs[0].message)
    assert all(w.filename == __file__ for w in ws), [(w.filename, w.lineno) for w in ws]


def test_anomaly_traceback_keeps_a_script_in_a_folder_named_leafgrad(tmp_path):
    # issue 25: the forward-call traceback dropped every frame whose path contained
    # "/leafgrad/", so a script in a folder of that name (or in this repository, cloned
    # under its name) got an empty traceback; leafgrad's own frames are known by its folder
    import os
    import subprocess
    import sys
    folder = tmp_path / "leafgrad"
    folder.mkdir()
    script = folder / "train.py"
    script.write_text(
        "import leafgrad\n"
        "x = leafgrad.tensor([-1.0], requires_grad=True)\n"
        "with leafgrad.autograd.detect_anomaly():\n"
        "    y = leafgrad.sqrt(x) * 0  # THE FORWARD LINE\n"
        "    try:\n"
        "        y.sum().backward()\n"
        "    except RuntimeError as e:\n"
        "        print(e)\n")
    src = os.path.dirname(os.path.dirname(leafgrad.__file__))
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, cwd=str(folder), timeout=120)
    assert "THE FORWARD LINE" in out.stdout and "train.py" in out.stdout, out.stdout + out.stderr
