"""Helpers shared by the tests that compare what leafgrad and real PyTorch do."""


def builtin_name(cls):
    """The nearest built-in exception class's name (leafgrad's errors subclass them)."""
    for c in cls.__mro__:
        if c.__module__ == "builtins":
            return c.__name__
    return cls.__name__


def raised(calls):
    """For each zero-argument call: "ok", or the builtin name of the exception it raised
    (compared between leafgrad and torch)."""
    out = []
    for c in calls:
        try:
            c()
            out.append("ok")
        except Exception as e:      # noqa: BLE001 - compared with torch
            out.append(builtin_name(type(e)))
    return out
