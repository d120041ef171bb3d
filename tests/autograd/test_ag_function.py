"""Custom autograd.Function against real PyTorch."""
import pytest

from _diff import compare


def _exp_fn(torch):
    class ExpFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            out = inp.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, grad_out):
            (out,) = ctx.saved_tensors
            return grad_out * out
    return ExpFn


def case_basic(torch, R):
    ExpFn = _exp_fn(torch)
    x = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
    y = ExpFn.apply(x)
    R("forward", y)
    R("requires_grad", y.requires_grad)
    R("is_leaf", y.is_leaf)
    R("type_name", type(y.grad_fn).__name__)
    R("name", y.grad_fn.name())
    R("next", [(n.name(), i) for n, i in y.grad_fn.next_functions])
    (y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    R("grad", x.grad)
    R("no_grad_input", ExpFn.apply(x.detach()).requires_grad)
    R("no_grad_input_fn", ExpFn.apply(x.detach()).grad_fn)
    with torch.no_grad():
        R("under_no_grad", ExpFn.apply(x).requires_grad)
    z = torch.tensor([0.5, 0.25], requires_grad=True)
    (gz,) = torch.autograd.grad(ExpFn.apply(z * 2).sum(), z)
    R("chain_grad", gz)
    y2 = ExpFn.apply(z)
    y2.sum().backward()
    R.error("second_backward", lambda: y2.sum().backward())


def case_double_backward_through_function(torch, R):
    ExpFn = _exp_fn(torch)
    x = torch.tensor([0.5, -0.5], requires_grad=True)
    y = ExpFn.apply(x).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    R("g", g)
    R("g_rg", g.requires_grad)
    (gg,) = torch.autograd.grad(g.sum(), x)
    R("gg", gg)


def case_needs_input_grad_and_nontensor_args(torch, R):
    seen = {}

    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, factor, label):
            seen["fwd_needs"] = ctx.needs_input_grad
            seen["grad_enabled_in_forward"] = torch.is_grad_enabled()
            ctx.factor = factor
            ctx.save_for_backward(a, b)
            return a * b * factor

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen["bwd_needs"] = ctx.needs_input_grad
            ga = g * b * ctx.factor if ctx.needs_input_grad[0] else None
            gb = g * a * ctx.factor if ctx.needs_input_grad[1] else None
            return ga, gb, None, None

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    out = Scale.apply(a, b, 2.5, "x")
    out.sum().backward()
    R("a_grad", a.grad)
    R("b_grad", b.grad)
    R("seen", seen)


