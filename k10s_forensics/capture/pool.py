"""A bounded pool of daemon worker threads.

Like ``concurrent.futures.ThreadPoolExecutor`` but with daemon threads: after Ctrl-C or the
global deadline the engine closes the bundle and exits at once, instead of waiting for
calls still blocked in the network (each of which has its own timeout anyway).
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable, Iterable

from k10s_forensics.capture.retry import Deadline, Stopped


class WorkPool:
    """``concurrency`` worker threads taking tasks from one queue (started lazily)."""

    def __init__(self, concurrency: int, name: str = "k10s-capture"):
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency
        self._name = name
        self._queue: queue.SimpleQueue[tuple[Future, Callable[..., Any], tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._idle = 0

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        fut: Future = Future()
        with self._lock:
            if len(self._threads) < self.concurrency:
                thread = threading.Thread(target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()
        self._queue.put((fut, fn, args))
        return fut

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            fut, fn, args = job
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn(*args))
            except BaseException as exc:  # delivered to the waiter
                fut.set_exception(exc)

    def wait(self, futures: Iterable[Future], deadline: Deadline, poll_s: float = 0.2) -> None:
        """Wait for all futures; raise ``Stopped`` as soon as the capture stops."""
        for fut in futures:
            while True:
                try:
                    fut.result(timeout=poll_s)
                    break
                except TimeoutError:
                    if deadline.stopped:
                        raise Stopped(deadline.reason or "stopped") from None
                except BaseException:
                    break  # the caller looks at fut.exception()

    def shutdown(self) -> None:
        """Ask idle workers to exit (busy daemon threads die with the process)."""
        for _ in self._threads:
            self._queue.put(None)
