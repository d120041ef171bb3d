"""``torch.func.replace_all_batch_norm_modules_`` (torch/_functorch/batch_norm_replacement.py,
PyTorch 2.13): every BatchNorm module of ``root`` stops tracking running statistics (so vmap
over a batch-normed model uses batch statistics), in place."""
__all__ = ["replace_all_batch_norm_modules_"]


def replace_all_batch_norm_modules_(root):
    """Set ``running_mean`` / ``running_var`` / ``num_batches_tracked`` to None and
    ``track_running_stats`` to False on every ``_BatchNorm`` under ``root``; returns ``root``."""
    from ..nn.modules.batchnorm import _BatchNorm
    from ..nn.modules.instancenorm import _InstanceNorm
    for module in root.modules():
        # instance norms subclass _BatchNorm here, not in PyTorch: left alone as there
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
