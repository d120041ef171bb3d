"""A complete training loop: DataLoader mini-batches, zero_grad, backward,
gradient clipping, SGD with momentum, evaluation under no_grad.

Data and initial weights come from a seeded NumPy generator and the loader
does not shuffle, so every number is reproducible and seed-independent.
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(42)
X = torch.tensor(rng.normal(size=(40, 5)), dtype=torch.float32)
y = (X @ torch.tensor([1.0, -2.0, 0.5, 0.0, 1.5]) > 0).float().unsqueeze(1)
loader = DataLoader(TensorDataset(X, y), batch_size=8, shuffle=False)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden1 = nn.Linear(5, 6)
        self.hidden2 = nn.Linear(6, 6)
        self.output = nn.Linear(6, 1)

    def forward(self, x):
        x = torch.relu(self.hidden1(x))
        x = torch.relu(self.hidden2(x))
        return torch.sigmoid(self.output(x))


model = MLP()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.6, 0.6, size=tuple(p.shape)), dtype=torch.float32))

loss_fn = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
print("batches per epoch:", len(loader))
for epoch in range(5):
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        total += loss.item() * len(xb)
    model.eval()
    with torch.no_grad():
        acc = ((model(X) > 0.5).float() == y).float().mean().item()
    model.train()
    print(f"epoch {epoch + 1}: loss {total / len(X):.4f}  accuracy {acc:.3f}")

print(sorted(model.state_dict().keys()))
for name, param in model.named_parameters():
    print(f"{name}: grad mean = {param.grad.mean():.4f},  max = {param.grad.abs().max():.4f}")
