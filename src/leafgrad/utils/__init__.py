"""``leafgrad.utils``: ``utils.data`` (datasets and loaders); ``utils.viz``
(``make_dot``, ``print_graph``, ``explain``: the autograd graph as a picture or
as text, with its numbers), imported on demand as ``from leafgrad.utils.viz
import make_dot``; ``grad_report`` (the gradient health of each parameter) and
``GradientMonitor`` (gradient norms and update ratios during training); ``utils.dlpack``
(``from_dlpack``, ``to_dlpack``); ``teach()`` (teach mode: the silent training
mistakes reported with their line and the fix, as ``leafgrad run --teach``). All NumPy-only to import; pictures import
graphviz/matplotlib when drawn."""
from . import data, dlpack  # noqa: F401
from .grad_report import GradReport, grad_report
from .monitor import GradientMonitor
from ._teach import teach
from ._swap import swap_tensors  # noqa: F401
