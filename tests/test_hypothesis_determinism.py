"""Seeded Hypothesis draws depend on the seed only, not on which modules are loaded.

Hypothesis mixes the literals of loaded local modules into its draws; the suite's
conftest freezes that pool (tests/conftest.py), because otherwise the fuzzer drew other
programs under ``pytest -n 2`` than in a re-run of one row, and CI failed on programs
no one could reproduce."""
import importlib
import sys

from hypothesis import given, seed, settings, strategies as st


def _draws():
    out = []

    @seed(20261202)
    @settings(max_examples=300, database=None, derandomize=False)
    @given(st.integers(0, 2 ** 64 - 1), st.floats(allow_nan=False))
    def record(i, f):
        out.append((i, f))
    record()
    return out


def test_draws_do_not_change_when_a_module_with_constants_is_imported(tmp_path, monkeypatch):
    before = _draws()
    consts = ", ".join(str(9_000_000_000_000_000_000 + 7919 * k) for k in range(200))
    (tmp_path / "module_with_constants.py").write_text(
        "INTS = [%s]\nFLOATS = [%s]\n" % (consts, ", ".join("%d.25" % k for k in range(200))))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("module_with_constants")
    try:
        assert _draws() == before
    finally:
        sys.modules.pop("module_with_constants", None)
