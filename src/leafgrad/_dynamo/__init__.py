"""``torch._dynamo``: the parts of PyTorch's graph capture that eager code touches.

``reset``, ``explain``, ``config``, ``OptimizedModule``, ``disable``, ``is_compiling``,
``list_backends`` and ``exc``; ``torch.compile`` (``leafgrad.compiler``) builds on them.
A library package (it imports nn and the layers below); ``import leafgrad`` loads it on
first use of ``torch._dynamo``.
"""
from . import config, exc  # noqa: F401
from .eval_frame import OptimizedModule, disable, is_compiling, reset  # noqa: F401
from .explain import ExplainOutput, explain  # noqa: F401

_BACKENDS = ["cudagraphs", "inductor", "openxla", "tvm"]


def list_backends(exclude_tags=("debug", "experimental")):
    """``torch._dynamo.list_backends()``: the names ``backend=`` accepts (PyTorch 2.13's list;
    ``"eager"``, ``"aot_eager"`` and callables are accepted too, as PyTorch's debug backends)."""
    return list(_BACKENDS)


def is_dynamo_compiling():
    return is_compiling()


__all__ = ["reset", "explain", "config", "exc", "OptimizedModule", "disable", "is_compiling",
           "list_backends", "ExplainOutput"]
