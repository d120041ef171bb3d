"""``leafgrad.optim``: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, Adamax,
NAdam, RAdam, Adadelta, LBFGS, Rprop, ASGD, Adafactor, SparseAdam) and ``lr_scheduler``,
with PyTorch's update rules, param groups and state_dict format."""
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam, AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .adadelta import Adadelta
from .lbfgs import LBFGS
from .rprop import Rprop
from .asgd import ASGD
from ._adafactor import Adafactor
from .sparse_adam import SparseAdam
from . import lr_scheduler

Adafactor.__module__ = __name__     # as PyTorch (defined in _adafactor.py)

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
           "Adadelta", "LBFGS", "lr_scheduler", "Rprop", "ASGD", "Adafactor", "SparseAdam"]
