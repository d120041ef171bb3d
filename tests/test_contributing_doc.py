"""docs/contributing.md keeps its how-to sections (issue 25): an op, a module, an
optimizer, a distribution, a public namespace, and how to fuzz a new row deeply; the
fuzzing commands name the knobs the fuzzer really reads."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
SECTIONS = ["Adding an op: the declaration and one test row", "Adding a module",
            "Adding an optimizer", "Adding a distribution", "Adding a public namespace",
            "Fuzzing a new row deeply"]


def test_sections_exist_with_content():
    heads = re.findall(r"^#{2,3} (.+)$", DOC, re.M)
    for s in SECTIONS:
        assert s in heads, "docs/contributing.md lost its section %r" % s
        body = DOC.split(s, 1)[1].split("\n#", 1)[0]
        assert len(body.split()) >= 40, "section %r is nearly empty" % s


def test_fuzz_knobs_are_the_fuzzers():
    fuzz = (ROOT / "tests" / "fuzz" / "test_fuzz_vs_torch.py").read_text(encoding="utf-8")
    section = DOC.split("Fuzzing a new row deeply", 1)[1].split("\n## ", 1)[0]
    for knob in re.findall(r"\b(LEAFGRAD_FUZZ\w*)=", section):
        assert '"%s"' % knob in fuzz, knob
    for test in re.findall(r"::(test_\w+)\[", section):
        assert "def %s(" % test in fuzz, test
