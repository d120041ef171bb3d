"""torch.distributions.exp_family: the ExponentialFamily base class."""
from .distribution import ExponentialFamily

__all__ = ["ExponentialFamily"]
