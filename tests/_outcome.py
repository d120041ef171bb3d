"""Helpers shared by the tests that compare what leafgrad and real PyTorch do."""


def builtin_name(cls):
    """The nearest built-in exception class's name (leafgrad's errors subclass them)."""
    for c in cls.__mro__:
        if c.__module__ == "builtins":
            return c.__name__
    return cls.__name__
