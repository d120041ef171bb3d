"""``leafgrad.utils``: ``utils.data`` (datasets and loaders); ``utils.viz``
(``make_dot``, ``print_graph``: the autograd graph as a picture or as text),
imported on demand as ``from leafgrad.utils.viz import make_dot``."""
from . import data, dlpack  # noqa: F401
