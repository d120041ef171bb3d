"""Common mistake: using what grad() returns as a number.

grad() returns a tuple; arithmetic with it raises TypeError. Index it first.
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
loss = F.binary_cross_entropy(torch.sigmoid(x1 * w1 + b), y)

grad_L_b = grad(loss, b)
print(grad_L_b)              # note the parenthesis and trailing comma
try:
    b - 0.1 * grad_L_b       # the mistake
except Exception as e:
    print("arithmetic with the tuple:", error_class(e))

# the fix: take the tensor out of the tuple
(g,) = grad_L_b
print(g)
with torch.no_grad():
    print(b - 0.1 * grad_L_b[0])
