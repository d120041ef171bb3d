"""Run modes shared by the fuzzers of tests/fuzz that are not op-table programs
(test_fuzz_optim, test_fuzz_indexing, test_fuzz_reductions), as test_fuzz_vs_torch's:
the default run (./dev test, CI) uses seeds derived from the test's name;
LEAFGRAD_FUZZ=thorough (or --thorough, LEAFGRAD_FUZZ_THOROUGH=1) runs 10x as many cases
with random seeds; LEAFGRAD_FUZZ=0 skips them."""
import builtins
import os
import random

import pytest

from _program import stable_seed

_MODE = os.environ.get("LEAFGRAD_FUZZ", "").strip().lower()
THOROUGH = _MODE == "thorough" or os.environ.get("LEAFGRAD_FUZZ_THOROUGH", "") not in ("", "0")
ENABLED = THOROUGH or _MODE not in ("0", "off", "no")
needs_fuzz = pytest.mark.skipif(not ENABLED, reason="LEAFGRAD_FUZZ=0: the fuzzers are left out")


def seeds(name, n):
    """``n`` seeds for the test ``name`` (10x as many, random, when thorough)."""
    base = random.SystemRandom().randrange(2 ** 32) if THOROUGH else stable_seed(name)
    return [(base + i) % 2 ** 32 for i in range(n * (10 if THOROUGH else 1))]


def exc_name(e):
    """The built-in exception class an error is (leafgrad's subclass RuntimeError etc.)."""
    for c in type(e).__mro__:
        if getattr(builtins, c.__name__, None) is c:
            return c.__name__
    return type(e).__name__
