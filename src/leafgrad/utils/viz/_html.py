"""A tensor's notebook display (``Tensor._repr_html_``): a one-line summary
(shape, dtype, leaf or the grad_fn that made it, requires_grad), the values as
``repr`` shows them (NumPy's summarisation for big tensors), their statistics,
and the ``.grad`` when there is one."""
import html

from . import _graph as G
from ._record import to_numpy

_STYLE = "font-family:monospace;font-size:12px;margin:2px 0"


def _summary(t):
    fn = t.grad_fn
    what = ("grad_fn=%s" % type(fn).__name__ if fn is not None else
            "leaf, requires_grad=True" if t.requires_grad else "constant (requires_grad=False)")
    return "tensor %s, %s" % (G.meta_text(t), what)


def tensor_html(t):
    """HTML for one tensor (see the module docstring)."""
    a = to_numpy(t)
    parts = ['<div style="%s"><b>%s</b></div>' % (_STYLE, html.escape(_summary(t)))]
    if a.size > 8:
        parts.append('<div style="%s">%s</div>' % (_STYLE, html.escape(G.value_text(a))))
    parts.append('<pre style="%s">%s</pre>' % (_STYLE, html.escape(repr(t))))
    g = t._grad if t.is_leaf else None
    if g is not None:
        parts.append('<div style="%s"><b>.grad</b> %s: %s</div>' % (
            _STYLE, html.escape(G.meta_text(g)), html.escape(G.value_text(to_numpy(g)))))
    return "<div>%s</div>" % "".join(parts)
