"""Replay of a recorded program (``_dynamo/capture.py``): after the capturing call, calls
with the same guards run the recorded NumPy kernels and one CompiledFunctionBackward
node, and give eager's results bit for bit: losses, gradients, parameters and optimizer
state over 50 training steps; guards never give a stale result; what cannot be recorded
stays eager, correct, with its reason."""
import pytest

import leafgrad as torch

nn = torch.nn
F = nn.functional


class WithLoss(nn.Module):
    """The model and its loss in one compiled call."""

    def __init__(self, model, loss):
        super().__init__()
        self.model, self.loss = model, loss

    def forward(self, x, y):
        return self.loss(self.model(x), y)


def _mlp(act=nn.ReLU):
    return nn.Sequential(nn.Linear(6, 16), act(), nn.Linear(16, 16), act(), nn.Linear(16, 3))


def _train(make, dtype, compiled, opt_name, loss_inside, steps=50):
    torch.manual_seed(0)
    model = make().to(dtype)
    if opt_name == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
    whole = WithLoss(model, F.cross_entropy)
    run = (torch.compile(whole) if compiled else whole) if loss_inside else \
        (torch.compile(model) if compiled else model)
    xs = [torch.randn(8, 6, dtype=dtype) for _ in range(3)]
    ys = [torch.randint(0, 3, (8,)) for _ in range(3)]
    losses, grads = [], []
    for s in range(steps):
        x, y = xs[s % 3], ys[s % 3]
        opt.zero_grad()
        loss = run(x, y) if loss_inside else F.cross_entropy(run(x), y)
        loss.backward()
        losses.append(loss.detach().clone())
        grads.append([p.grad.clone() for p in model.parameters()])
        opt.step()
    state = [{k: v.clone() if isinstance(v, torch.Tensor) else v
              for k, v in opt.state[p].items()} for p in model.parameters()]
    return losses, grads, [p.detach().clone() for p in model.parameters()], state, run, loss


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


