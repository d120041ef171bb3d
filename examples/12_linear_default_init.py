"""nn.Linear(10, 1) with its default initialisation, trained on seeded random data.

PyTorch initialises the weight with kaiming_uniform_(a=sqrt(5)) and the bias with
U(-1/sqrt(10), 1/sqrt(10)); after manual_seed(0) the initial parameters, the data,
the dropout mask and every printed loss are fixed.
"""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(10, 1)
print(model.weight)
print(model.bias)

x = torch.randn(64, 10)
true_w = torch.randn(10, 1)
y = x @ true_w + 0.1 * torch.randn(64, 1)

opt = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.MSELoss()
for step in range(5):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))

torch.manual_seed(1)
layer = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Dropout(0.5), nn.Linear(3, 2))
print(layer(torch.ones(2, 4)))
