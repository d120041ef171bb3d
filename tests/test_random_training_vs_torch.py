"""Whole runs from ``manual_seed(0)``, no weight copying: default initialisation,
seeded data, a shuffled DataLoader and dropout masks all come from the generator,
so leafgrad's loss equals PyTorch's at every step (float32 tolerance: the matmul
and convolution sums round in a different order)."""
import numpy as np
import pytest

import leafgrad as lg

torch = pytest.importorskip("torch")


def mlp_losses(T, steps=50):
    """The tutorials' MLP: Linear-ReLU-Linear-ReLU-Linear, CrossEntropy, SGD, shuffle."""
    T.manual_seed(0)
    X = T.randn(640, 20)
    y = T.randint(0, 10, (640,))
    loader = T.utils.data.DataLoader(T.utils.data.TensorDataset(X, y), batch_size=64,
                                     shuffle=True)
    model = T.nn.Sequential(T.nn.Linear(20, 64), T.nn.ReLU(), T.nn.Linear(64, 32),
                            T.nn.ReLU(), T.nn.Linear(32, 10))
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = T.nn.CrossEntropyLoss()
    losses = []
    while len(losses) < steps:
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if len(losses) == steps:
                break
    return losses


def cnn_losses(T, steps=50):
    """A small CNN with dropout in training mode: conv-relu-pool, dropout, linear."""
    T.manual_seed(0)
    X = T.randn(256, 1, 8, 8)
    y = T.randint(0, 4, (256,))
    loader = T.utils.data.DataLoader(T.utils.data.TensorDataset(X, y), batch_size=32,
                                     shuffle=True)
    model = T.nn.Sequential(T.nn.Conv2d(1, 6, 3, padding=1), T.nn.ReLU(), T.nn.MaxPool2d(2),
                            T.nn.Dropout2d(0.1), T.nn.Flatten(), T.nn.Dropout(0.3),
                            T.nn.Linear(96, 32), T.nn.ReLU(), T.nn.Dropout(0.2),
                            T.nn.Linear(32, 4))
    opt = T.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = T.nn.CrossEntropyLoss()
    losses = []
    model.train()
    while len(losses) < steps:
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if len(losses) == steps:
                break
    return losses


@pytest.mark.parametrize("run", [mlp_losses, cnn_losses], ids=["mlp", "cnn_dropout"])
def test_training_run_matches_torch_every_step(run):
    ours, theirs = run(lg), run(torch)
    assert len(ours) == len(theirs) == 50
    np.testing.assert_allclose(ours, theirs, rtol=2e-4, atol=1e-5)
    # and the stream is where PyTorch left it
    np.testing.assert_array_equal(lg.rand(4).numpy(), torch.rand(4).numpy())
