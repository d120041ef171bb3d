"""The einops calls learners make, printed: run by tests/test_libraries_under_leafgrad_run.py
with real torch and under `leafgrad run`, and the two outputs compared."""
import torch
from torch import nn
import einops
from einops import rearrange, reduce, repeat, einsum, pack, unpack
from einops.layers.torch import Rearrange, Reduce, EinMix

torch.manual_seed(0)
x = torch.randn(2, 3, 4, 6, requires_grad=True)
y = rearrange(x, "b c h w -> b (h w) c")
print(y.shape, y.sum().item())
z = reduce(x, "b c (h h2) (w w2) -> b c h w", "max", h2=2, w2=2)
print(z.shape, z.mean().item())
r = repeat(x[0, 0], "h w -> h w k", k=3)
print(r.shape, float(r.std()))
e = einsum(x, x, "b c h w, b c h w2 -> b w w2")
print(e.shape, round(e.sum().item(), 4))
p, ps = pack([x, x[:, :1]], "b * h w")
print(p.shape, ps)
a, b = unpack(p, ps, "b * h w")
print(a.shape, b.shape)
model = nn.Sequential(Rearrange("b c h w -> b (c h w)"), nn.Linear(72, 5), Reduce("b k -> k", "mean"))
out = model(x)
out.sum().backward()
print(out.detach().numpy().round(5).tolist(), x.grad.abs().sum().item())
mix = EinMix("b c h w -> b k h w", weight_shape="c k", c=3, k=2)
print(mix(x).shape)
print(einops.asnumpy(z).shape)
