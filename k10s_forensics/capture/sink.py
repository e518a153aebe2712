"""The gate between collector threads and the ``BundleWriter``.

After a stop the engine closes the bundle while some worker threads may still be blocked
in a call; a row arriving after that is dropped instead of reopening (and truncating) a
Parquet file.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping

from k10s_forensics.bundle import Bundle, BundleWriter


class Sink:
    """Thread-safe writes into a ``BundleWriter`` until ``close``."""

    def __init__(self, writer: BundleWriter):
        self.writer = writer
        self._lock = threading.Lock()
        self._closed = False
        self.dropped = 0

    def add(self, raw_name: str, row: Mapping[str, Any]) -> bool:
        """Write the row; False when the bundle is already closed."""
        with self._lock:
            if self._closed:
                self.dropped += 1
                return False
            self.writer.add(raw_name, row)
            return True

    def checkpoint(self) -> None:
        with self._lock:
            if not self._closed:
                self.writer.checkpoint()

    def close(self, complete: bool) -> Bundle:
        with self._lock:
            self._closed = True
            return self.writer.close(complete=complete)
