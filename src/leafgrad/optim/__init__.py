"""``leafgrad.optim``: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, Adamax,
NAdam, RAdam, Adadelta, LBFGS) and ``lr_scheduler``,
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
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
           "Adadelta", "LBFGS", "lr_scheduler"]
