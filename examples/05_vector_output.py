"""A vector output: reduce it to a scalar, or pass a gradient to backward().

The second backward goes through the same graph, so the first call keeps it
with retain_graph=True (see 06_vector_output_second_backward.py for what
happens without it).
"""
import torch


def error_class(exc):
    """The exception's nearest built-in class: RuntimeError, TypeError, ..."""
    return next(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2   # y is a vector

# Option 1: reduce to scalar
y.sum().backward(retain_graph=True)
print(x.grad)   # tensor([2., 4., 6.]): d(sum of y)/dx = 2x

# Option 2: pass external gradient
x.grad.zero_()
y.backward(torch.ones_like(x))   # equivalent to y.sum().backward()
print(x.grad)   # tensor([2., 4., 6.])

# a vector output cannot start backward() on its own
z = x * 3
try:
    z.backward()
except Exception as e:
    print("z.backward():", error_class(e))
