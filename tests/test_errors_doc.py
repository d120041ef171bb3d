"""Every script in docs/errors.md, run with real PyTorch and with leafgrad as ``torch``.

Each ```python block starts with ``# expect: <Class>`` (an exception or a
warning class, or ``no error``) and usually ``# fix: <text>``. The test checks
that PyTorch gives that class, that leafgrad gives the same one (compared
through the nearest built-in class, as leafgrad's own errors subclass them),
and that leafgrad's message contains the fix text.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "errors.md"

_RUNNER = r'''
import builtins, json, sys, warnings
if sys.argv[1] == "leafgrad":
    from leafgrad._compat import torch_alias as _torch_alias
    _torch_alias.install()
import torch

def base(cls):
    for c in cls.__mro__:
        if c.__module__ == "builtins":
            return c.__name__
    return cls.__name__

out = []
for src in json.load(sys.stdin):
    rec = {"kind": "none"}
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            exec(compile(src, "<errors.md>", "exec"), {"__name__": "__main__"})
        except Exception as e:
            rec = {"kind": "error", "cls": base(type(e)), "msg": str(e)}
    rec["warnings"] = [{"cls": base(w.category), "msg": str(w.message)} for w in ws]
    out.append(rec)
    torch.autograd.set_detect_anomaly(False)
    torch.set_grad_enabled(True)
print(json.dumps(out))
'''


def _scripts():
    text = DOC.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    out = []
    for b in blocks:
        m = re.search(r"^# expect: (.+)$", b, re.M)
        if not m:
            continue
        f = re.search(r"^# fix: (.+)$", b, re.M)
        out.append((m.group(1).strip(), f.group(1).strip() if f else None, b))
    return out


SCRIPTS = _scripts()


def _run(impl):
    r = subprocess.run([sys.executable, "-c", _RUNNER, impl], capture_output=True, text=True,
                       input=json.dumps([s for _, _, s in SCRIPTS]), timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def results():
    return _run("torch"), _run("leafgrad")


def test_doc_has_scripts():
    assert len(SCRIPTS) >= 20


def _observed(rec, expect):
    """The record's class for ``expect`` (an error, a warning or 'no error')."""
    if expect == "no error":
        return ("no error" if rec["kind"] == "none" else rec["cls"]), ""
    if expect.endswith("Warning"):
        for w in rec["warnings"]:
            if w["cls"] == expect:
                return w["cls"], w["msg"]
        return "no %s" % expect, ""
    return (rec["cls"], rec["msg"]) if rec["kind"] == "error" else ("no error", "")


@pytest.mark.parametrize("index", range(len(SCRIPTS)),
                         ids=["%d-%s" % (i + 1, s[0].replace(" ", "_"))
                              for i, s in enumerate(SCRIPTS)])
def test_doc_script(results, index):
    expect, fix, src = SCRIPTS[index]
    torch_rec, lg_rec = results[0][index], results[1][index]
    t_cls, _ = _observed(torch_rec, expect)
    l_cls, l_msg = _observed(lg_rec, expect)
    assert t_cls == expect, "PyTorch gives %s for:\n%s" % (t_cls, src)
    assert l_cls == t_cls, "leafgrad gives %s (%s), PyTorch %s" % (l_cls, lg_rec, t_cls)
    if fix is not None:
        assert fix in l_msg, "fix %r not in leafgrad's message: %s" % (fix, l_msg)
