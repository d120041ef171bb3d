"""pyproject.toml stays in the form current setuptools installs without deprecation warnings."""
import pathlib
import re

import pytest

tomllib = pytest.importorskip("tomllib")

PYPROJECT = pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_license_is_an_spdx_string_and_setuptools_supports_it():
    data = tomllib.loads(PYPROJECT.read_text())
    # a table ({text = "MIT"}) makes setuptools print a SetuptoolsDeprecationWarning
    assert data["project"]["license"] == "MIT"
    (req,) = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    # the SPDX string form needs setuptools >= 77
    assert tuple(map(int, re.search(r">=\s*([\d.]+)", req).group(1).split("."))) >= (77,)
