"""Checkpoint formats: ``torch.save`` / ``torch.load`` without PyTorch.

``save_load`` is ``leafgrad.save``/``load`` (format choice, safetensors through the
``safetensors`` package, atomic writes, validated reads); ``torch_reader`` reads PyTorch's
zip and legacy formats through a restricted unpickler; ``torch_writer`` writes the zip
format. May import ``_core``, ``_tensor`` and ``_api``; ``leafgrad.serialization`` is the
public face.
"""
