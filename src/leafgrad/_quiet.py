"""A re-entrant ``np.errstate(all='ignore')``.

PyTorch computes log(0) = -inf, 0/0 = nan silently; NumPy warns. Ops that
can produce such values run inside ``quiet``. ``np.errstate`` objects
cannot be entered twice, and nesting is common (an op inside a backward
pass), so only the outermost ``with quiet:`` touches NumPy's state.
"""
import numpy as np

_depth = [0]
_active = []


class _Quiet:
    __slots__ = ()

    def __enter__(self):
        if _depth[0] == 0:
            e = np.errstate(all="ignore")
            e.__enter__()
            _active.append(e)
        _depth[0] += 1

    def __exit__(self, *exc):
        _depth[0] -= 1
        if _depth[0] == 0:
            _active.pop().__exit__(*exc)


quiet = _Quiet()
