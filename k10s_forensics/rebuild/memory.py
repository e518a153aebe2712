"""Keep freed heap memory in the process while parsers run (numpy's large temporaries).

glibc's malloc serves blocks above a (dynamic) threshold with a fresh ``mmap`` and hands them
back on free, and trims the heap's top above another: numpy's multi-MB temporaries in the
parsers (byte masks of a batch's text, token offsets) then cost a page fault and a kernel
zeroing of every page, again for each batch (ss: ~15% of its CPU time was that system time).
``keep_freed_memory`` raises both thresholds with ``mallopt`` so those blocks are reused from
the heap instead. The same trade as ``MIMALLOC_PURGE_DELAY`` in ``k10s_forensics/__init__``:
memory stays at its peak until the process exits. Output is unchanged. Off glibc it does
nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
#: glibc's largest mmap threshold on 64-bit (a larger value is refused)
MMAP_THRESHOLD_BYTES = 32 << 20
TRIM_THRESHOLD_BYTES = 1 << 30
TOP_PAD_BYTES = 64 << 20
_done = False
_long_lived = False


def give_back_freed_memory() -> None:
    """For a process that runs for days (``k10s watch``): pyarrow allocates through
    the system pool from now on (glibc trims and unmaps freed memory; mimalloc's pages are kept
    under ``MIMALLOC_PURGE_DELAY=-1``), and ``keep_freed_memory`` does nothing in this process.
    Each capture or analysis it runs then gives its memory back instead of holding the peak."""
    global _long_lived
    import pyarrow as pa

    _long_lived = True
    pa.set_memory_pool(pa.system_memory_pool())


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds once per process; True when glibc took them (False
    in a long-lived process: see ``give_back_freed_memory``)."""
    global _done
    if _long_lived:
        return False
    if _done:
        return True
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    ok = all(mallopt(param, value) == 1 for param, value in (
        (M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES), (M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES), (M_TOP_PAD, TOP_PAD_BYTES)))
    _done = ok
    return ok


__all__ = ["give_back_freed_memory", "keep_freed_memory"]
