"""The elementwise family's one import point: every unary op (``ops/elementwise/unary.py``) and
binary op (``ops/elementwise/binary.py``), and their factories ``_unary`` / ``_binary``.

The rules live in those two files (one declaration per op); this module declares
nothing and only gathers them, so ``from .elementwise import exp, mul, where`` and
``E.tanh`` keep working wherever the family is used.
"""
from .binary import *                                           # noqa: F401,F403
from .unary import *                                            # noqa: F401,F403
from .binary import _binary, _binary_np, _is_bool               # noqa: F401
from .unary import (_erf_np, _neg_method, _sigmoid_np, _sign_np, _unary, _unary_np,  # noqa: F401
                    _zero)
from . import arithmetic_keywords  # noqa: F401  (binds Tensor.add/sub/div's keyword forms)
