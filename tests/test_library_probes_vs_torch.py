"""Names and behaviours that libraries' own test suites probe (issue 28: torchdiffeq,
geoopt), each against PyTorch: torch.is_complex, torch._C._LinAlgError, ``t == None``."""
import pytest
import torch

import leafgrad


def test_is_complex():
    for name in ("float32", "float64", "int64", "bool", "complex64", "complex128"):
        ours = leafgrad.is_complex(leafgrad.zeros(2, dtype=getattr(leafgrad, name)))
        assert ours is torch.is_complex(torch.zeros(2, dtype=getattr(torch, name))), name
    for bad in (1.0, None, [1.0]):
        with pytest.raises(TypeError) as theirs:
            torch.is_complex(bad)
        with pytest.raises(TypeError) as ours:
            leafgrad.is_complex(bad)
        assert str(ours.value).startswith(str(theirs.value))


def test_linalg_error_is_torch_C_LinAlgError():
    assert leafgrad._C._LinAlgError is leafgrad.linalg.LinAlgError
    assert repr(leafgrad._C._LinAlgError) == repr(torch._C._LinAlgError)
    assert [c.__name__ for c in leafgrad._C._LinAlgError.__mro__] == \
        [c.__name__ for c in torch._C._LinAlgError.__mro__]
    with pytest.raises(torch._C._LinAlgError):
        torch.linalg.inv(torch.zeros(2, 2))
    with pytest.raises(leafgrad._C._LinAlgError):
        leafgrad.linalg.inv(leafgrad.zeros(2, 2))


@pytest.mark.parametrize("lib", [torch, leafgrad], ids=["torch", "leafgrad"])
def test_compare_with_none(lib):
    x = lib.ones(2)
    assert (x == None) is False and (x != None) is True        # noqa: E711
    assert (None == x) is False and (None != x) is True        # noqa: E711
    with pytest.raises(TypeError, match="'<' not supported between instances of 'Tensor' "
                                        "and 'NoneType'"):
        x < None                                                # noqa: B015
    assert (x == x).all()
