"""``torch.version``: what the build was made with. leafgrad has no CUDA/ROCm/XPU build, so
those are None, as in PyTorch's CPU wheels (scripts test ``torch.version.cuda is None``)."""
from . import __version__  # noqa: F401

cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "unknown"
