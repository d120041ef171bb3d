"""No function in src/leafgrad is longer than 100 lines (issue 21): a longer one
is split into named steps. The allowlist below names the few that must stay
long, each with the reason."""
import ast
import pathlib

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "leafgrad"
LIMIT = 100

# "path relative to src/leafgrad:qualified name" -> why it stays long. Empty:
# every function fits today; add an entry only with a reason a reviewer accepts
# (e.g. a hot loop whose steps would cost a Python call each).
ALLOWED = {
    # torch.compile's replay (merged at the end of session 11): to be split into named steps
    "_dynamo/capture.py:Program._backward_program": "replayed backward, one pass in engine order",
    "ops/elementwise/binary.py:_binary": "the binary-op factory with its inline fast path",
}


def _functions(tree):
    """(qualified name, lines) of every function and method, nested ones too."""
    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield prefix + child.name, child.end_lineno - child.lineno + 1
                yield from walk(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, prefix + child.name + ".")
            else:
                yield from walk(child, prefix)
    return walk(tree, "")


def _long_functions():
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for name, n in _functions(tree):
            if n > LIMIT:
                out["%s:%s" % (path.relative_to(SRC).as_posix(), name)] = n
    return out


def test_no_function_over_the_limit():
    long = {k: n for k, n in _long_functions().items() if k not in ALLOWED}
    assert not long, ("functions over %d lines (split them into named steps, or allowlist "
                      "them with the reason): %s" % (LIMIT, long))


def test_allowlist_is_current():
    # an entry that no longer names a long function goes away
    stale = set(ALLOWED) - set(_long_functions())
    assert not stale, "allowlisted but no longer over %d lines: %s" % (LIMIT, sorted(stale))
