"""torch.version (a CPU build: cuda/hip None) and Tensor.get_device(), against PyTorch."""
import torch

import leafgrad


def test_version_module():
    import leafgrad.version as v
    for name in ("cuda", "hip", "rocm", "xpu", "debug"):
        assert getattr(v, name) == getattr(torch.version, name), name
    assert leafgrad.version.__version__ == leafgrad.__version__
    assert isinstance(v.git_version, str)


def test_get_device():
    for T in (torch, leafgrad):
        assert T.ones(1).get_device() == -1
        assert T.zeros(1, device="meta").get_device() == -1
