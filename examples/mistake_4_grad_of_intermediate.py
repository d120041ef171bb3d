"""Common mistake: looking for gradients on intermediate values z or a.

backward() stores gradients on leaves only: z.grad and a.grad stay None
(PyTorch warns, UserWarning, when .grad of a non-leaf is read).
Fix: read the parameters' .grad, call retain_grad(), or ask grad() for them.
"""
import warnings

import torch
import torch.nn.functional as F
from torch.autograd import grad

x1 = torch.tensor(1.5)
y = torch.tensor(1.0)
w1 = torch.tensor(0.8, requires_grad=True)
b = torch.tensor(0.1, requires_grad=True)
z = x1 * w1 + b
a = torch.sigmoid(z)
loss = F.binary_cross_entropy(a, y)
loss.backward(retain_graph=True)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(z.is_leaf, z.grad, a.is_leaf, a.grad)
print("warnings:", [w.category.__name__ for w in caught])
print(w1.grad, b.grad)

# fix 1: ask grad() for the intermediate explicitly
print(grad(loss, [z, a]))

# fix 2: retain_grad() before backward
z = x1 * w1 + b
z.retain_grad()
F.binary_cross_entropy(torch.sigmoid(z), y).backward()
print(z.grad)
