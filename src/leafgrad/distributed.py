"""``torch.distributed``: importable, so single-process scripts that import it (nanoGPT,
minGPT-style trainers) run; there are no process groups.

leafgrad runs in one process on one CPU and has no distributed backend (no gloo, nccl or
mpi): :func:`is_available` is False and :func:`is_initialized` is False, so the usual
guards (``if dist.is_available() and dist.is_initialized(): ...``) take the
single-process branch. The collectives and rank queries raise PyTorch's ValueError for an
uninitialised default group; :func:`init_process_group` raises RuntimeError. To train on
several processes or machines, move to PyTorch: leafgrad's checkpoints and state dicts
load there unchanged.
"""
import os

__all__ = ["is_available", "is_initialized", "is_torchelastic_launched", "is_gloo_available",
           "is_nccl_available", "is_mpi_available", "init_process_group",
           "destroy_process_group", "get_rank", "get_world_size", "get_backend", "barrier",
           "all_reduce", "all_gather", "all_gather_object", "all_to_all", "broadcast",
           "broadcast_object_list", "reduce", "gather", "scatter", "reduce_scatter", "send",
           "recv", "new_group", "ReduceOp", "Backend", "GroupMember"]

_MOVE = ("leafgrad runs in a single process and has no distributed backend. Fix: run the "
         "script as one process (without torchrun / init_process_group), or move to "
         "PyTorch for distributed training: leafgrad checkpoints load there unchanged.")
_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group. (" + _MOVE + ")")


def is_available():
    """False: no process-group backend in leafgrad."""
    return False


def is_initialized():
    """False: the default process group never exists here."""
    return False


def is_torchelastic_launched():
    """True when started by torchrun (PyTorch checks ``TORCHELASTIC_RUN_ID``)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def is_gloo_available():
    return False


def is_nccl_available():
    return False


def is_mpi_available():
    return False


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Raises RuntimeError: there is no backend to join (see the module docstring)."""
    raise RuntimeError("torch.distributed.init_process_group: " + _MOVE)


def destroy_process_group(group=None):
    """Raises AssertionError, as PyTorch without a process group."""
    raise AssertionError("Process group cannot be None. (" + _MOVE + ")")


def _uninitialised(name):
    def fn(*args, **kwargs):
        raise ValueError(_NOT_INIT)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = ("Raises ValueError, as PyTorch's ``%s`` before ``init_process_group``."
                  % name)
    return fn


for _name in ("get_rank", "get_world_size", "get_backend", "barrier", "all_reduce",
              "all_gather", "all_gather_object", "all_to_all", "broadcast",
              "broadcast_object_list", "reduce", "gather", "scatter", "reduce_scatter", "send",
              "recv", "new_group"):
    globals()[_name] = _uninitialised(_name)
del _name


class ReduceOp:
    """The reduction names collectives take (``ReduceOp.SUM``), as PyTorch's."""
    SUM, PRODUCT, MIN, MAX = "SUM", "PRODUCT", "MIN", "MAX"
    BAND, BOR, BXOR, AVG, PREMUL_SUM = "BAND", "BOR", "BXOR", "AVG", "PREMUL_SUM"


class Backend(str):
    """Backend names (``Backend.GLOO == 'gloo'``); none is available here."""
    UNDEFINED, GLOO, NCCL, UCC, MPI = "undefined", "gloo", "nccl", "ucc", "mpi"

    def __new__(cls, name):
        return str.__new__(cls, name.lower())


class GroupMember:
    """``GroupMember.WORLD`` is None until a default group exists (never here)."""
    WORLD = None
    NON_GROUP_MEMBER = -100
