"""Retaining the graph: backward twice through y = x ** 3 at x = 3 (3x^2 = 27)."""
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x ** 3

y.backward(retain_graph=True)   # first backward, keep the graph
print(x.grad)   # 3x^2 = 27

x.grad.zero_()  # clear gradient
y.backward()    # second backward (same graph, freed afterwards)
print(x.grad)   # 27 again

# without zero_() the gradients accumulate
y2 = x ** 3
y2.backward()
print(x.grad)   # 27 + 27
