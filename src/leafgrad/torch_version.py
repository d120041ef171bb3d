"""``torch.torch_version``: ``TorchVersion``, a ``str`` that compares as a PEP 440 version.

Under the torch alias (``leafgrad run``, or ``leafgrad._compat.torch_alias.install()``),
``torch.__version__`` is ``TorchVersion(ALIAS_VERSION)``: ``"2.13.0+leafgrad0.1.0"``. The
public part is the PyTorch release whose API and semantics leafgrad implements, so
library checks such as ``version.parse(torch.__version__) >= version.parse("2.0")`` take
PyTorch 2.13's path; the local part (PEP 440's ``+...``, where PyTorch's wheels put
``+cpu`` / ``+cu121``) names leafgrad and its own version, so the build is recognisable
and compares equal to no real PyTorch wheel. Outside the alias ``leafgrad.__version__`` is
leafgrad's own ``"0.1.0"`` (under it the two names are one module, so it reads as the alias
version; ``leafgrad.torch_version.LEAFGRAD_VERSION`` keeps leafgrad's).

``packaging`` is not a dependency: the PEP 440 ordering is here (``_Version``, standing for
PyTorch's vendored ``torch._vendor.packaging``). As in PyTorch, comparing with an external
``packaging.version.Version`` raises TypeError (``>``) or is False (``==``); compare with
``str`` or ``Version(torch.__version__)`` instead.
"""
import re
from collections.abc import Iterable

from . import __version__ as LEAFGRAD_VERSION

__all__ = ["TorchVersion"]

PYTORCH_API_VERSION = "2.13.0"
ALIAS_VERSION = "%s+leafgrad%s" % (PYTORCH_API_VERSION, LEAFGRAD_VERSION)

# PEP 440's grammar (packaging.version.VERSION_PATTERN)
_PATTERN = re.compile(r"""^\s*v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_\.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_\.]?(?P<pre_n>[0-9]+)?)?
    (?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_\.]?(?P<post_l>post|rev|r)[-_\.]?(?P<post_n2>[0-9]+)?))?
    (?P<dev>[-_\.]?(?P<dev_l>dev)[-_\.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_\.][a-z0-9]+)*))?
    \s*$""", re.VERBOSE | re.IGNORECASE)
_PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc",
        "preview": "rc", "rc": "rc"}


class InvalidVersion(ValueError):
    """Not a PEP 440 version (packaging's class name)."""


class _Version:
    """PEP 440 ordering, as ``packaging.version.Version`` sorts (its ``_cmpkey``)."""

    def __init__(self, text):
        m = _PATTERN.match(str(text))
        if m is None:
            raise InvalidVersion("Invalid version: %r" % (text,))
        release = [int(i) for i in m.group("release").split(".")]
        while len(release) > 1 and release[-1] == 0:
            release.pop()
        pre = ((1, _PRE[m.group("pre_l").lower()], int(m.group("pre_n") or 0))
               if m.group("pre") else None)
        post = m.group("post_n1") or m.group("post_n2") or ("0" if m.group("post") else None)
        dev = m.group("dev_n") or ("0" if m.group("dev") else None)
        local = m.group("local")
        self._key = (
            int(m.group("epoch") or 0), tuple(release),
            pre or ((0,) if post is None and dev is not None else (2,)),
            (0,) if post is None else (1, int(post)),
            (1,) if dev is None else (0, int(dev)),
            (0,) if local is None else (1, tuple(
                (1, int(p), "") if p.isdigit() else (0, 0, p.lower())
                for p in re.split(r"[-_\.]", local))))

    def __eq__(self, other):
        return self._key == other._key

    def __lt__(self, other):
        return self._key < other._key

    def __le__(self, other):
        return self._key <= other._key

    def __gt__(self, other):
        return self._key > other._key

    def __ge__(self, other):
        return self._key >= other._key


class TorchVersion(str):
    """A ``str`` comparing as a version with a version string, a ``packaging`` Version or a
    tuple (``TorchVersion("2.13.0+leafgrad0.1.0") >= (2, 0)``); a comparison with something
    that is not a version falls back to ``str``'s, as PyTorch's class does."""

    __slots__ = ()

    def _convert_to_version(self, inp):
        if isinstance(inp, str):
            return _Version(inp)
        if isinstance(inp, Iterable):
            return _Version(".".join(str(item) for item in inp))
        raise InvalidVersion(inp)

    def _cmp_wrapper(self, cmp, method):
        try:
            return getattr(_Version(self), method)(self._convert_to_version(cmp))
        except InvalidVersion:
            return getattr(super(), method)(cmp)


for _method in ["__gt__", "__lt__", "__eq__", "__ge__", "__le__"]:
    setattr(TorchVersion, _method, lambda x, y, method=_method: x._cmp_wrapper(y, method))

__version__ = TorchVersion(ALIAS_VERSION)
