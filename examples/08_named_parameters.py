"""Checking gradient values with named_parameters() after loss.backward()."""
import torch
import torch.nn as nn

model = nn.Linear(10, 1)
with torch.no_grad():
    model.weight.copy_(torch.linspace(0.5, -0.4, 10).reshape(1, 10))
    model.bias.zero_()

x = torch.linspace(-1.0, 1.0, 30).reshape(3, 10)
y = torch.tensor([[0.5], [-1.5], [2.0]])
for name, param in model.named_parameters():
    print(name, tuple(param.shape), param.grad)   # no gradients yet

loss = nn.MSELoss()(model(x), y)
loss.backward()
# After loss.backward():
for name, param in model.named_parameters():
    if param.grad is not None:
        print(f"{name}: grad mean = {param.grad.mean():.4f},  max = {param.grad.abs().max():.4f}")
