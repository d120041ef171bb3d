"""The README's "Not there yet" list stays true: every ``torch.X`` it names as missing is
missing (when one is built, this fails until the README is corrected), and the ones it says
refuse do refuse."""
import os
import re

import pytest

import leafgrad

_README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def _paragraph():
    text = open(_README, encoding="utf-8").read()
    start = text.index("Not there yet")
    return text[start:text.index("\n\n", start)]


def _named_missing():
    names = re.findall(r"`torch\.([A-Za-z_][A-Za-z0-9_]*)`", _paragraph())
    # named as there-but-refusing, not as missing
    return sorted(set(names) - {"bfloat16", "compile", "linalg"})


def test_the_list_names_something():
    assert len(_named_missing()) >= 1, _named_missing()   # the regex still finds the names


@pytest.mark.parametrize("name", _named_missing())
def test_listed_name_is_missing(name):
    assert not hasattr(leafgrad, name), (
        "torch.%s exists now: take it off the README's 'Not there yet' list" % name)


def test_listed_refusals_refuse():
    with pytest.raises(TypeError):
        leafgrad.tensor([1.0], dtype=leafgrad.bfloat16)
    m = leafgrad.nn.Linear(2, 2)
    assert leafgrad.compile(m)._orig_mod is m   # compile is there now (tests/compile/)
