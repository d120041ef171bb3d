"""Random streams: PyTorch's CPU generator, bit for bit.

``generator`` is ``torch.Generator`` (mt19937 seeded as PyTorch seeds it, its 5056-byte
state, the draw transforms); ``sampling`` holds ``rand``, ``randn``, ``randint``,
``randperm``, ``normal``, ``bernoulli``, ``multinomial`` and the in-place fills. May import
``_core``, ``_tensor`` and ``ops`` (the fills are in-place ops); ``nn``, ``utils.data`` and
the dropout ops draw from here.
"""
