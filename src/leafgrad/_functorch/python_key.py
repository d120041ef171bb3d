"""``make_fx`` (``torch._functorch.python_key``): graph tracing, which leafgrad does not do."""


def make_fx(f, decomposition_table=None, tracing_mode="real", *args, **kwargs):
    """Refused: PyTorch traces ``f`` into a ``torch.fx`` graph of ATen ops; leafgrad runs
    eagerly on NumPy and has neither ATen ops nor torch.fx.

    Raises:
        NotImplementedError: always."""
    raise NotImplementedError(
        "make_fx traces a function into a torch.fx graph of ATen operators; leafgrad runs "
        "eagerly on NumPy and has no ATen operators or torch.fx. Fix: call the function "
        "directly (its autograd graph is recorded as it runs)")
