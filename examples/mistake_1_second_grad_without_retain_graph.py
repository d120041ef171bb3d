"""Common mistake: grad(loss, w1) then grad(loss, b) with no retain_graph.

The first call frees the graph, so the second raises RuntimeError.
Fix: retain_graph=True on the call(s) whose graph is needed again.
"""
import torch
import torch.nn.functional as F
from torch.autograd import grad


def error_class(exc):
    """The exception's nearest built-in class: RuntimeError, TypeError, ..."""
    return next(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")


def make_loss():
    x1 = torch.tensor([1.1])
    y = torch.tensor([1.0])
    w1 = torch.tensor([2.2], requires_grad=True)
    b = torch.tensor([0.0], requires_grad=True)
    loss = F.binary_cross_entropy(torch.sigmoid(x1 * w1 + b), y)
    return loss, w1, b


loss, w1, b = make_loss()
print(grad(loss, w1))
try:
    grad(loss, b)
except Exception as e:
    print("second grad() call:", error_class(e))

# the fix
loss, w1, b = make_loss()
print(grad(loss, w1, retain_graph=True))
print(grad(loss, b))
