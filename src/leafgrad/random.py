"""``torch.random``: the default generator's seed and state, and ``fork_rng``."""
import contextlib

from ._random.sampling import (get_rng_state, initial_seed, manual_seed, seed,  # noqa: F401
                               set_rng_state)
from ._random.generator import default_generator  # noqa: F401

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Run a block with the default generator's state saved on entry and restored on exit
    (as ``torch.random.fork_rng``; there are no accelerator generators here)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
