"""``x[idx] = value`` where value's dtype differs from x's, against PyTorch 2.13: a
tensor/list index (index_put_) refuses the mismatch; basic indices, Python numbers and a
one-element value under a boolean mask cast (issue 10: leafgrad cast silently)."""
import pytest
import torch

import leafgrad as lg

CASES = {
    "list_index_double_value": lambda T: ([0, 1], T.tensor([3.0, 4.0], dtype=T.float64)),
    "list_index_0d_double": lambda T: ([0, 1], T.tensor(3.0, dtype=T.float64)),
    "tensor_index_double": lambda T: (T.tensor([0, 1]), T.tensor([3.0, 4.0], dtype=T.float64)),
    "mask_two_values_double": lambda T: (T.tensor([True, False, True]),
                                         T.tensor([3.0, 4.0], dtype=T.float64)),
    "mask_one_value_double": lambda T: (T.tensor([True, False, True]),
                                        T.tensor([3.0], dtype=T.float64)),
    "mask_0d_double": lambda T: (T.tensor([True, False, True]), T.tensor(3.0, dtype=T.float64)),
    "list_index_long_value": lambda T: ([0, 1], T.tensor([3, 4])),
    "list_index_python_int": lambda T: ([0, 1], 5),
    "slice_double_value": lambda T: (slice(0, 2), T.tensor([3.0, 4.0], dtype=T.float64)),
    "none_and_list_double": lambda T: ((None, [0, 1]), T.tensor([3.0, 4.0], dtype=T.float64)),
    "same_dtype_list": lambda T: ([0, 2], T.tensor([3.0, 4.0])),
}


def _outcome(T, name, via):
    x = T.zeros(3)
    key, value = CASES[name](T)
    try:
        if via == "setitem":
            x[key] = value
        elif isinstance(value, T.Tensor) and not isinstance(key, (slice, tuple)):
            x.index_put_((T.as_tensor(key),), value)
        else:
            return "n/a"
    except RuntimeError as e:
        return ("RuntimeError", x.tolist(), "dtypes match" in str(e))
    return ("ok", x.tolist())


@pytest.mark.parametrize("via", ["setitem", "index_put_"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_setitem_dtype_rule_matches_torch(name, via):
    assert _outcome(lg, name, via) == _outcome(torch, name, via)