def case_mark_non_differentiable(torch, R):
    class SortFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            vals, idx = x.sort()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return vals, idx

        @staticmethod
        def backward(ctx, g_vals, g_idx):
            (idx,) = ctx.saved_tensors
            R("g_idx_is_none", g_idx is None)
            out = torch.zeros_like(g_vals)
            out[idx] = g_vals
            return out

    x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    vals, idx = SortFn.apply(x)
    R("vals_rg", vals.requires_grad)
    R("idx_rg", idx.requires_grad)
    R("idx_dtype", idx.dtype)
    (vals * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    R("grad", x.grad)


def case_materialize_grads(torch, R):
    def make(materialize):
        class Two(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                R("g2_none_%s" % materialize, g2 is None)
                if g2 is None:
                    return g1 * 2
                return g1 * 2 + g2 * 3
        return Two

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = make(True).apply(x)
    a.sum().backward()
    R("grad_mat", x.grad)
    x.grad = None
    a, b = make(False).apply(x)
    a.sum().backward()
    R("grad_nomat", x.grad)
    x.grad = None
    a, b = make(True).apply(x)
    (a.sum() + b.sum()).backward()
    R("grad_both", x.grad)


def case_once_differentiable(torch, R):
    once_differentiable = torch.autograd.function.once_differentiable

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            R("grad_mode_in_backward", torch.is_grad_enabled())
            return g * 3 * x ** 2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x).sum()
    y.backward()
    R("grad", x.grad)
    (g,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    R("g", g)
    R("g_rg", g.requires_grad)
    R.error("double", lambda: g.sum().backward())


def case_wrong_number_of_grads(torch, R):
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g

    a = torch.tensor([1.0], requires_grad=True)
    b = torch.tensor([2.0], requires_grad=True)
    R.error("too_few", lambda: Bad.apply(a, b).sum().backward())

    class TooMany(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    R.error("too_many", lambda: TooMany.apply(a).sum().backward())

    class TooManyNone(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    TooManyNone.apply(a).sum().backward()
    R("extra_none_ok", a.grad)

    class WrongShape(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return torch.ones(3)

    R.error("wrong_shape", lambda: WrongShape.apply(a).sum().backward())


def case_multiple_outputs_and_input_return(torch, R):
    class SplitMul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y, x + y

        @staticmethod
        def backward(ctx, gp, gs):
            x, y = ctx.saved_tensors
            return gp * y + gs, gp * x + gs

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, 5.0], requires_grad=True)
    p, s = SplitMul.apply(x, y)
    R("types", (type(p).__name__ == type(x).__name__, p.grad_fn is s.grad_fn))
    R("nrs", (p.output_nr, s.output_nr))
    (p * 2 + s).sum().backward()
    R("gx", x.grad)
    R("gy", y.grad)

    class Ident(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    z = Ident.apply(x)
    R("ident_is_same_object", z is x)
    R("ident_leaf", z.is_leaf)
    x.grad = None
    z.sum().backward()
    R("ident_grad", x.grad)


def case_saved_tensor_modified(torch, R):
    ExpFn = _exp_fn(torch)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = ExpFn.apply(x)
    y.add_(1)
    R.error("modified_output", lambda: y.sum().backward())

    class SaveInput(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a

    m = x * 1
    out = SaveInput.apply(m)
    m.mul_(3)
    R.error("modified_input", lambda: out.sum().backward())


def case_ctx_attributes_and_save_non_tensor(torch, R):
    class F(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, n):
            ctx.n = n
            ctx.shape = x.shape
            return x * n

        @staticmethod
        def backward(ctx, g):
            R("shape", tuple(ctx.shape))
            return g * ctx.n, None

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    F.apply(x, 3).sum().backward()
    R("grad", x.grad)

    class SaveInt(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    R.error("save_int", lambda: SaveInt.apply(x))

    class SaveNone(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, None)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            R("saved_none", b is None)
            return g * 2

    x.grad = None
    SaveNone.apply(x).sum().backward()
    R("save_none_grad", x.grad)


def case_setup_context_style(torch, R):
    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(x, y):
            return x * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.save_for_backward(x, y)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    Mul.apply(a, b).sum().backward()
    R("ga", a.grad)
    R("gb", b.grad)
    R("name", type(Mul.apply(a, b).grad_fn).__name__)


def case_function_in_training_loop(torch, R):
    class MyReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            ctx.save_for_backward(inp)
            return inp.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            (inp,) = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[inp < 0] = 0
            return grad_input

    x = torch.linspace(-1, 1, 5).reshape(5, 1)
    y = x ** 2
    w = torch.tensor([[0.3, -0.2]], requires_grad=True)
    w2 = torch.tensor([[0.5], [0.7]], requires_grad=True)
    for _ in range(5):
        pred = MyReLU.apply(x @ w) @ w2
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            w2 -= 0.1 * w2.grad
            w.grad = None
            w2.grad = None
    R("w", w)
    R("w2", w2)
    R("loss", loss)


def case_legacy_call_raises(torch, R):
    ExpFn = _exp_fn(torch)
    x = torch.tensor([1.0], requires_grad=True)
    R.error("instance_call", lambda: ExpFn()(x))




def case_once_differentiable_delayed_error(torch, R):
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((Cube.apply(x) ** 2).sum(), x, create_graph=True)
    R("g", g)
    R("g_rg", g.requires_grad)
    R.error("double", lambda: g.sum().backward())


def case_mark_dirty(torch, R):
    class Double_(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.tensor([3.0, 1.0], requires_grad=True)
    m = x * 1
    y = Double_.apply(m)
    R("same", y is m)
    R("name", m.grad_fn.name())
    R("value", y)
    y.sum().backward()
    R("grad", x.grad)
    R.error("leaf", lambda: Double_.apply(x))




def case_second_backward_without_saved_tensors(torch, R):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Double.apply(x).sum()
    y.backward()
    R.error("second", lambda: y.backward())
    R("grad", x.grad)
    ExpFn = _exp_fn(torch)
    z = ExpFn.apply(x).sum()
    z.backward()
    R.error("saved_second", lambda: z.backward())


CASES = [v for k, v in sorted(globals().items()) if k.startswith("case_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[5:] for c in CASES])
def test_matches_torch(case):
    compare(case)
