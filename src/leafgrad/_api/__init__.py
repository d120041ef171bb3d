"""The torch-level surface derived from the op declarations.

``functions`` (``torch.X``) and ``methods`` (``Tensor.X`` and the operators) are built from
``ops._registry``; beside them the typed legacy constructors (``legacy_constructors``),
NumPy-style keyword aliases (``numpy_compat``), DLPack and ``asarray`` (``interop``),
``torch.finfo``/``iinfo`` (``finfo``) and ``result_type``/``can_cast`` (``promotion``). May
import ``_core``, ``_tensor``, ``autograd`` and ``ops``; never ``nn`` or above.
"""
