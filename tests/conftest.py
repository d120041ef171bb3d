import os
import sys

# One BLAS/OpenMP thread per test process (set before NumPy and torch load): `pytest -n 2`
# already keeps the cores busy, and BLAS threads spinning against each other on a busy
# machine made small matmuls 20x slower. No result depends on the thread count.
if "numpy" not in sys.modules:
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

from hypothesis import HealthCheck, settings


def _freeze_hypothesis_constants():
    """Hypothesis (>= 6.131) mixes the literals of every loaded module outside
    site-packages into its draws (providers._get_local_constants, looked up again when
    sys.modules grows), so a seeded test drew other examples when other test files had
    been imported first (``pytest -n 2``): the same seed, another program, a failure that
    a re-run alone did not show. The pool stays empty: draws depend on the seed only."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:         # pragma: no cover - another Hypothesis layout
        return
    if hasattr(providers, "_get_local_constants"):
        empty = providers.Constants()
        providers._get_local_constants = lambda: empty


_freeze_hypothesis_constants()

sys.path.insert(0, os.path.dirname(__file__))   # lets tests import op_table

settings.register_profile(
    "ci", max_examples=8, derandomize=True, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large])
settings.register_profile(
    "thorough", max_examples=25, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser):
    parser.addoption("--thorough", action="store_true", default=False,
                     help="the differential fuzzer (tests/fuzz) runs 10x more programs, with "
                          "random seeds (same as LEAFGRAD_FUZZ_THOROUGH=1)")


def pytest_configure(config):
    if config.getoption("--thorough"):
        os.environ["LEAFGRAD_FUZZ_THOROUGH"] = "1"   # read when tests/fuzz is imported
