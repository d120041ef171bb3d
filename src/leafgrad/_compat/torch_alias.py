"""Make ``import torch`` give leafgrad.

:func:`install` puts a finder at the front of :data:`sys.meta_path` that
answers every import of ``torch`` or ``torch.<sub>`` with the already
existing ``leafgrad`` / ``leafgrad.<sub>`` module object, so that::

    import torch                      # -> leafgrad
    import torch.nn as nn             # -> leafgrad.nn
    import torch.nn.functional as F   # -> leafgrad.nn.functional
    from torch.autograd import grad   # -> leafgrad.autograd.grad
    from torch.utils.data import DataLoader

all work on unmodified PyTorch code (``import functorch``, which PyTorch's wheel
ships, gives ``leafgrad._functorch``). The aliased entries are the *same*
module objects as the leafgrad ones (``sys.modules['torch'] is leafgrad``),
so state such as the random generator or the default dtype is shared.

Libraries see the PyTorch it implements: while the alias is installed, ``torch.__version__``
is ``TorchVersion("2.13.0+leafgrad0.1.0")`` (``leafgrad/torch_version.py`` says why; one
module, so ``leafgrad.__version__`` reads the same until :func:`uninstall` puts leafgrad's
back), and the finder answers ``importlib.metadata.version("torch")`` /
``distribution("torch")`` with that version (``find_distributions``), ahead of a real
PyTorch installed next to it.

Nothing here is active after a plain ``import leafgrad``: the alias is only
installed by ``leafgrad run`` (or by calling :func:`install` yourself), and
it refuses to shadow a real ``torch`` that is already imported.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import os
import re
import sys
import types

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
        self.loaded = {}     # torch name -> object this alias put in sys.modules
        # PyTorch's wheel ships ``functorch`` (torch.func's old name) next to torch
        self.pairs = ((source, target),) + (
            (("functorch", target + "._functorch"),) if source == _SOURCE else ())

    def __repr__(self):
        return "<%s %s -> %s>" % (type(self).__name__, self.source, self.target)

    def _target_name(self, fullname):
        for source, target in self.pairs:
            if fullname == source:
                return target
            if fullname.startswith(source + "."):
                return target + fullname[len(source):]
        return None

    # -- finder -----------------------------------------------------------
    def find_spec(self, fullname, path=None, target=None):
        real_name = self._target_name(fullname)
        if real_name is None:
            return None
        try:
            real = importlib.import_module(real_name)
        except ModuleNotFoundError as exc:
            if not (exc.name == real_name or real_name.startswith(str(exc.name) + ".")):
                raise                   # a genuine missing dependency inside leafgrad
            real = self._attribute(fullname)
            if real is None:
                raise ModuleNotFoundError(
                    "No module named %r: leafgrad stands in for torch here and has no %r"
                    % (fullname, real_name), name=fullname) from None
        is_package = hasattr(real, "__path__") or not isinstance(real, types.ModuleType)
        spec = importlib.machinery.ModuleSpec(fullname, self, is_package=is_package)
        spec.loader_state = real
        return spec

    @staticmethod
    def _attribute(fullname):
        """``leafgrad.cuda``, ``leafgrad.backends.cudnn``: namespace objects, not modules.

        ``import torch.backends.cudnn as cudnn`` then gives that object (the
        import system has already put the parent, ``torch.backends``, in
        ``sys.modules``).
        """
        parent_name, _, attr = fullname.rpartition(".")
        parent = sys.modules.get(parent_name)
        if parent is None:
            return None
        value = getattr(parent, attr, None)
        # only leafgrad's private namespace holders: an instance of ``_Cuda``, a
        # class nested in ``_Backends``; never a function, a dtype, ``Tensor``
        cls = value if isinstance(value, type) else type(value)
        if cls.__module__.startswith(_TARGET) and cls.__qualname__.startswith("_"):
            return value
        return None

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        """``torch``'s distribution (any spelling pip accepts: ``Torch``, ``torch``)."""
        name = getattr(context, "name", None)
        if name is not None and re.sub(r"[-_.]+", "-", name).lower() != self.source:
            return iter(())
        if self.source != _SOURCE:
            return iter(())
        from ..torch_version import ALIAS_VERSION
        return iter((TorchDistribution(ALIAS_VERSION),))

    # -- loader -----------------------------------------------------------
    def create_module(self, spec):
        # the import system then stamps its own attributes on this object;
        # remember leafgrad's so exec_module can restore them.
        real = spec.loader_state
        own = {k: getattr(real, k) for k in _OWN_ATTRS if k in getattr(real, "__dict__", {})}
        spec.loader_state = (real, own)
        return real

    def exec_module(self, module):
        spec = getattr(module, "__spec__", None)
        state = getattr(spec, "loader_state", None)
        if not isinstance(state, tuple):    # pragma: no cover - only on reload
            return
        self.loaded[spec.name] = module
        for key, value in state[1].items():
            try:
                setattr(module, key, value)
            except (AttributeError, TypeError):  # pragma: no cover - read-only attribute
                pass
        # a leafgrad module's ``__spec__`` is leafgrad's own again from here on


class TorchDistribution(importlib.metadata.Distribution):
    """What ``importlib.metadata`` reports for ``torch`` under the alias: leafgrad's files,
    PyTorch's name, the alias version, and leafgrad's one requirement (NumPy)."""

    def __init__(self, version):
        self._version = version

    def read_text(self, filename):
        if filename == "METADATA":
            return ("Metadata-Version: 2.1\nName: torch\nVersion: %s\n"
                    "Summary: leafgrad standing in for PyTorch (leafgrad run / torch alias)\n"
                    "Requires-Dist: numpy\n" % self._version)
        if filename == "top_level.txt":
            return "torch\n"
        if filename == "INSTALLER":
            return "leafgrad\n"
        return None

    def locate_file(self, path):
        return os.path.join(os.path.dirname(os.path.dirname(
            importlib.import_module(_TARGET).__file__)), str(path))


_installed = None
_versions = {}        # what install() replaced: (module, attribute) -> leafgrad's value


def _real_torch_loaded(source=_SOURCE):
    """The name of a ``torch`` module in ``sys.modules`` that this alias did not put there."""
    ours = _installed.loaded if _installed is not None else {}
    for name, mod in list(sys.modules.items()):
        if name == source or name.startswith(source + "."):
            if ours.get(name) is not mod:
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
        _set_versions()
    return _installed


def _set_versions():
    """``torch.__version__`` and ``torch.version.__version__`` as the alias version."""
    from .. import torch_version, version
    leafgrad = sys.modules[_TARGET]
    for mod, value in ((leafgrad, torch_version.__version__),
                       (version, str(torch_version.__version__))):
        _versions.setdefault((mod, "__version__"), mod.__version__)
        mod.__version__ = value


def uninstall():
    """Remove the alias and forget the ``torch`` entries it put in ``sys.modules``."""
    global _installed
    if _installed is None:
        return
    if _installed in sys.meta_path:
        sys.meta_path.remove(_installed)
    for (mod, attr), value in _versions.items():
        setattr(mod, attr, value)
    _versions.clear()
    for name, obj in _installed.loaded.items():
        if sys.modules.get(name) is obj:
            del sys.modules[name]
    _installed = None


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
