"""``torch.__future__``: the flags that choose how ``nn.Module`` conversions (``to``,
``float()``, ``load_state_dict``) replace parameters. leafgrad's conversions always keep
each parameter object and change its data in place (the result PyTorch gives with both
flags False or True alike, for the CPU dtypes leafgrad has), so the flags are stored and
read back. Source: PyTorch's torch/__future__.py.
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
