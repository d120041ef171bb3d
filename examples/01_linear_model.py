"""Gradients of a one-weight linear model: y_hat = w * x + b, squared error.

w = 1, b = 0, x = 2, y = 6 gives loss 16, d(loss)/dw = -16, d(loss)/db = -8.
"""
import torch

w = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)

# Simple linear model: y_hat = w * x + b
x = torch.tensor(2.0)
y = torch.tensor(6.0)    # target

y_hat = w * x + b
loss = (y_hat - y) ** 2  # squared error
print(y_hat)
print(loss)

loss.backward()           # compute gradients

print(w.grad)   # d(loss)/dw
print(b.grad)   # d(loss)/db
