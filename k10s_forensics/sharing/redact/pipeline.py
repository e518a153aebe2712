"""Small threading helpers: Arrow, RE2, zstd and hashlib release the GIL, so decoding the
next batch, redacting a few batches and encoding the previous one overlap on several cores
while the output stays in input order."""

from __future__ import annotations

import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")
WORKERS = max(1, min(4, os.cpu_count() or 1))


def prefetch(items: Iterable[T], depth: int = 1) -> Iterator[T]:
    """Yield ``items`` while a background thread decodes the next ``depth`` of them."""
    box: queue.Queue = queue.Queue(maxsize=depth)
    done = object()
    stop = threading.Event()

    def run() -> None:
        try:
            for item in items:
                if stop.is_set():
                    return
                box.put(item)
            box.put(done)
        except BaseException as exc:  # handed to the consumer
            box.put(exc)

    thread = threading.Thread(target=run, name="k10s-redact-read", daemon=True)
    thread.start()
    try:
        while True:
            item = box.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while thread.is_alive():
            try:
                box.get(timeout=0.1)
            except queue.Empty:
                pass


def ordered_map(fn: Callable[[T], R], items: Iterable[T], workers: int = WORKERS) -> Iterator[R]:
    """``map(fn, items)`` on ``workers`` threads, in order, with at most ``workers`` items in flight."""
    pending: deque[Future] = deque()
    with ThreadPoolExecutor(workers, thread_name_prefix="k10s-redact") as pool:
        try:
            for item in prefetch(items):
                pending.append(pool.submit(fn, item))
                if len(pending) >= workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


__all__ = ["prefetch", "ordered_map", "WORKERS"]
