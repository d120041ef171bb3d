"""Keep freed array memory in the process for reuse (glibc's malloc), set once at import.

NumPy allocates every result array with ``malloc``. glibc serves large blocks (from
128 KiB, a threshold it adapts) with a fresh ``mmap`` and gives freed memory back to
the system (``munmap``, or trimming the heap top), so the next array of that size
starts on new pages that the kernel zero-fills one page fault at a time. A training
step that makes and drops a few MB of temporaries per op pays that every step:
measured on the char_lstm / attention workloads of benchmarks/workloads_models.py,
2,600 / 1,400 minor page faults and 7 / 2.3 ms of system time per step, 20-25% of the
step; with the two thresholds below, 3 faults per step and 0.1 ms. PyTorch keeps its
memory too (72 / 256 faults per step on the same workloads).

M_MMAP_THRESHOLD = 32 MiB (glibc's maximum): blocks below it come from the heap;
M_TRIM_THRESHOLD = 128 MiB: up to that much free memory at the heap top is kept.
Larger arrays still get their own mappings. The process's resident size stays at its
high-water mark instead of shrinking between steps; peak memory is unchanged.

Not done when the user set any ``MALLOC_*`` variable (their choice wins), outside
glibc, or with ``LEAFGRAD_KEEP_MALLOC=1``. Source: mallopt(3).
"""
import os
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def tune():
    """Set the two thresholds; returns True when they were set."""
    if not sys.platform.startswith("linux") or os.environ.get("LEAFGRAD_KEEP_MALLOC") == "1" \
            or any(k.startswith("MALLOC_") for k in os.environ):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        gnu = libc.gnu_get_libc_version       # glibc only (musl's mallopt does nothing)
    except (OSError, AttributeError, ImportError):
        return False
    del gnu
    return bool(mallopt(_M_MMAP_THRESHOLD, 32 << 20)) and bool(mallopt(_M_TRIM_THRESHOLD,
                                                                        128 << 20))


tune()
