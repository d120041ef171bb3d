"""PyTorch-compatibility shells: what makes ``import torch`` give leafgrad.

``torch_alias`` (``leafgrad run`` and the ``torch`` import hook) and ``devices`` (what a
CPU-only PyTorch build answers about accelerators, shared by ``torch.cuda``,
``torch.accelerator`` and ``torch.backends``). The top of the stack: may import any layer.
"""
