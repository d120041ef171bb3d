"""torch.utils.benchmark's Timer / Measurement / Compare: the same API and report layout
as PyTorch's (times themselves are never asserted)."""
import torch
import torch.utils.benchmark as tb

import leafgrad
import leafgrad.utils.benchmark as lb


def _shape(m):
    """The report's lines with the numbers blanked."""
    import re
    lines = repr(m).splitlines()[1:]
    return [re.sub(r"[0-9.]+ (ns|us|ms|s)\b", "T", l) for l in lines]


def test_timeit_report_like_torch():
    for B, T in ((tb, torch), (lb, leafgrad)):
        x = T.ones(10)
        m = B.Timer(stmt="x * 2", globals={"x": x}, label="mul", sub_label="10",
                    description="d").timeit(50)
        assert m.number_per_run == 50 and len(m.times) == 1 and m.times[0] > 0
        assert m.mean == m.median == m.times[0]
        assert m.title == "mul: 10"
    a = _shape(tb.Timer(stmt="x * 2", globals={"x": torch.ones(3)}).timeit(20))
    b = _shape(lb.Timer(stmt="x * 2", globals={"x": leafgrad.ones(3)}).timeit(20))
    assert a == b


def test_blocked_autorange_and_callables():
    seen = []
    m = lb.Timer(lambda: leafgrad.ones(3) + 1).blocked_autorange(
        callback=lambda n, t: seen.append((n, t)), min_run_time=0.01)
    assert len(m.times) == len(seen) >= 1
    assert sum(t for _, t in seen) >= 0.01
    assert abs(m.median - sorted(m.times)[len(m.times) // 2]) <= max(m.times)
    m2 = lb.Timer("y = 1 + 1").adaptive_autorange(min_run_time=0.01, max_run_time=0.2)
    assert len(m2.times) >= 4 or sum(m2.raw_times) >= 0.2


def test_compare_table_lists_every_cell():
    x = leafgrad.ones(5)
    rs = [lb.Timer(stmt=s, globals={"x": x}, label="ops", sub_label=str(n), description=s)
          .timeit(10) for s in ("x * 2", "x + 1") for n in (5,)]
    text = str(lb.Compare(rs))
    assert "ops" in text and "x * 2" in text and "x + 1" in text
    assert text.count("|") >= 4 and "Times are in" in text


def test_language_values_and_refusals():
    import pytest
    assert [(m.name, m.value) for m in lb.Language] == [(m.name, m.value) for m in tb.Language]
    for lang in (lb.Language.PYTHON, "python", "py"):
        assert lb.Timer("x = 1", language=lang).timeit(3).times[0] >= 0
    for B in (tb, lb):          # an unknown language: PyTorch's ValueError
        with pytest.raises(ValueError, match="Invalid language `fortran`"):
            B.Timer("x", language="fortran")
    # C++ statements and Callgrind: no counterpart here, refused saying so
    for lang in (lb.Language.CPP, "cpp", "c++"):
        with pytest.raises(NotImplementedError, match="no C\\+\\+ API"):
            lb.Timer("x;", language=lang)
    with pytest.raises(NotImplementedError, match="Valgrind"):
        lb.Timer("x = 1").collect_callgrind()


def test_report_header_shows_setup_and_multiline_statements_as_torch():
    cases = [dict(stmt="x * y", setup="\n    x = torch.ones((4,))\n    y = torch.ones((4,))\n"),
             dict(stmt="x * 2", setup="x = torch.ones(3)", description="d"),
             dict(stmt="a = 1\nb = 2", sub_label="s"),
             dict(stmt="x = 1", label="L", sub_label="s", description="two\nlines")]
    for kw in cases:
        assert _shape(tb.Timer(**kw).timeit(5)) == _shape(lb.Timer(**kw).timeit(5)), kw


def test_measurement_repr_names_torchs_class_under_leafgrad_run(tmp_path):
    import subprocess
    import sys
    s = tmp_path / "m.py"
    s.write_text("import torch.utils.benchmark as benchmark\n"
                 "m = benchmark.Timer(stmt='x + 1', globals={'x': 1}).timeit(10)\n"
                 "print(repr(m).splitlines()[0].split(' object at')[0])\n")
    lines = [subprocess.run(cmd + [str(s)], capture_output=True, text=True, check=True).stdout
             for cmd in ([sys.executable, "-m", "leafgrad", "run"], [sys.executable])]
    assert lines[0] == lines[1] == "<torch.utils.benchmark.utils.common.Measurement\n"
