"""``torch.onnx``: importable, so scripts that import it at the top run; exporting needs
PyTorch itself.

``export`` raises NotImplementedError: leafgrad does not trace models to ONNX. Move the
model to PyTorch (``leafgrad.bridge.to_torch(model)``, or save its ``state_dict`` and load
it into the same PyTorch architecture) and call ``torch.onnx.export`` there.
"""
__all__ = ["export", "is_in_onnx_export"]


def export(model, args=(), f=None, *a, **kw):
    """Raises NotImplementedError (see the module docstring for the way to do it)."""
    raise NotImplementedError(
        "torch.onnx.export is not available in leafgrad: it does not trace models to ONNX. "
        "Fix: move the model to PyTorch (leafgrad.bridge.to_torch(model), or "
        "torch.save(model.state_dict(), path) and load it into the same PyTorch model) and "
        "export it there with torch.onnx.export.")


def is_in_onnx_export():
    """False: never exporting."""
    return False
