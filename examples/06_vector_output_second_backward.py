"""The mistake: a second backward through a graph that was already freed.

y.sum().backward() frees the graph of y = x ** 2, so y.backward(...) then
fails; PyTorch raises RuntimeError ("Trying to backward through the graph a
second time ...").
"""
import torch


def error_class(exc):
    """The exception's nearest built-in class: RuntimeError, TypeError, ..."""
    return next(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2

y.sum().backward()        # no retain_graph: the graph is freed here
print(x.grad)

x.grad.zero_()
try:
    y.backward(torch.ones_like(x))
except Exception as e:
    print("second backward:", error_class(e))
print(x.grad)             # unchanged: still zeros

# the fix: rebuild the graph (or pass retain_graph=True the first time)
y = x ** 2
y.backward(torch.ones_like(x))
print(x.grad)
