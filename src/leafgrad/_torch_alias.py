"""Make ``import torch`` give leafgrad.

:func:`install` puts a finder at the front of :data:`sys.meta_path` that
answers every import of ``torch`` or ``torch.<sub>`` with the already
existing ``leafgrad`` / ``leafgrad.<sub>`` module object, so that::

    import torch                      # -> leafgrad
    import torch.nn as nn             # -> leafgrad.nn
    import torch.nn.functional as F   # -> leafgrad.nn.functional
    from torch.autograd import grad   # -> leafgrad.autograd.grad
    from torch.utils.data import DataLoader

all work on unmodified PyTorch code. The aliased entries are the *same*
module objects as the leafgrad ones (``sys.modules['torch'] is leafgrad``),
so state such as the random generator or the default dtype is shared.

Nothing here is active after a plain ``import leafgrad``: the alias is only
installed by ``leafgrad run`` (or by calling :func:`install` yourself), and
it refuses to shadow a real ``torch`` that is already imported.
"""
import importlib
import importlib.abc
import importlib.machinery
import sys

__all__ = ["install", "uninstall", "is_installed", "aliased", "TorchAlias"]

_SOURCE = "torch"
_TARGET = "leafgrad"

# module attributes the import machinery rewrites when it "loads" the alias;
# they are put back afterwards so leafgrad's own relative imports, pickling
# and tracebacks keep seeing the real leafgrad names.
_OWN_ATTRS = ("__name__", "__spec__", "__loader__", "__package__", "__path__", "__file__",
              "__cached__")


class TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A meta-path finder *and* loader mapping ``torch[.X.Y]`` to ``leafgrad[.X.Y]``."""

    def __init__(self, source=_SOURCE, target=_TARGET):
        self.source = source
        self.target = target

    def __repr__(self):
        return "<%s %s -> %s>" % (type(self).__name__, self.source, self.target)

    def _target_name(self, fullname):
        if fullname == self.source:
            return self.target
        if fullname.startswith(self.source + "."):
            return self.target + fullname[len(self.source):]
        return None

    # -- finder -----------------------------------------------------------
    def find_spec(self, fullname, path=None, target=None):
        real_name = self._target_name(fullname)
        if real_name is None:
            return None
        try:
            real = importlib.import_module(real_name)
        except ModuleNotFoundError as exc:
            if exc.name != real_name:   # a genuine missing dependency inside leafgrad
                raise
            raise ModuleNotFoundError(
                "No module named %r: leafgrad stands in for torch here and has no %r"
                % (fullname, real_name), name=fullname) from None
        spec = importlib.machinery.ModuleSpec(
            fullname, self, is_package=hasattr(real, "__path__"))
        spec.loader_state = real
        return spec

    # -- loader -----------------------------------------------------------
    def create_module(self, spec):
        # the import system then stamps its own attributes on this object;
        # remember leafgrad's so exec_module can restore them.
        real = spec.loader_state
        spec.loader_state = (real, {k: real.__dict__[k] for k in _OWN_ATTRS
                                    if k in real.__dict__})
        return real

    def exec_module(self, module):
        saved = module.__spec__.loader_state[1] if isinstance(
            getattr(module.__spec__, "loader_state", None), tuple) else None
        if saved is None:    # pragma: no cover - only reached if someone reloads
            return
        for key, value in saved.items():
            module.__dict__[key] = value
        # ``module.__spec__`` is leafgrad's own spec again from here on


_installed = None


def _real_torch_loaded(source=_SOURCE):
    for name, mod in list(sys.modules.items()):
        if name == source or name.startswith(source + "."):
            if not getattr(mod, "__name__", "").startswith(_TARGET):
                return name
    return None


def install(force=False):
    """Alias ``torch`` to leafgrad for all later imports; returns the finder.

    Raises ``RuntimeError`` if the real ``torch`` is already imported in this
    process (its modules would otherwise mix with leafgrad's), unless
    ``force=True``, which drops those entries from ``sys.modules``.
    Calling it twice is harmless.
    """
    global _installed
    importlib.import_module(_TARGET)
    clash = _real_torch_loaded()
    if clash is not None:
        if not force:
            raise RuntimeError(
                "the real PyTorch is already imported (%r is in sys.modules); the torch -> "
                "leafgrad alias must be installed before anything imports torch" % clash)
        for name in [n for n in sys.modules if n == _SOURCE or n.startswith(_SOURCE + ".")]:
            del sys.modules[name]
    if _installed is None or _installed not in sys.meta_path:
        _installed = TorchAlias()
        sys.meta_path.insert(0, _installed)
    return _installed


def uninstall():
    """Remove the alias and forget the ``torch`` entries it put in ``sys.modules``."""
    global _installed
    if _installed is not None and _installed in sys.meta_path:
        sys.meta_path.remove(_installed)
    _installed = None
    for name in [n for n in sys.modules if n == _SOURCE or n.startswith(_SOURCE + ".")]:
        if getattr(sys.modules[name], "__name__", "").startswith(_TARGET):
            del sys.modules[name]


def is_installed():
    return _installed is not None and _installed in sys.meta_path


class aliased:
    """Context manager: ``with aliased(): import torch`` gives leafgrad inside the block."""

    def __enter__(self):
        self._was = is_installed()
        return install()

    def __exit__(self, *exc):
        if not self._was:
            uninstall()
        return False
