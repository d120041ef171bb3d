"""no_grad / enable_grad / set_grad_enabled / inference_mode against real PyTorch."""
import pytest

from _diff import compare


def case_no_grad(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        y = x * 2
        R("inside", (torch.is_grad_enabled(), y.requires_grad, y.grad_fn, y.is_leaf))
        with torch.enable_grad():
            z = x * 2
            R("enable_inside", (torch.is_grad_enabled(), z.requires_grad))
        R("restored", torch.is_grad_enabled())
    R("outside", torch.is_grad_enabled())
    R.error("backward_no_grad", lambda: y.sum().backward())
    z.sum().backward()
    R("z_grad", x.grad)

    @torch.no_grad()
    def f(a):
        return a * 3, torch.is_grad_enabled()

    @torch.no_grad
    def g(a):
        return a * 3

    R("decorated", f(x)[0].requires_grad)
    R("decorated_flag", f(x)[1])
    R("bare_decorator", g(x).requires_grad)
    R("after", torch.is_grad_enabled())


def case_set_grad_enabled(torch, R):
    x = torch.tensor([1.0], requires_grad=True)
    with torch.set_grad_enabled(False):
        R("off", (x * 2).requires_grad)
    R("back_on", torch.is_grad_enabled())
    torch.set_grad_enabled(False)
    R("function_form", (torch.is_grad_enabled(), (x * 2).requires_grad))
    torch.set_grad_enabled(True)
    R("on_again", (x * 2).requires_grad)
    is_train = False
    with torch.set_grad_enabled(is_train):
        R("var", (x * 2).requires_grad)
    with torch.autograd.set_grad_enabled(True):
        R("autograd_ns", (x * 2).requires_grad)
    R("nested", torch.autograd.grad_mode.no_grad is torch.no_grad)


def case_no_grad_exception_restores(torch, R):
    def boom():
        with torch.no_grad():
            raise ValueError("x")
    R.error("raised", boom)
    R("restored", torch.is_grad_enabled())


def case_inference_mode(torch, R):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    R("flag_outside", torch.is_inference_mode_enabled())
    with torch.inference_mode():
        y = x * 2
        z = torch.ones(2)
        R("inside", (torch.is_inference_mode_enabled(), torch.is_grad_enabled(),
                     y.requires_grad, y.is_inference(), z.is_inference()))
        y.add_(1)
        R("inplace_inside_ok", y)
    R("after", (torch.is_inference_mode_enabled(), torch.is_grad_enabled()))
    R("is_inference", (y.is_inference(), x.is_inference(), y.detach().is_inference()))
    R.error("save_mul", lambda: x * y)
    R.error("save_matmul", lambda: x @ y)
    R.error("requires_grad", lambda: y.requires_grad_())
    R("add_ok", (x + y).requires_grad)
    R("plain_op", y * 2)
    R.error("inplace_outside", lambda: y.mul_(2))  # (torch changes y before raising)
    y = y.clone()
    c = y.clone()
    R("clone_normal", c.is_inference())
    c.requires_grad_()
    (c * x).sum().backward()
    R("clone_grad", c.grad)
    with torch.inference_mode(False):
        R("false_mode", (torch.is_inference_mode_enabled(), (x * 2).requires_grad))

    @torch.inference_mode()
    def f(a):
        return a * 2

    R("decorated", (f(x).requires_grad, f(x).is_inference()))
    with torch.no_grad():
        R("no_grad_not_inference", ((x * 2).is_inference(), torch.is_inference_mode_enabled()))


CASES = [v for k, v in sorted(globals().items()) if k.startswith("case_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_matches_torch(case):
    compare(case)
