"""Compiled training is eager training bit for bit: 50 SGD-with-momentum steps from one seed
give identical losses, gradients, parameters and optimizer state, for a catalogue of models
in float32 and float64; hooks, retain_graph, create_graph and no_grad evaluation go through."""
import pytest

import leafgrad as torch

nn = torch.nn


class _Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class _Custom(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        return self.fc(_Square.apply(x))


class _Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        return self.fc(torch.tanh(self.fc(x)))[:, :3]


class _LSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm, self.head = nn.LSTM(6, 5, batch_first=True), nn.Linear(5, 3)

    def forward(self, x):
        return self.head(self.lstm(x.reshape(4, 2, 3).repeat(1, 1, 2))[0][:, -1])


class _Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb, self.head = nn.Embedding(10, 4), nn.Linear(4, 3)

    def forward(self, x):
        idx = (x.abs() * 3).long().clamp(max=9)
        return self.head(self.emb(idx).mean(1))


_MODELS = {
    "mlp": lambda: nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)),
    "cnn_bn_dropout": lambda: nn.Sequential(
        nn.Unflatten(1, (1, 6)), nn.Conv1d(1, 2, 3), nn.BatchNorm1d(2), nn.ReLU(),
        nn.Dropout(0.3), nn.Flatten(), nn.Linear(8, 3)),
    "lstm": _LSTM,
    "transformer": lambda: nn.Sequential(
        nn.Unflatten(1, (2, 3)), nn.Linear(3, 4),
        nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True),
        nn.Flatten(), nn.Linear(8, 3)),
    "embedding": _Embed,
    "custom_function": _Custom,
    "shared_parameters": _Shared,
}


def _train(make, dtype, compiled, steps=50):
    torch.manual_seed(0)
    model = make().to(dtype)
    run = torch.compile(model) if compiled else model
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = torch.randn(4, 6, dtype=dtype)
    y = torch.randint(0, 3, (4,))
    losses, grads = [], []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(run(x), y)
        loss.backward()
        losses.append(loss.detach().clone())
        grads.append([p.grad.clone() for p in model.parameters()])
        opt.step()
    state = [opt.state[p]["momentum_buffer"] for p in model.parameters()]
    return losses, grads, list(model.state_dict().values()), state


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", sorted(_MODELS))
def test_fifty_steps_bit_for_bit(name, dtype):
    eager = _train(_MODELS[name], dtype, compiled=False)
    comp = _train(_MODELS[name], dtype, compiled=True)
    for a, b in zip(eager[0], comp[0]):
        assert torch.equal(a, b)
    for ga, gb in zip(eager[1], comp[1]):
        assert all(torch.equal(a, b) for a, b in zip(ga, gb))
    assert all(torch.equal(a, b) for a, b in zip(eager[2], comp[2]))
    assert all(torch.equal(a, b) for a, b in zip(eager[3], comp[3]))
    assert not torch.equal(eager[0][0], eager[0][-1])   # it trained


def test_hooks_retain_graph_and_accumulation():
    torch.manual_seed(0)
    m = nn.Linear(3, 1)
    c = torch.compile(m)
    seen = []
    m.weight.register_hook(lambda g: seen.append(g.clone()))
    loss = c(torch.randn(2, 3)).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    assert len(seen) == 2 and torch.equal(m.weight.grad, seen[0] + seen[1])
    nn.utils.clip_grad_norm_(m.parameters(), 0.1)
    assert float(m.weight.grad.norm()) <= 0.1 + 1e-6


def test_create_graph_is_eagers():
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    cf = torch.compile(lambda t: (t ** 3).sum())
    (g,) = torch.autograd.grad(cf(x), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    assert torch.equal(h, 6 * x.detach())


def test_no_grad_eval_then_train():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3), nn.Dropout(0.5))
    c = torch.compile(m)
    x = torch.randn(4, 3)
    c.eval()
    with torch.no_grad():
        out = c(x)
    assert not out.requires_grad and torch.equal(out, m(x))
    c.train()
    assert c(x).grad_fn is not None and m[1].num_batches_tracked.item() == 1
