"""``leafgrad.optim``: optimizers."""
