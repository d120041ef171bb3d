"""One training script, two machines' worth of scale.

Written against the PyTorch API only. Run it

  (a) under leafgrad on one CPU:
        leafgrad run examples/scale_out/train.py --steps 40 --save ckpt.pt
  (b) then continue from that checkpoint under real PyTorch, data-parallel on 2 processes:
        torchrun --standalone --nproc_per_node=2 examples/scale_out/train.py --resume ckpt.pt \
            --steps 40 --save final.pt

Step (b) starts where (a) stopped: same weights, same Adam moments, same step count. With
torchrun (WORLD_SIZE set) each rank trains on its half of every batch, DistributedDataParallel
averages the gradients (gloo backend, CPU), and every rank ends with the same weights.
Each rank prints its full-data loss before and after and a checksum of its weights;
``--report R`` also writes them (with the loss per step) to R.rank<N>.json.
See docs/scale-out.md.
"""
import argparse
import json
import math
import os

import torch
import torch.nn as nn


def dataset(n=256):
    """A fixed regression task: y = sin(3 x0) * cos(2 x1) + 0.5 x2 on a grid (no RNG)."""
    t = torch.linspace(-1.0, 1.0, n)
    x = torch.stack([t, torch.flip(t, [0]) * 0.8, torch.cos(5 * t)], dim=1)
    y = (torch.sin(3 * x[:, 0]) * torch.cos(2 * x[:, 1]) + 0.5 * x[:, 2]).unsqueeze(1)
    return x, y


def make_model():
    return nn.Sequential(nn.Linear(3, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
                         nn.Linear(32, 1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--resume", default=None, help="checkpoint to continue from")
    p.add_argument("--save", default=None, help="write the checkpoint here (rank 0)")
    p.add_argument("--report", default=None,
                   help="write each rank's results to REPORT.rank<N>.json")
    args = p.parse_args()

    distributed = "WORLD_SIZE" in os.environ
    rank, world = 0, 1
    if distributed:
        import torch.distributed as dist
        dist.init_process_group("gloo")
        rank, world = dist.get_rank(), dist.get_world_size()

    torch.manual_seed(0)
    model = make_model()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    start = 0
    if args.resume:
        ckpt = torch.load(args.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optim"])
        start = ckpt["step"]
    net = model
    if distributed:
        from torch.nn.parallel import DistributedDataParallel
        net = DistributedDataParallel(model)

    x, y = dataset()
    n = x.shape[0]
    with torch.no_grad():
        full_start = float(((model(x) - y) ** 2).mean().item())
    losses = []
    for step in range(start, start + args.steps):
        lo = (step * args.batch) % n                      # the same batches in both runs
        idx = torch.arange(lo, lo + args.batch) % n
        shard = idx[rank::world]                          # this rank's part of the batch
        opt.zero_grad()
        loss = ((net(x[shard]) - y[shard]) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(float(loss.item()))

    with torch.no_grad():
        full = float(((model(x) - y) ** 2).mean().item())
    if args.save and rank == 0:
        torch.save({"model": model.state_dict(), "optim": opt.state_dict(),
                    "step": start + args.steps}, args.save)
    weights = [float(v) for t in model.state_dict().values() for v in t.reshape(-1).tolist()]
    print("rank %d/%d: steps %d-%d, full-data loss %.5f -> %.5f, weights checksum %.6f"
          % (rank, world, start, start + args.steps, full_start, full, math.fsum(weights)),
          flush=True)
    if args.report:
        with open("%s.rank%d.json" % (args.report, rank), "w") as fh:
            json.dump({"rank": rank, "world": world, "start": start, "losses": losses,
                       "full_loss_start": full_start, "full_loss": full, "weights": weights}, fh)
    if distributed:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
