"""``functorch``: the pre-2.0 name of ``torch.func``, still imported by tutorials
(``import functorch as ft``; ``ft.make_functional_with_buffers``, ``ft.jvp``).

``leafgrad run`` answers ``import functorch`` with this package (and
``torch._functorch.X`` with its submodules). Its transforms are ``torch.func``'s, behind
PyTorch's FutureWarning that ``functorch.X`` is deprecated; ``make_functional`` and
``make_functional_with_buffers`` return stateless copies of a module, as PyTorch.

Source: torch/_functorch/deprecated.py and make_functional.py (PyTorch 2.13).
"""
from .deprecated import (combine_state_for_ensemble, functionalize, grad,  # noqa: F401
                         grad_and_value, hessian, jacfwd, jacrev, jvp, make_functional,
                         make_functional_with_buffers, vjp, vmap)
from .make_functional import FunctionalModule, FunctionalModuleWithBuffers  # noqa: F401
from .python_key import make_fx  # noqa: F401

__all__ = ["combine_state_for_ensemble", "functionalize", "grad", "grad_and_value", "hessian",
           "jacfwd", "jacrev", "jvp", "make_functional", "make_functional_with_buffers",
           "vjp", "vmap", "FunctionalModule", "FunctionalModuleWithBuffers", "make_fx"]


def __getattr__(name):
    if name == "__version__":       # PyTorch: functorch.__version__ == torch.__version__
        from .. import __version__
        return __version__
    raise AttributeError("module 'functorch' has no attribute %r" % name)
