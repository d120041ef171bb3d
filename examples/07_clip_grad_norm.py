"""Gradient clipping with clip_grad_norm_ on nn.Linear(10, 1).

The weights are set by hand, so the numbers do not depend on the random seed.
"""
import torch
import torch.nn as nn

model = nn.Linear(10, 1)
with torch.no_grad():
    model.weight.copy_(torch.linspace(-1.0, 1.0, 10).reshape(1, 10))
    model.bias.fill_(0.5)

x = torch.arange(40, dtype=torch.float32).reshape(4, 10) / 10
target = torch.tensor([[1.0], [-1.0], [2.0], [0.0]])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

optimizer.zero_grad()
loss = nn.MSELoss()(model(x), target)
loss.backward()
print("loss:", loss)
print("weight grad before:", model.weight.grad)
print("bias grad before:", model.bias.grad)

# After loss.backward():
total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print("total norm before clipping:", total_norm)
print("weight grad after:", model.weight.grad)
print("bias grad after:", model.bias.grad)
new_norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
print(f"norm after clipping: {new_norm:.4f}")
optimizer.step()
print("weight after step:", model.weight)
print("bias after step:", model.bias)

# a gradient already below max_norm is left alone
before = [p.grad.clone() for p in model.parameters()]
norm2 = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
print(f"second norm: {norm2.item():.4f}")
print(all(torch.equal(a, p.grad) for a, p in zip(before, model.parameters())))
