"""The tensor layer: ``Tensor`` and what makes one.

``tensor`` (the class: data, ``requires_grad``, ``grad``, ``grad_fn``, version counter),
``creation`` (``torch.tensor``, ``zeros``, ``arange``, ...; ``factory_out`` is their
``out=``), ``tensor_str`` (``repr``, as PyTorch's ``torch/_tensor_str.py``), ``storage``
(``data_ptr``, ``untyped_storage``), the ``meta`` device (``meta``, ``meta_rules``), wrapper
subclasses and ``torch.ops.aten`` (``wrapper_subclass``, ``aten``). May import ``_core`` and
the graph layer (``autograd.graph``, ``autograd.grad_mode``); not ``ops`` or above.
"""
