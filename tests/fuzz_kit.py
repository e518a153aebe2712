"""Hypothesis mutations of real and simulated inputs, and a per-input time bound.

Budget: ``K10S_FUZZ=long`` (or ``--fuzz-long`` via the env var in CI jobs that want it) runs
``LONG_EXAMPLES`` cases per target and 10 MB lines; the default is a short budget that
always runs in CI. Every fuzz test adds its case count to ``CASES`` (printed at the end of
the session by conftest-free code: see ``test_integrity_fuzz.py::test_zz_report_counts``).
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from contextlib import contextmanager

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

LONG = os.environ.get("K10S_FUZZ") == "long"
SHORT_EXAMPLES = int(os.environ.get("K10S_FUZZ_EXAMPLES", "30"))
LONG_EXAMPLES = int(os.environ.get("K10S_FUZZ_LONG_EXAMPLES", "1500"))
EXAMPLES = LONG_EXAMPLES if LONG else SHORT_EXAMPLES
BIG_LINE = (10 << 20) if LONG else (256 << 10)
#: Seconds one input may take before it counts as a hang.
TIME_BOUND_S = float(os.environ.get("K10S_FUZZ_TIME_BOUND_S", "20"))
CASES: Counter = Counter()

FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not LONG,  # CI: the same cases every run; long runs explore
    suppress_health_check=list(HealthCheck),
    database=None,
)

#: A whole rebuild per case is ~1 s: a quarter of the budget.
REBUILD_SETTINGS = settings(FUZZ_SETTINGS, max_examples=max(6, EXAMPLES // 4))

OPS = ("flip", "truncate", "splice", "big_line", "bad_utf8", "nest_json", "nest_xml", "huge_number", "nan", "negative",
       "bad_time", "dup_key", "empty", "nul")


class Hang(Exception):
    pass


@contextmanager
def time_bound(seconds: float = TIME_BOUND_S):
    """Raise Hang when the block runs longer than ``seconds`` (main thread, POSIX)."""

    def alarm(_sig, _frame):
        raise Hang(f"input took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def ops_strategy(max_ops: int = 4):
    return st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 1 << 30), st.integers(0, 1 << 30)), min_size=1, max_size=max_ops)


def mutate(text: str, ops: list[tuple[str, int, int]], other: str = "") -> str:
    """Apply mutation ops; positions are taken modulo the current length."""
    for op, a, b in ops:
        n = max(len(text), 1)
        i = a % n
        if op == "flip" and text:
            ch = text[i]
            text = text[:i] + chr((ord(ch) ^ (1 << (b % 7))) or 1) + text[i + 1 :]
        elif op == "truncate":
            text = text[:i]
        elif op == "splice" and other:
            j = b % max(len(other), 1)
            text = text[:i] + other[j:] if b % 2 else other[:j] + text[i:]
        elif op == "big_line":
            text = text[:i] + "A" * BIG_LINE + text[i:]
        elif op == "bad_utf8":
            # what invalid bytes become in a bundle (U+FFFD; lone surrogates are replaced on write too)
            text = text[:i] + b"\xff\xfe\xc3(\xed\xa0\x80".decode("utf-8", "replace") + "\u202e\ufeff"[: b % 3] + text[i:]
        elif op == "nest_json":
            depth = 200 + b % 5000
            text = text[:i] + "[" * depth + "]" * depth + text[i:]
        elif op == "nest_xml":
            depth = 200 + b % 5000
            text = text[:i] + "<a>" * depth + "</a>" * depth + text[i:]
        elif op == "huge_number":
            text = text[:i] + "9" * (20 + b % 400) + text[i:]
        elif op == "nan":
            text = text[:i] + ("NaN", "inf", "-Infinity", "nan")[b % 4] + text[i:]
        elif op == "negative":
            text = text[:i] + "-" + str(b) + text[i:]
        elif op == "bad_time":
            text = text[:i] + ("0000-00-00T00:00:00Z", "9999-12-31T23:59:60.999999999Z", "1969-12-31T23:59:59-25:00",
                               "[99999999999.000000]", "2026-13-45 25:61:61")[b % 5] + text[i:]
        elif op == "dup_key":
            text = text[:i] + '"name": "a", "name": "b", ' + text[i:]
        elif op == "empty":
            text = ""
        elif op == "nul":
            text = text[:i] + "\x00" + text[i:]
    return text


__all__ = ["CASES", "EXAMPLES", "FUZZ_SETTINGS", "REBUILD_SETTINGS", "Hang", "LONG", "mutate", "ops_strategy", "time_bound"]
