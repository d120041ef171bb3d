"""In-place ops: the machinery every ``x.op_()`` goes through (``arithmetic.apply``: version
bump, leaf and view checks, recording) with the in-place arithmetic, and the in-place
writes (``fill_``, ``copy_``, ``x[i] = v``, ``index_put_``, ``scatter_``, ...).
"""
