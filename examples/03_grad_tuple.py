"""Tutorial 1: one neuron (x1 * w1 + b -> sigmoid -> binary cross-entropy).

backward() fills .grad on the leaves w1 and b; torch.autograd.grad returns
the gradient directly, wrapped in a tuple.
"""
import torch
import torch.nn.functional as F
from torch.autograd import grad

x1 = torch.tensor([1.1])                     # input: no gradient needed
y = torch.tensor([1.0])                      # target label
w1 = torch.tensor([2.2], requires_grad=True)  # weight (leaf)
b = torch.tensor([0.0], requires_grad=True)   # bias (leaf)

z = x1 * w1 + b
a = torch.sigmoid(z)
loss = F.binary_cross_entropy(a, y)
print("loss:", loss)
print("leaves:", w1.is_leaf, b.is_leaf, "intermediate:", z.is_leaf, a.is_leaf)

# grad(): ask for one gradient at a time; keep the graph for the next call
grad_L_w1 = grad(loss, w1, retain_graph=True)
grad_L_b = grad(loss, b, retain_graph=True)
print(grad_L_w1)
print(grad_L_b)
print(type(grad_L_b).__name__, len(grad_L_b))
print(grad_L_b[0])

# backward(): gradients land on the leaves' .grad
print(w1.grad)   # nothing stored yet
loss.backward()
print(w1.grad)
print(b.grad)
print(torch.equal(w1.grad, grad_L_w1[0]), torch.equal(b.grad, grad_L_b[0]))
