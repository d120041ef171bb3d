"""A multilayer perceptron with two hidden layers (ReLU), a sigmoid output and
binary cross-entropy, trained for a few SGD steps on fixed data.

All weights are set from a seeded NumPy generator, so the run does not depend
on torch's random numbers.
"""
import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
X = torch.tensor(rng.normal(size=(16, 4)), dtype=torch.float32)
y = (X[:, :1] + X[:, 1:2] > 0).float()

model = nn.Sequential(
    nn.Linear(4, 8), nn.ReLU(),     # hidden layer 1
    nn.Linear(8, 8), nn.ReLU(),     # hidden layer 2
    nn.Linear(8, 1), nn.Sigmoid(),  # output layer
)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.5, 0.5, size=tuple(p.shape)), dtype=torch.float32))

loss_fn = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(15):
    optimizer.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    if step % 5 == 4:
        acc = ((model(X) > 0.5).float() == y).float().mean()
        print(f"step {step + 1:2d}: loss = {loss.item():.4f}, accuracy = {acc.item():.4f}")

for name, param in model.named_parameters():
    print(f"{name:10s} {str(tuple(param.shape)):8s} grad mean = {param.grad.mean():+.4f}  "
          f"abs max = {param.grad.abs().max():.4f}")
