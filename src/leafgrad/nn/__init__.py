"""``leafgrad.nn``: modules, parameters, losses and ``functional``."""
from . import functional
