"""``torch._dynamo.explain(f)(*args)``: why a function would not be one graph.

Runs ``f`` once eagerly under ``graph_breaks.watch`` and reports PyTorch's fields:
``graph_count`` (breaks + 1), ``graph_break_count``, ``break_reasons`` (objects with a
``reason``); ``str()`` prints them in PyTorch's layout (torch/_dynamo/backends/debugging.py).
"""
from . import eval_frame, graph_breaks


class BreakReason:
    def __init__(self, reason):
        self.reason = reason

    def __repr__(self):
        return "GraphCompileReason(reason=%r)" % (self.reason,)


class ExplainOutput:
    def __init__(self, reasons):
        self.break_reasons = [BreakReason(r) for r in reasons]
        self.graph_break_count = len(reasons)
        self.graph_count = len(reasons) + 1

    def __str__(self):
        lines = ["Graph Count: %d" % self.graph_count,
                 "Graph Break Count: %d" % self.graph_break_count, "Break Reasons:"]
        for i, b in enumerate(self.break_reasons, 1):
            lines += ["  Break Reason %d:" % i, "    Reason: %s" % b.reason]
        return "\n".join(lines) + "\n"


def explain(f, *extra_args, **extra_kwargs):
    """``explain(f)(*args, **kwargs)`` -> ``ExplainOutput``; the old ``explain(f, *args)``
    form (deprecated in PyTorch) calls at once."""
    def inner(*args, **kwargs):
        eval_frame._state["compiling"] += 1
        try:
            with graph_breaks.watch(False) as w:
                f(*args, **kwargs)
        finally:
            eval_frame._state["compiling"] -= 1
        return ExplainOutput(w.reasons)
    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner
