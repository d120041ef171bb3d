"""Issue 26 item 4: wrong arguments raise PyTorch's exception class with PyTorch's message,
never a NumPy (or Python-internal) exception: ``chunk(0)``, a NumPy array given to a module,
``sum(dtype=str)``; and the Python types PyTorch takes as a dtype (``float`` -> float64)."""
import numpy as np
import pytest
import torch

import leafgrad

CALLS = {
    "chunk_0": lambda T: T.ones(4).chunk(0),
    "chunk_negative": lambda T: T.chunk(T.ones(4), -1),
    "linear_numpy_input": lambda T: T.nn.Linear(4, 2)(np.ones((1, 4), np.float32)),
    "linear_list_input": lambda T: T.nn.functional.linear([1.] * 4, T.ones(2, 4)),
    "linear_numpy_weight": lambda T: T.nn.functional.linear(T.ones(4), np.ones((2, 4))),
    "linear_numpy_bias": lambda T: T.nn.functional.linear(T.ones(4), T.ones(2, 4),
                                                          np.ones(2)),
    "relu_numpy": lambda T: T.relu(np.float64(1.)),
    "cumsum_dtype_str": lambda T: T.ones(3).cumsum(0, dtype=str),
    "sum_dim_dtype_str": lambda T: T.sum(T.ones(3), 0, dtype=str),
}


def _outcome(fn):
    try:
        fn()
    except Exception as exc:            # the class and message (before leafgrad's fix) are compared
        return type(exc), str(exc).split(". Fix: ")[0]
    return None, None


@pytest.mark.parametrize("name", sorted(CALLS))
def test_same_class_and_message_as_torch(name):
    theirs, ours = _outcome(lambda: CALLS[name](torch)), _outcome(lambda: CALLS[name](leafgrad))
    assert theirs[0] is not None
    assert ours == theirs


@pytest.mark.parametrize("call", [lambda T: T.ones(3).sum(dtype=str),
                                  lambda T: T.ones(3).mean(dtype="float32"),
                                  lambda T: T.ones(3).prod(dtype="a"),
                                  lambda T: T.ones(3).sum(dtype=np.float64)])
def test_dtype_that_is_not_a_dtype_is_a_type_error_as_in_torch(call):
    with pytest.raises(TypeError) as theirs:
        call(torch)
    with pytest.raises(TypeError, match="argument 'dtype' must be torch.dtype, not ") as ours:
        call(leafgrad)
    assert str(ours.value).split("(")[0] == str(theirs.value).split("(")[0]   # same op named


@pytest.mark.parametrize("py", [float, int, complex])  # bool: see below
@pytest.mark.parametrize("op", ["sum", "mean", "prod", "cumsum"])
def test_python_types_as_dtype(op, py):
    def call(T):
        x = T.ones(3)
        f = getattr(x, op)
        return f(0, dtype=py) if op == "cumsum" else f(dtype=py)
    theirs = _outcome(lambda: call(torch))
    if theirs[0] is not None:
        assert _outcome(lambda: call(leafgrad))[0] is theirs[0]
        return
    assert str(call(leafgrad).dtype) == str(call(torch).dtype)


# Not covered above: dtype=bool (and torch.bool) for sum/prod gives int64 here where PyTorch
# gives bool, and cumsum(dtype=bool) is accepted where PyTorch raises NotImplementedError:
# a difference of the bool dtype itself, not of how the dtype argument is read.