@pytest.mark.parametrize("loss_inside", [False, True], ids=["loss_outside", "loss_inside"])
@pytest.mark.parametrize("opt_name", ["sgd", "adam"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("act", [nn.ReLU, nn.Tanh, nn.Sigmoid])
def test_replayed_training_is_eagers_bit_for_bit(act, dtype, opt_name, loss_inside):
    make = lambda: _mlp(act)  # noqa: E731
    eager = _train(make, dtype, False, opt_name, loss_inside)
    comp = _train(make, dtype, True, opt_name, loss_inside)
    run, loss = comp[4], comp[5]
    assert run.forward.replayed == 1 and run.forward.eager_reasons == []
    # the last steps replayed: one node for the compiled part
    fn = loss.grad_fn if loss_inside else loss.grad_fn.next_functions[0][0].next_functions[0][0]
    assert fn.name() == "CompiledFunctionBackward"
    assert all(_same(a, b) for a, b in zip(eager[0], comp[0]))
    assert all(_same(a, b) for ga, gb in zip(eager[1], comp[1]) for a, b in zip(ga, gb))
    assert all(_same(a, b) for a, b in zip(eager[2], comp[2]))
    for sa, sb in zip(eager[3], comp[3]):
        assert sa.keys() == sb.keys()
        for k in sa:
            assert _same(sa[k], sb[k]) if isinstance(sa[k], torch.Tensor) else sa[k] == sb[k]
    assert not torch.equal(eager[0][0], eager[0][-1])   # it trained


def test_mse_and_elementwise_inside_replay():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x, y):
            h = torch.exp(self.fc(x) * 0.5) - 1.0
            return F.mse_loss(h / 2.0, y)

    def run(compiled):
        torch.manual_seed(3)
        m = M().double()
        f = torch.compile(m) if compiled else m
        x, y = torch.randn(5, 4, dtype=torch.float64), torch.randn(5, 2, dtype=torch.float64)
        out = []
        for _ in range(4):
            m.zero_grad()
            loss = f(x, y)
            loss.backward()
            out.append((loss.detach(), m.fc.weight.grad.clone(), m.fc.bias.grad.clone()))
        return out, f
    e, _ = run(False)
    c, f = run(True)
    assert f.forward.replayed == 1
    assert all(_same(a, b) for ea, ca in zip(e, c) for a, b in zip(ea, ca))


def _pair():
    torch.manual_seed(1)
    m = _mlp()
    return m, torch.compile(m)


def _check(m, c, x, grad=True):
    """c(x) against m(x): values and (in grad mode) every parameter's and x's gradient."""
    out = c(x)
    ref = m(x)
    assert _same(out.detach(), ref.detach())
    if grad and ref.requires_grad:
        ps = [p for p in m.parameters() if p.requires_grad]
        ins = ps + ([x] if x.requires_grad else [])
        ga = torch.autograd.grad(out.sum(), ins)
        gb = torch.autograd.grad(ref.sum(), ins)
        assert all(_same(a, b) for a, b in zip(ga, gb))
    return out


def test_guards_never_give_a_stale_result():
    m, c = _pair()
    x = torch.randn(4, 6)
    for _ in range(2):
        _check(m, c, x)
    _check(m, c, torch.randn(7, 6))                     # shape
    _check(m.double(), c, x.double())                   # dtype (parameters too)
    m.float()
    _check(m, c, torch.randn(4, 6).requires_grad_())    # requires_grad of the input
    m[0].weight.requires_grad_(False)                   # requires_grad of a parameter
    _check(m, c, x)
    m[0].weight.requires_grad_(True)
    with torch.no_grad():                                # grad mode
        out = _check(m, c, x, grad=False)
        assert out.grad_fn is None and not out.requires_grad
    c.eval()                                             # training flag
    _check(m, c, x)
    c.train()
    x2 = torch.randn(4, 6)
    for _ in range(2):                                   # new values, same guards
        _check(m, c, x2)
    assert c.forward.eager_reasons == []


def test_no_grad_replay_is_forward_only_and_eagers():
    m, c = _pair()
    x = torch.randn(3, 6)
    with torch.no_grad():
        c(x)
        out = c(x)
    assert out.grad_fn is None and _same(out, m(x).detach())
    assert c.forward.replayed == 1


def test_parameter_change_by_the_optimizer_is_seen():
    m, c = _pair()
    x = torch.randn(3, 6)
    c(x).sum().backward()
    torch.optim.SGD(m.parameters(), lr=0.5).step()
    assert _same(c(x).detach(), m(x).detach())
    with torch.no_grad():
        m[0].weight.mul_(2)
    assert _same(c(x).detach(), m(x).detach())


def test_create_graph_through_a_replayed_output_raises():
    m, c = _pair()
    x = torch.randn(3, 6, requires_grad=True)
    c(x)
    out = c(x)
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    with pytest.raises(RuntimeError, match="double backward"):
        torch.autograd.grad(out.sum(), x, create_graph=True)


def test_retain_graph_hooks_and_accumulation_across_calls():
    m, c = _pair()
    x1, x2 = torch.randn(3, 6), torch.randn(5, 6)
    c(x1)
    c(x2)
    seen = []
    h = m[0].weight.register_hook(lambda g: seen.append(g.clone()))
    loss = c(x1).sum() + (c(x2) ** 2).sum()            # two replays before one backward
    loss.backward(retain_graph=True)
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time|freed"):
        loss.backward()
    got = [p.grad.clone() for p in m.parameters()]
    h.remove()
    m.zero_grad()
    ref = m(x1).sum() + (m(x2) ** 2).sum()
    ref.backward(retain_graph=True)
    ref.backward()
    assert all(_same(a, p.grad) for a, p in zip(got, m.parameters()))
    assert len(seen) == 2 and _same(seen[0] + seen[1], m[0].weight.grad)


def test_in_place_change_of_a_saved_input_raises_as_eager():
    m, c = _pair()
    x = torch.randn(3, 6)
    c(x)
    out = c(x)
    m[0].weight.data.add_(0)        # .data: no version bump, as in eager
    with torch.no_grad():
        m[2].weight.add_(1.0)        # saved by the second layer's node
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_in_place_change_of_a_saved_output_raises_as_eager():
    c = torch.compile(nn.Sequential(nn.Linear(3, 2), nn.Sigmoid()))
    x = torch.randn(4, 3)
    c(x)
    out = c(x)
    out.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_module_hook_added_after_the_capture_runs():
    m, c = _pair()
    x = torch.randn(2, 6)
    c(x)
    c(x)
    calls = []
    m[0].register_forward_hook(lambda mod, i, o: calls.append(1))
    _check(m, c, x, grad=False)
    assert calls == [1, 1]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_batchnorm_replays_with_its_running_statistics(dtype):
    def run(compiled):
        torch.manual_seed(0)
        m = nn.Sequential(nn.Linear(6, 5), nn.BatchNorm1d(5), nn.Tanh(), nn.Linear(5, 3))
        m = m.to(dtype)
        f = torch.compile(m) if compiled else m
        opt = torch.optim.Adam(m.parameters(), lr=0.01)
        xs = [torch.randn(8, 6, dtype=dtype) for _ in range(2)]
        y = torch.randint(0, 3, (8,))
        out = []
        for s in range(50):
            if s == 40:
                f.eval()            # normalise with the running statistics from now on
            opt.zero_grad()
            loss = F.cross_entropy(f(xs[s % 2]), y)
            loss.backward()
            opt.step()
            out.append([loss.detach().clone()] + [p.grad.clone() for p in m.parameters()])
        state = m.state_dict()
        return out, state, {k: v._version for k, v in state.items()}, f
    e, se, ve, _ = run(False)
    c, sc, vc, f = run(True)
    assert f.forward.replayed == 2 and f.forward.eager_reasons == []
    assert all(_same(a, b) for ea, ca in zip(e, c) for a, b in zip(ea, ca))
    assert all(_same(se[k], sc[k]) for k in se) and ve == vc     # running stats, versions
    assert sc["1.num_batches_tracked"].item() == 40


def test_in_place_change_of_a_parameter_seen_through_a_view_raises():
    c = torch.compile(nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)))
    x = torch.randn(5, 3)
    c(x)
    out = c(x)
    with torch.no_grad():
        c._orig_mod[1].weight.add_(1.0)   # saved (as weight.reshape(1, C)) by BatchNorm's product
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("make,word", [
    (lambda: nn.Sequential(nn.Linear(6, 4), nn.Dropout(0.3), nn.Linear(4, 3)), "random"),
    (lambda: nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4, momentum=None), nn.Linear(4, 3)),
     "momentum=None"),
])
def test_what_is_not_recorded_stays_eager_correct_and_reported(make, word):
    def run(compiled):
        torch.manual_seed(0)
        m = make()
        f = torch.compile(m) if compiled else m
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
        losses = []
        for _ in range(10):
            opt.zero_grad()
            loss = F.cross_entropy(f(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.detach())
        return losses, m.state_dict(), f
    le, se, _ = run(False)
    lc, sc, f = run(True)
    assert all(_same(a, b) for a, b in zip(le, lc))
    assert all(_same(se[k], sc[k]) for k in se)        # running statistics too
    assert f.forward.replayed == 0 and word in f.forward.eager_reasons[0]


def test_a_closure_tensor_keeps_a_function_eager():
    w = torch.randn(3, 3, requires_grad=True)
    cf = torch.compile(lambda x: torch.relu(x * w))
    x = torch.randn(3, 3)
    cf(x)
    assert _same(cf(x).detach(), torch.relu(x * w).detach())
    assert cf.replayed == 0 and cf.eager_reasons


def test_function_of_inputs_only_replays():
    cf = torch.compile(lambda a, b: torch.tanh(a * b + 1.0).sum())
    a = torch.randn(4, requires_grad=True)
    b = torch.randn(4, requires_grad=True)
    for _ in range(3):
        out = cf(a, b)
        ga, gb = torch.autograd.grad(out, (a, b))
        ref = torch.tanh(a * b + 1.0).sum()
        ra, rb = torch.autograd.grad(ref, (a, b))
        assert _same(out.detach(), ref.detach()) and _same(ga, ra) and _same(gb, rb)
    assert cf.replayed == 1 and out.grad_fn.name() == "CompiledFunctionBackward"


class _Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * x * g


def test_custom_function_on_a_grad_path_stays_eager_and_right():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def forward(self, x):
            return _Cube.apply(self.fc(x)).sum()
    torch.manual_seed(0)
    m = M()
    c = torch.compile(m)
    x = torch.randn(4, 3)
    for _ in range(2):
        m.zero_grad()
        c(x).backward()
        got = m.fc.weight.grad.clone()
        m.zero_grad()
        m(x).backward()
        assert _same(got, m.fc.weight.grad)
    assert c.forward.replayed == 0 and "_CubeBackward" in c.forward.eager_reasons[0]
