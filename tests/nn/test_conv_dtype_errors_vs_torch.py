"""Convolution operands of two dtypes: PyTorch checks the bias against the input first,
then the weight, each with its own message (torchinfo's ``dtypes=[torch.float64]`` on a
float32 model shows the bias one)."""
import pytest
import torch

import leafgrad

_CASES = [("f64", "f32", "f32"), ("f64", "f32", None), ("f32", "f32", "f64"),
          ("f64", "f64", "f32"), ("f32", "f64", None), ("f32", "f64", "f32")]


def _t(T, dt, shape):
    return T.zeros(*shape, dtype=T.float64 if dt == "f64" else T.float32)


@pytest.mark.parametrize("xd,wd,bd", _CASES)
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_conv_dtype_mismatch_message(xd, wd, bd, nd):
    msgs = []
    for T in (torch, leafgrad):
        x, w = _t(T, xd, (1, 1) + (4,) * nd), _t(T, wd, (1, 1) + (3,) * nd)
        b = None if bd is None else _t(T, bd, (1,))
        with pytest.raises(RuntimeError) as e:
            getattr(T.nn.functional, "conv%dd" % nd)(x, w, b)
        msgs.append(str(e.value))
    # PyTorch's sentence starts leafgrad's (which adds the fix)
    assert msgs[1].startswith(msgs[0]), msgs
    assert "Fix:" in msgs[1]
