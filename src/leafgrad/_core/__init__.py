"""The bottom layer: what every other layer needs and nothing of leafgrad's own.

Error classes and every user-facing message (``errors``), dtypes and PyTorch's type
promotion (``dtype``), Python numbers as PyTorch's Scalar rules read them (``scalars``),
the fused multiply-add emulation (``fma``), NumPy's warning silencer (``quiet``) and the
allocator setting (``malloc``). Modules here import NumPy and each other only: never
``_tensor``, ``autograd``, ``ops`` or anything above.
"""
