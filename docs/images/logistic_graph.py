"""Draws docs/images/logistic_graph.png: the tutorials' logistic unit
(loss = BCE(sigmoid(x1 * w1 + b), y)) after backward(), with every value and
gradient. Run from the repository root:

    PYTHONPATH=src python docs/images/logistic_graph.py
"""
import os

import leafgrad as torch
import leafgrad.nn.functional as F
from leafgrad.utils import viz

x1 = torch.tensor([1.4])
y = torch.tensor([0.0])
w1 = torch.tensor([0.9], requires_grad=True)
b = torch.tensor([-0.2], requires_grad=True)
with viz.record():                      # keep each node's value and gradients
    loss = F.binary_cross_entropy(torch.sigmoid(x1 * w1 + b), y)
loss.backward()
dot = viz.make_dot(loss, params={"w1": w1, "b": b}, show_values=True, show_grads=True)
dot.graph_attr.update(size="7,7", dpi="110")
dot.save(os.path.join(os.path.dirname(os.path.abspath(__file__)), "logistic_graph.png"))
