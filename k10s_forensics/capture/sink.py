"""The gate between collector threads and the ``BundleWriter``: a queue and one writer thread.

Workers hand rows over and go back to the network at once; the writer thread appends them to
the Parquet writers (whose flushes compress megabytes and would otherwise stall every worker
waiting for a lock). After a stop the engine seals the sink while some worker threads may
still be blocked in a call; a row arriving after that is dropped instead of reopening (and
truncating) a Parquet file. Every row accepted before ``seal`` is written.
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Mapping

from k10s_forensics.store.bundle import Bundle, BundleWriter
from k10s_forensics.errors import BundleError

_STOP = object()


class _Checkpoint:
    def __init__(self, collectors: list[dict[str, Any]] | None):
        self.collectors = collectors


class Sink:
    """Thread-safe, non-blocking writes into a ``BundleWriter`` until ``seal``/``close``."""

    def __init__(self, writer: BundleWriter):
        self.writer = writer
        self._lock = threading.Lock()
        self._closed = False
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.failure: BaseException | None = None
        self.dropped = 0
        self._thread = threading.Thread(target=self._write_rows, name="k10s-capture-writer", daemon=True)
        self._thread.start()

    def add(self, raw_name: str, row: Mapping[str, Any]) -> bool:
        """Queue the row for writing; False when the bundle is already sealed.

        Raises:
            BundleError: writing an earlier row failed (disk full, ...).
        """
        if self.failure is not None:
            raise BundleError(f"writing the bundle failed: {self.failure}")
        with self._lock:
            if self._closed:
                self.dropped += 1
                return False
            self._queue.put((raw_name, row))
            return True

    def _write_rows(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            if isinstance(item, _Checkpoint):
                self._checkpoint_now(item.collectors)
                continue
            if self.failure is not None:
                continue
            try:
                self.writer.add(*item)
            except Exception as exc:  # reported to the next add() and by seal()
                self.failure = exc

    def _drain(self) -> None:
        """Wait until every row queued so far is in the writer."""
        if not self._thread.is_alive():
            return
        done = threading.Event()
        self._queue.put(done)
        done.wait()

    def checkpoint(self, collectors: list[dict[str, Any]] | None = None, wait: bool = False) -> None:
        """Write the rows so far to Parquet and rewrite the manifest (the bundle stays readable).

        Done by the writer thread after the rows queued so far; ``collectors`` (manifest entries,
        a snapshot) replaces the manifest's list first. ``wait``: return once it is written.
        """
        with self._lock:
            if self._closed:
                return
            self._queue.put(_Checkpoint(collectors))
        if wait:
            self._drain()

    def _checkpoint_now(self, collectors: list[dict[str, Any]] | None) -> None:
        with self._lock:
            if self._closed:
                return
        try:
            if collectors is not None:
                self.writer.manifest["collectors"] = collectors
            self.writer.checkpoint()
        except Exception as exc:  # reported to the next add() and by seal()
            self.failure = exc

    def seal(self) -> None:
        """Accept no more rows and wait until the accepted ones are written."""
        with self._lock:
            self._closed = True
        self._drain()
        self._queue.put(_STOP)
        self._thread.join()

    def close(self, complete: bool) -> Bundle:
        self.seal()
        return self.writer.close(complete=complete)
