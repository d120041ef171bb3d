"""Every fenced code block of README.md and docs/*.md is either run or checked.

- ```python blocks run, each in a fresh interpreter in a temporary folder, one
  top-level statement at a time. A statement that prints shows what it prints
  in its trailing comment and/or the full-line comments right below it; the
  test compares the two, line by line. A non-printing assignment whose
  trailing comment starts with ``tensor(`` is compared with the value's repr.
  Other comments (on statements that print nothing) are prose.
- A ```python block right after ``<!-- excerpt: PATH -->`` quotes source: it
  must appear verbatim in PATH (so the quote cannot drift from the code).
- docs/errors.md's blocks with ``# expect:`` are run by test_errors_doc.py
  (against real PyTorch too).
- Blocks in another language (```text, ```bash, ```mermaid) are not Python
  and are not run; an untagged block is refused, so nothing is left unclassified.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)
EXCERPT = re.compile(r"<!-- excerpt: (\S+) -->\s*$")
NOT_PYTHON = {"text", "bash", "mermaid"}

_RUNNER = r'''
import ast, contextlib, io, sys, tokenize

src = sys.stdin.read()
lines = src.splitlines()


def comments(stmt):
    """The trailing comment of the statement's last line, then the full-line
    comments straight below it, '# ' taken off."""
    out = []
    toks = tokenize.generate_tokens(io.StringIO(lines[stmt.end_lineno - 1] + "\n").readline)
    for t in toks:
        if t.type == tokenize.COMMENT and t.start[1] >= stmt.end_col_offset:
            out.append(t.string[1:].strip())
    i = stmt.end_lineno
    while i < len(lines) and lines[i].lstrip().startswith("#"):
        out.append(lines[i].lstrip()[1:].removeprefix(" ").rstrip())
        i += 1
    return out


env = {"__name__": "__main__"}
bad = []
for stmt in ast.parse(src).body:
    code = compile(ast.Module([stmt], []), "<doc block>", "exec")
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(code, env)
    shown = comments(stmt)
    got = [ln.rstrip() for ln in buf.getvalue().splitlines()]
    if not got and shown and shown[0].startswith("tensor(") and isinstance(stmt, ast.Assign) \
            and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        got, shown = [repr(env[stmt.targets[0].id])], shown[:1]
    if got and shown and got != shown:
        bad.append("line %d: the text shows\n  %s\nit prints\n  %s"
                   % (stmt.lineno, "\n  ".join(shown), "\n  ".join(got)))
    sys.stdout.write(buf.getvalue())
if bad:
    sys.exit("\n".join(bad))
'''


def _blocks():
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
            out.append((doc.relative_to(ROOT).as_posix(), line, m.group(1).strip(),
                        m.group(2), EXCERPT.search(before)))
    return out


BLOCKS = _blocks()
RUN = [b for b in BLOCKS if b[2] == "python" and not b[4]
       and not (b[0] == "docs/errors.md" and "# expect:" in b[3])]
QUOTES = [b for b in BLOCKS if b[2] == "python" and b[4]]


def test_every_block_is_classified():
    odd = ["%s:%d ```%s" % b[:3] for b in BLOCKS if b[2] != "python" and b[2] not in NOT_PYTHON]
    assert not odd, "tag these blocks (python, or one of %s):\n%s" % (sorted(NOT_PYTHON),
                                                                        "\n".join(odd))


def test_the_blocks_are_found():
    # the README's three examples and architecture.md's call path at least
    assert len(RUN) >= 4 and len(QUOTES) >= 2, [b[:2] for b in RUN + QUOTES]


@pytest.mark.parametrize("block", QUOTES, ids=["%s:%d" % b[:2] for b in QUOTES])
def test_quoted_source_is_in_the_file(block):
    doc, line, _, body, ref = block
    target = ROOT / ref.group(1)
    assert target.is_file(), "%s:%d quotes %s, which does not exist" % (doc, line, target)
    src = target.read_text(encoding="utf-8")
    assert body in src, "%s:%d no longer matches %s: copy the code again" % (doc, line, ref.group(1))


@pytest.mark.parametrize("block", RUN, ids=["%s:%d" % b[:2] for b in RUN])
def test_block_runs_and_prints_what_it_shows(block, tmp_path):
    doc, line, _, body, _ = block
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg",
               PYTHONHASHSEED="0", OMP_NUM_THREADS="1")
    p = subprocess.run([sys.executable, "-c", _RUNNER], input=body, cwd=str(tmp_path), env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, "%s:%d (the block's own line numbers):\n%s" % (doc, line,
                                                                          p.stderr[-3000:])
