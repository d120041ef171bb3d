"""``import leafgrad`` loads the core only; nn, optim, utils, serialization, ...
load on first use (leafgrad/__init__.py's ``_LAZY``) and then behave as if
they had been imported eagerly."""
import subprocess
import sys

import leafgrad

LAZY_MODULES = ("nn", "optim", "utils", "serialization", "accelerator", "amp", "backends",
                "cuda", "func", "functional", "onnx", "profiler", "sparse", "special", "fft",
                "signal")


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


def test_import_loads_no_numpy_submodule_that_numpy_itself_leaves_lazy():
    # numpy.random (~20 ms) loads on the first random draw, numpy.polynomial on the first
    # Bessel Y; threading and traceback are not needed to import either
    code = ("import sys\nprint(sorted(m for m in ('numpy.random', 'numpy.polynomial', "
            "'threading', 'traceback') if m in sys.modules))")
    base = subprocess.run([sys.executable, "-c", "import numpy\n" + code],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert _fresh(code) == base


def test_generators_whose_engine_is_made_late_draw_as_torch():
    torch = __import__("pytest").importorskip("torch")
    # fresh processes: the engine is first needed by get_state, manual_seed, a draw
    got = _fresh("g = leafgrad.Generator()\nprint(g.get_state()[:40].tolist(), "
                 "leafgrad.Generator().manual_seed(3).get_state()[-32:].tolist())")
    want = "%s %s" % (torch.Generator().get_state()[:40].tolist(),
                      torch.Generator().manual_seed(3).get_state()[-32:].tolist())
    assert got == want
    got = _fresh("leafgrad.manual_seed(7)\nprint(leafgrad.rand(3).tolist(), "
                 "leafgrad.randn(2, generator=leafgrad.Generator()).tolist())")
    torch.manual_seed(7)
    assert got == "%s %s" % (torch.rand(3).tolist(),
                             torch.randn(2, generator=torch.Generator()).tolist())
