"""``torch.__version__`` under the torch alias: a TorchVersion comparing as PyTorch 2.13's
(against torch.torch_version.TorchVersion on a grid of versions and operand kinds), and
``importlib.metadata`` answering for ``torch`` under ``leafgrad run``."""
import itertools
import operator

import pytest
import torch
from torch.torch_version import TorchVersion as TorchTV

from leafgrad.torch_version import ALIAS_VERSION, TorchVersion
from test_cli import run

VERSIONS = ["2.13.0+leafgrad0.1.0", "2.13.0+cpu", "2.13.0", "2.13", "2.0", "1.13.1",
            "2.14.0a0", "2.13.0rc1", "2.13.0.dev20240101", "2.13.0.post1", "2.13.0+cu121",
            "1!0.1", "2.13.0-1", "2.13.0.0", "2.13.0a1.dev2", "2.13.0+abc.5"]
OTHERS = ["abc", (2, 0), (2, 13, 0), (2, 14), 3]
OPS = [operator.gt, operator.lt, operator.eq, operator.ge, operator.le, operator.ne]


def _outcome(f):
    try:
        return f()
    except Exception as exc:       # the class is the outcome (TypeError for 3 > '2.0')
        return type(exc)


@pytest.mark.parametrize("a", VERSIONS)
def test_compares_as_pytorchs_torch_version(a):
    for b, op in itertools.product(VERSIONS + OTHERS, OPS):
        assert _outcome(lambda: op(TorchVersion(a), b)) == _outcome(lambda: op(TorchTV(a), b)), \
            (a, b, op)


def test_packaging_version_operand_as_pytorch():
    packaging = pytest.importorskip("packaging.version")
    for T in (TorchVersion, TorchTV):
        with pytest.raises(TypeError):
            T("2.13.0") > packaging.Version("2.0")
        assert (T("2.13.0") == packaging.Version("2.13.0")) is False


def test_alias_version_is_pytorch_api_with_leafgrad_local_part():
    v = TorchVersion(ALIAS_VERSION)
    assert v == "2.13.0+leafgrad0.1.0" and isinstance(v, str)
    assert v >= "2.13" and v >= (2, 0) and v < "2.14" and v > torch.__version__.split("+")[0]


def test_leafgrad_run_sees_pytorch_213(tmp_path):
    script = tmp_path / "versions.py"
    script.write_text(
        "import importlib.metadata as md, torch, leafgrad\n"
        "import torch.version\n"
        "print(type(torch.__version__).__name__, torch.__version__, torch.__version__ >= '2.0')\n"
        "print(torch.version.__version__, md.version('torch'), md.distribution('Torch').version)\n"
        "print(md.distribution('torch').metadata['Name'], md.distribution('torch').requires)\n"
        "from leafgrad._compat import torch_alias\n"
        "torch_alias.uninstall(); print(leafgrad.__version__)\n")
    p = run(["run", str(script)])
    assert p.returncode == 0, p.stderr
    v = "2.13.0+leafgrad0.1.0"
    assert p.stdout.splitlines() == ["TorchVersion %s True" % v, "%s %s %s" % (v, v, v),
                                     "torch ['numpy']", "0.1.0"]


def test_plain_import_keeps_leafgrads_version():
    import leafgrad
    assert leafgrad.__version__ == "0.1.0" and type(leafgrad.__version__) is str
