"""Empty tensors inside joins, compared with real PyTorch (issue 26, item 8): cat skips a
1-d empty tensor (its legacy rule) but still gives it an empty gradient, not None; stack,
hstack, vstack, dstack, column_stack with empties; gradients and second order."""
import numpy as np
import torch
from hypothesis import given, settings, strategies as st

import leafgrad

from _outcome import builtin_name

JOINS = {
    "cat0": lambda T, xs: T.cat(xs), "cat_last": lambda T, xs: T.cat(xs, -1),
    "concat": lambda T, xs: T.concat(xs), "hstack": lambda T, xs: T.hstack(xs),
    "vstack": lambda T, xs: T.vstack(xs), "stack": lambda T, xs: T.stack(xs),
    "dstack": lambda T, xs: T.dstack(xs), "column_stack": lambda T, xs: T.column_stack(xs),
    "row_stack": lambda T, xs: T.row_stack(xs),
    "cat_of_products": lambda T, xs: T.cat([x * 2 for x in xs]),
}
SHAPES = st.sampled_from([(0,), (3,), (2,), (0, 3), (2, 3), (2, 0), (1, 3), (0, 0)])


def _outcome(T, join, shapes, dtypes):
    xs = [T.arange(int(np.prod(s)), dtype=getattr(T, d)).reshape(s).requires_grad_()
          for s, d in zip(shapes, dtypes)]
    try:
        y = JOINS[join](T, xs)
        w = T.arange(y.numel(), dtype=y.dtype).reshape(y.shape)
        gs = T.autograd.grad((y * y * w).sum(), xs, create_graph=True, allow_unused=True)
        first = [None if g is None else (tuple(g.shape), str(g.dtype), g.tolist()) for g in gs]
        used = [g for g in gs if g is not None and g.requires_grad]
        second = [] if not used else [
            None if h is None else h.tolist()
            for h in T.autograd.grad(sum(g.sum() for g in used), xs, allow_unused=True)]
        return (tuple(y.shape), str(y.dtype), len(y.grad_fn.next_functions), first, second)
    except Exception as e:      # noqa: BLE001 - compared with torch
        return builtin_name(type(e))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(JOINS)), st.lists(SHAPES, min_size=1, max_size=4),
       st.lists(st.sampled_from(["float32", "float64"]), min_size=4, max_size=4))
def test_joins_with_empty_tensors_like_torch(join, shapes, dtypes):
    assert _outcome(leafgrad, join, shapes, dtypes) == _outcome(torch, join, shapes, dtypes)


def test_cat_gives_a_skipped_empty_input_an_empty_gradient_like_torch():
    for T in (torch, leafgrad):
        e, x = T.zeros(0, requires_grad=True), T.ones(2, 3, requires_grad=True)
        y = T.cat([e, x])
        assert len(y.grad_fn.next_functions) == 2
        y.sum().backward()
        assert e.grad is not None and tuple(e.grad.shape) == (0,)
        assert x.grad.tolist() == [[1.0] * 3] * 2
