"""Misuse raises what PyTorch raises (the same exception class, or a subclass of it) with a
message that keeps PyTorch's words and adds a Fix; and the bad call changes nothing."""
import numpy as np
import pytest
import torch

import leafgrad as lg


def raises_like_torch(call, torch_words=None):
    """call(lib) raises under both; leafgrad's error is an instance of torch's class, and
    its message names torch's cause (torch_words, default torch's whole message) and a Fix."""
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(Exception) as le:
        call(lg)
    assert isinstance(le.value, type(te.value)), (type(le.value), type(te.value))
    words = str(te.value) if torch_words is None else torch_words
    assert words in str(te.value)
    assert words in str(le.value), str(le.value)
    assert "Fix" in str(le.value), str(le.value)
    return le.value


@pytest.mark.parametrize("fn", ["std", "var"])
@pytest.mark.parametrize("make", [lambda t: t.tensor([1, 2, 3]), lambda t: t.tensor([[True], [False]]),
                                  lambda t: t.tensor([1, 2], dtype=t.int32)])
@pytest.mark.parametrize("kw", [{}, {"dim": 0}, {"dim": 0, "correction": 0}])
def test_std_var_of_integer_tensors(fn, make, kw):
    raises_like_torch(lambda t: getattr(make(t), fn)(**kw))
    raises_like_torch(lambda t: getattr(t, fn)(make(t), **kw))
