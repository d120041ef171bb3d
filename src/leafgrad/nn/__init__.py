"""``leafgrad.nn``: modules, parameters, losses, ``init``, ``utils`` and ``functional``."""
from . import functional
from .parameter import Parameter, Buffer, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import modules, init, utils, parallel, grad  # noqa: F401
from .parallel import DataParallel
from .modules.linear_cross_entropy_options import LinearCrossEntropyOptions  # noqa: F401
