"""The hook through which ``torch.compile``'s capture records the ops of a call.

``tape[0]`` is None except while a compiled function's capturing call runs; then it is
that call's ``_dynamo.capture.Tape``. An op that can be replayed calls
``tape[0].op(kernel, operands, result, aux)`` after it made its result: ``kernel`` is
the NumPy function that computed it (called again on the operands' arrays in replay;
None when this call took a path the replay does not repeat, e.g. a dtype cast),
``operands`` its arguments (ndarrays, which the tape names by role, and constants),
``aux`` True when the kernel returns ``(array, node args)``. Ops that never call it are
not replayed: a capture that meets one stays eager. Imports nothing.
"""

tape = [None]
