"""Gradient for a vector of weights: output = (W * x).sum() ** 2.

d(output)/dW = 2 * (W . x) * x = 2 * 2.3 * [1, 2, 3] = [4.6, 9.2, 13.8].
"""
import torch

W = torch.tensor([0.5, -0.3, 0.8], requires_grad=True)
x = torch.tensor([1.0, 2.0, 3.0])

# dot product followed by squaring
output = (W * x).sum() ** 2
print(output)

output.backward()
print(W.grad)   # gradient vector, one value per weight
print(W.grad.shape == W.shape)
