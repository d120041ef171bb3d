"""Pictures and printouts of the autograd graph behind a tensor, with its numbers.

* :func:`make_dot` builds a Graphviz drawing, in the style (and with the
  signature) of ``torchviz.make_dot``; with ``show_values=True,
  show_grads=True`` it also shows every node's value, the gradient along
  every edge and each leaf's ``.grad``. It needs the ``graphviz`` Python
  package (``pip install leafgrad[plot]``); images also need Graphviz's
  ``dot`` program.
* :func:`print_graph` prints the same graph as an indented text tree and
  needs nothing beyond NumPy.
* :func:`explain` spells out the chain rule from a loss back to one tensor.
* :class:`record` / :func:`record_grads` keep the values and gradients the
  two above show (nothing is recorded otherwise, so nothing is slowed down).

Both walk ``grad_fn.next_functions`` with an explicit stack, so graphs far
deeper than Python's recursion limit work, and they read only what PyTorch
exposes too, so they accept real ``torch`` tensors as well.

Example::

    >>> import leafgrad as torch
    >>> from leafgrad.utils.viz import print_graph
    >>> w = torch.ones(3, requires_grad=True)
    >>> loss = (w * 2).exp().sum()
    >>> print_graph(loss, params={"w": w})
    SumBackward0 (output, shape ())
      ExpBackward0
        MulBackward0
          AccumulateGrad (w, shape (3,))
"""
from ._dot import make_dot
from ._record import record, record_grads
from ._text import print_graph
from .explain import explain

__all__ = ["make_dot", "print_graph", "explain", "record", "record_grads"]
