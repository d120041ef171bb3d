"""``import leafgrad`` loads the core only; nn, optim, utils, serialization, ...
load on first use (leafgrad/__init__.py's ``_LAZY``) and then behave as if
they had been imported eagerly."""
import subprocess
import sys

import leafgrad

LAZY_MODULES = ("nn", "optim", "utils", "serialization", "accelerator", "amp", "backends",
                "cuda", "func", "functional", "onnx", "profiler", "sparse", "special")


def _fresh(code):
    """Run ``code`` after ``import leafgrad`` in a new interpreter; its stdout."""
    out = subprocess.run([sys.executable, "-c", "import leafgrad\n" + code],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_import_loads_none_of_the_upper_modules():
    got = _fresh("import sys\nprint(sorted(m for m in %r if 'leafgrad.' + m in sys.modules))"
                 % (LAZY_MODULES,))
    assert got == "[]"


def test_every_lazy_name_resolves_to_what_its_module_defines():
    import importlib
    for name, (mod, attr) in leafgrad._LAZY.items():
        m = importlib.import_module(mod)
        want = m if attr is None else getattr(m, attr)
        got = getattr(leafgrad, name)
        # functions may come wrapped for NumPy-style keywords (axis=, keepdims=)
        assert got is want or getattr(got, "__wrapped__", None) is want, name
        assert name in dir(leafgrad)


def test_first_use_imports_the_module():
    assert _fresh("m = leafgrad.nn.Linear(2, 3)\nprint(type(m).__name__, "
                  "type(leafgrad.optim.SGD(m.parameters(), lr=0.1)).__name__)") == "Linear SGD"
    assert _fresh("from leafgrad import nn, save, vmap\nprint(nn.ReLU.__name__, save.__name__, "
                  "vmap.__name__)") == "ReLU save vmap"
    assert _fresh("import leafgrad.nn.functional as F\nprint(F.relu.__name__)") == "relu"
    assert _fresh("print(leafgrad.autograd.profiler.profile.__name__)") == "profile"


def test_unknown_attribute_raises_attribute_error():
    try:
        leafgrad.no_such_name
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("no AttributeError")
