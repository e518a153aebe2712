"""How many threads each DuckDB database k10s opens may use when no ``--threads`` says so.

DuckDB's default is every core the machine reports, which in a pod with a CPU limit (``k10s
watch`` in the cluster) or beside other processes (a CI runner, a test suite's parallel workers)
is more threads than cores it may use: the work is the same, the threads only contend. Set
``K10S_THREADS=N`` to give every database k10s opens N threads (an explicit ``--threads`` still
wins). Outputs never depend on it (docs/rules.md, "Determinism").
"""

from __future__ import annotations

import os

from k10s_forensics.errors import InputError

ENV = "K10S_THREADS"
MAX_THREADS = 1024


def default_threads() -> int | None:
    """``K10S_THREADS`` as a number of threads, or None when unset (DuckDB's own default)."""
    text = (os.environ.get(ENV) or "").strip()
    if not text:
        return None
    if not text.isdigit() or not 1 <= int(text) <= MAX_THREADS:
        raise InputError(f"{ENV} must be a whole number of threads from 1 to {MAX_THREADS}, not {text!r}")
    return int(text)


def threads_or_default(threads: int | None) -> int | None:
    """``threads`` when given, else ``K10S_THREADS`` (None: DuckDB's default, every core)."""
    return threads if threads else default_threads()


__all__ = ["ENV", "default_threads", "threads_or_default"]
