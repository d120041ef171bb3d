"""Padding modules (as ``torch.nn``): ``ZeroPad1d/2d/3d``, ``ConstantPad1d/2d/3d``,
``ReflectionPad1d/2d/3d``, ``ReplicationPad1d/2d/3d``, ``CircularPad1d/2d/3d``, each
``nn.functional.pad`` with its mode. ``padding``: an int (every side) or a tuple
(left, right[, top, bottom[, front, back]]), stored as the full tuple (PyTorch's)."""
from .. import functional as F
from .module import Module

_KINDS = ("Zero", "Constant", "Reflection", "Replication", "Circular")
__all__ = ["%sPad%dd" % (k, n) for k in _KINDS for n in (1, 2, 3)]


def _tuple(padding, n):
    if isinstance(padding, (tuple, list)):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    __constants__ = ["padding"]
    _mode = "constant"
    _nd = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _tuple(padding, 2 * self._nd)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return "%s" % (self.padding,)


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return "padding=%s, value=%s" % (self.padding, self.value)


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return "%s" % (self.padding,)


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        if input.dim() not in (self._nd + 1, self._nd + 2):
            raise ValueError("expected %dD or %dD input (got %dD input). Fix: give (N, C, *spatial) "
                             "or (C, *spatial)." % (self._nd + 1, self._nd + 2, input.dim()))
        return F.pad(input, self.padding, "circular")


_BASES = {"Zero": _ZeroPadNd, "Constant": _ConstantPadNd, "Reflection": _PadNd,
          "Replication": _PadNd, "Circular": _CircularPadNd}
_MODES = {"Zero": "constant", "Constant": "constant", "Reflection": "reflect",
          "Replication": "replicate", "Circular": "circular"}


def _make(kind, nd):
    name = "%sPad%dd" % (kind, nd)
    doc = ("Pads the last %d dim(s) of the input, mode %r (``nn.functional.pad``)."
           % (nd, _MODES[kind]))
    return type(name, (_BASES[kind],), {"_nd": nd, "_mode": _MODES[kind], "__doc__": doc,
                                        "__module__": __name__})


for _k in _KINDS:
    for _n in (1, 2, 3):
        globals()["%sPad%dd" % (_k, _n)] = _make(_k, _n)
del _k, _n
