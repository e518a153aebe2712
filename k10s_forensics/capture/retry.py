"""Time limits for capture: the global deadline, per-call timeouts, retries with backoff.

A capture must never make an incident worse nor hang: every call has a timeout, every
retry waits longer than the one before (and at least what the API server's ``Retry-After``
asks for on 429/503), and nothing starts after the global deadline or a Ctrl-C.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, TypeVar

from k10s_forensics.errors import CollectorError

T = TypeVar("T")

#: HTTP statuses worth another try: throttled, or the server/proxy had a bad moment.
RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})


class Stopped(Exception):
    """The capture was interrupted (Ctrl-C) or hit its global deadline."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class CallError(CollectorError):
    """One API call failed; ``kind`` says how (``forbidden``, ``not-found``, ``timeout``, ...).

    Attributes:
        status: HTTP status when the server answered, else None.
        kind: short class of failure used to decide retry and manifest status.
        retry_after_s: the server's Retry-After in seconds, when given.
    """

    def __init__(self, message: str, *, status: int | None = None, kind: str = "error", retry_after_s: float | None = None):
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.retry_after_s = retry_after_s

    @property
    def retryable(self) -> bool:
        return self.kind in ("timeout", "connection") or (self.status in RETRYABLE_STATUSES)


class Deadline:
    """The global deadline plus the stop flag set by Ctrl-C. Thread-safe."""

    def __init__(self, seconds: float | None, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._end = None if seconds is None else clock() + seconds
        self._stop = threading.Event()
        self.reason: str | None = None

    def stop(self, reason: str) -> None:
        if not self._stop.is_set():
            self.reason = reason
            self._stop.set()

    @property
    def stopped(self) -> bool:
        if not self._stop.is_set() and self._end is not None and self._clock() >= self._end:
            self.stop("deadline reached")
        return self._stop.is_set()

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None: no deadline); 0 once stopped."""
        if self.stopped:
            return 0.0
        return None if self._end is None else max(0.0, self._end - self._clock())

    def check(self) -> None:
        """Raise ``Stopped`` when nothing more may start."""
        if self.stopped:
            raise Stopped(self.reason or "stopped")

    def sleep(self, seconds: float) -> None:
        """Sleep, waking early (with ``Stopped``) on Ctrl-C or at the deadline."""
        left = self.remaining()
        wait = seconds if left is None else min(seconds, left)
        if wait > 0:
            self._stop.wait(wait)
        self.check()

    def bound(self, timeout_s: float) -> float:
        """A per-call timeout shortened to what is left before the deadline."""
        left = self.remaining()
        return timeout_s if left is None else max(0.05, min(timeout_s, left))


@dataclass
class RetryPolicy:
    """Exponential backoff with full jitter; Retry-After wins when the server gives one."""

    attempts: int = 4
    base_s: float = 0.25
    max_s: float = 8.0
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int, error: CallError) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        backoff = min(self.max_s, self.base_s * (2 ** (attempt - 1)))
        wait = self.rng.uniform(backoff / 2, backoff)
        if error.retry_after_s is not None:
            wait = max(wait, min(error.retry_after_s, 60.0))
        return wait


def call_with_retry(fn: Callable[[], T], policy: RetryPolicy, deadline: Deadline, on_retry: Callable[[CallError, float], None] | None = None) -> T:
    """Run ``fn`` until it succeeds, fails for good, or the deadline/Ctrl-C stops it.

    Raises:
        CallError: the last error when it is not retryable or attempts ran out.
        Stopped: the capture is stopping.
    """
    attempt = 0
    while True:
        deadline.check()
        attempt += 1
        try:
            return fn()
        except CallError as exc:
            if not exc.retryable or attempt >= policy.attempts:
                raise
            wait = policy.delay(attempt, exc)
            left = deadline.remaining()
            if left is not None and wait >= left:
                raise
            if on_retry is not None:
                on_retry(exc, wait)
            deadline.sleep(wait)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
