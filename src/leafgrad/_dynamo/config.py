"""``torch._dynamo.config``: the settings eager code reads or sets, with PyTorch's defaults.

``recompile_limit`` (``cache_size_limit`` is its old name, kept in step by
``eval_frame``) bounds the captures kept per compiled function: past it the function
runs eagerly, with one warning, as PyTorch's does.
"""

recompile_limit = 8
cache_size_limit = 8
accumulated_recompile_limit = 256
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
suppress_errors = False
verbose = False
optimize_ddp = True
automatic_dynamic_shapes = True
assume_static_by_default = True
