"""Recording ``nn.functional.linear``'s fused node in one step (``ops.linalg.products.linear``).

``record(cls, out, (bias, input, weight), saved=(input, weight))`` followed by the
swap of the weight's edge for a ``TBackward0`` node costs two loops over the inputs,
the ``_edges`` property twice and a metadata tuple rebuilt; a linear layer runs once
per layer per step, so ``record_linear`` sets the same node state directly (the
state the generic path sets: ``tests/nn/test_linear_record.py`` compares the two).
"""
from ...autograd.graph import _NO_EDGE, _NO_META2
from .._dispatch import _TRUE1, _anomaly_hook, _new, _next_seq, _result, _save, _sync
from ..shape.views import TBackward0


def weight_edge(weight):
    """The (TBackward0 node, 0) edge for a weight that requires grad (the node
    ``weight.t()`` would record; made directly, the transpose itself is not needed)."""
    tn = _new(TBackward0)
    fn = weight._grad_fn
    if fn is not None:
        tn._e0, tn._n0 = fn, weight._output_nr
    else:
        tn._e0, tn._n0 = weight._grad_accumulator(), 0
    tn._rest = ()
    tn.needs_input_grad = _TRUE1
    tn._metas = (None,)
    tn._released = False
    tn._extra = tn.args = tn._saved = tn._out = None
    tn._seq = _next_seq()
    if _anomaly_hook[0] is not None:
        _anomaly_hook[0](tn)
    return (tn, 0)


def _edge(t):
    if not t._requires_grad:
        return _NO_EDGE
    fn = t._grad_fn
    return (fn, t._output_nr) if fn is not None else (t._grad_accumulator(), 0)


def record_linear(cls, out, input, weight, bias):
    """The result tensor of linear's node ``cls`` for a weight that requires grad, in
    grad mode, without forward AD (the caller checks): edges (bias, input, W^T) or
    (input, W^T), saved (input, weight)."""
    for t in (input, weight) if bias is None else (bias, input, weight):
        if t._base is not None and t._vmeta[0] != t._vc[0]:
            _sync(t)
    node = _new(cls)
    oshape, odt = out.shape, out.dtype
    d = input._data
    mx = None if d.shape == oshape and d.dtype == odt else (d.shape, d.dtype)
    ex = _edge(input)
    if bias is None:
        node._e0, node._n0 = ex
        node.needs_input_grad = (input._requires_grad, True)
        node._metas = _NO_META2 if mx is None else (mx, None)
    else:
        node._e0, node._n0 = _edge(bias)
        node.needs_input_grad = (bias._requires_grad, input._requires_grad, True)
        d = bias._data
        node._metas = (None if d.shape == oshape and d.dtype == odt else (d.shape, d.dtype),
                       mx, None)
    _save(node, (input, weight))
    res = _result(node, out, False, None)
    # the TBackward0 node is recorded after linear's own (a later sequence number)
    node._rest = weight_edge(weight) if bias is None else ex + weight_edge(weight)
    return res
