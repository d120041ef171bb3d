"""Common mistake: calling grad() on a variable that is not part of the loss's graph.

PyTorch raises RuntimeError; allow_unused=True returns None for it instead.
"""
import torch
import torch.nn.functional as F
from torch.autograd import grad


def error_class(exc):
    """The exception's nearest built-in class: RuntimeError, TypeError, ..."""
    return next(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")

x1 = torch.tensor(1.5)
y = torch.tensor(1.0)
w1 = torch.tensor(0.8, requires_grad=True)
b = torch.tensor(0.1, requires_grad=True)
w2 = torch.tensor(-0.4, requires_grad=True)     # never used in the loss
loss = F.binary_cross_entropy(torch.sigmoid(x1 * w1 + b), y)

try:
    grad(loss, w2, retain_graph=True)
except Exception as e:
    print("grad(loss, w2):", error_class(e))

print(grad(loss, [w1, w2], retain_graph=True, allow_unused=True))
print(grad(loss, [w1, w2], allow_unused=True, materialize_grads=True))
