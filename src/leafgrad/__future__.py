"""``torch.__future__``: the flags that choose how ``nn.Module`` conversions (``to``,
``float()``, ``load_state_dict``) replace parameters. leafgrad's conversions keep each
parameter object and change its data in place; with
``set_swap_module_params_on_conversion(True)`` they swap the converted tensor into it
(``torch.utils.swap_tensors``: a wrapper subclass's attributes move too) and
``load_state_dict`` goes through ``Tensor.module_load``, as PyTorch
(nn/modules/_module_state.py). The overwrite flag is stored and read back (for the CPU
dtypes leafgrad has, PyTorch's result is the same either way). Source: PyTorch's
torch/__future__.py.
"""
_overwrite_module_params_on_conversion = False
_swap_module_params_on_conversion = False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Store the flag (PyTorch: assign new parameters instead of changing ``.data``)."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = bool(value)


def get_overwrite_module_params_on_conversion() -> bool:
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Store the flag (PyTorch: use ``torch.utils.swap_tensors`` for conversions)."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = bool(value)


def get_swap_module_params_on_conversion() -> bool:
    return _swap_module_params_on_conversion
