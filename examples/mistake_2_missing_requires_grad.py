"""Common mistake: a parameter created without requires_grad=True.

Autograd does not track w1 = torch.tensor(0.8): it gets no gradient, asking
grad() for it raises RuntimeError, and if no input requires grad at all,
backward() itself raises RuntimeError.
"""
import torch
import torch.nn.functional as F
from torch.autograd import grad


def error_class(exc):
    """The exception's nearest built-in class: RuntimeError, TypeError, ..."""
    return next(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")

x1 = torch.tensor(1.5)
y = torch.tensor(1.0)
w1 = torch.tensor(0.8)                      # the mistake
b = torch.tensor(0.1, requires_grad=True)

loss = F.binary_cross_entropy(torch.sigmoid(x1 * w1 + b), y)
print(w1.requires_grad, b.requires_grad, loss.requires_grad)
try:
    grad(loss, w1, retain_graph=True)
except Exception as e:
    print("grad(loss, w1):", error_class(e))
loss.backward()
print(w1.grad)      # None: never tracked
print(b.grad)

# nothing requires grad: backward has no graph to walk
loss2 = F.binary_cross_entropy(torch.sigmoid(x1 * w1), y)
try:
    loss2.backward()
except Exception as e:
    print("loss2.backward():", error_class(e))

# the fix
w1 = torch.tensor(0.8, requires_grad=True)
loss = F.binary_cross_entropy(torch.sigmoid(x1 * w1 + b), y)
print(grad(loss, w1))
