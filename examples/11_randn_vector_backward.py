"""The autograd tutorial's vector-Jacobian product, from seeded random input.

x = randn(3); y doubles until its norm reaches 1000; y.backward(v) gives x.grad = v * 2**k.
The seed fixes x, so every printed line is the same on every run.
"""
import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
print(x)

y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)

v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)

print(torch.rand(2, 3))
print(torch.randint(0, 10, (6,)))
print(torch.randperm(8))
