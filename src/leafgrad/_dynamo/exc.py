"""``torch._dynamo.exc``: the error classes that ``torch.compile`` raises, as PyTorch's.

``Unsupported`` is what ``fullgraph=True`` raises at a graph break; ``InvalidBackend`` an
unknown ``backend=`` name; both are ``RuntimeError`` subclasses through
``TorchDynamoException``, as in PyTorch 2.13 (torch/_dynamo/exc.py).
"""


class TorchDynamoException(RuntimeError):
    pass


class Unsupported(TorchDynamoException):
    """A graph break met under ``fullgraph=True`` (the call's result needed tensor values)."""


class InvalidBackend(TorchDynamoException):
    def __init__(self, name):
        super().__init__("Invalid backend: %r, see `torch._dynamo.list_backends()` for "
                         "available backends." % (name,))


class RecompileError(TorchDynamoException):
    pass


class UserError(Unsupported):
    pass


__all__ = ["TorchDynamoException", "Unsupported", "InvalidBackend", "RecompileError",
           "UserError"]
