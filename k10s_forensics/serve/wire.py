"""HTTP plumbing of serve kept cheap: reused handler threads, request line, headers, query.

The stdlib handler parses headers with the ``email`` package (about half of serve's CPU per
request in the capture benchmark) and starts a thread per connection (an exec is one
connection). Requests here are small and plain: headers are read into a case-insensitive
dict (the stdlib parser takes anything unusual), and finished handler threads wait for the
next connection instead of exiting.
"""

from __future__ import annotations

import heapq
import itertools
import queue
import threading
import time
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

MAX_LINE = 65536
MAX_HEADERS = 100
#: Idle handler threads kept waiting for connections (more are started when all are busy).
MAX_IDLE_THREADS = 256


class ReusingThreadsServer(ThreadingHTTPServer):
    """A ``ThreadingHTTPServer`` whose connection threads are reused (never fewer threads
    than connections in progress: a long watch or an injected hang holds only its own).

    With ``connect_delay_s`` (the injected latency) a new connection waits in a timer queue,
    not in a thread of its own, before a thread reads its first request; the handler sees
    ``predelayed`` set and does not sleep again for that request. An exec (one connection
    per call) then holds a thread for its work only, not for the latency: dozens of sleeping
    threads contending for the GIL cost more CPU than the answers themselves.
    """

    daemon_threads = True
    connect_delay_s = 0.0

    def __init__(self, *args: Any, **kwargs: Any):
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._idle = 0
        self._idle_lock = threading.Lock()
        self._due: list[tuple[float, int, Any, Any]] = []
        self._due_cond = threading.Condition()
        self._seq = itertools.count()
        self._timer: threading.Thread | None = None
        self.predelayed: set[Any] = set()
        super().__init__(*args, **kwargs)

    def process_request(self, request: Any, client_address: Any) -> None:
        if self.connect_delay_s > 0:
            with self._due_cond:
                if self._timer is None:
                    self._timer = threading.Thread(target=self._release_due, name="k10s-serve-latency", daemon=True)
                    self._timer.start()
                heapq.heappush(self._due, (time.monotonic() + self.connect_delay_s, next(self._seq), request, client_address))
                self.predelayed.add(request)
                self._due_cond.notify()
            return
        self._hand_over(request, client_address)

    def _release_due(self) -> None:
        while True:
            with self._due_cond:
                while not self._due or self._due[0][0] > time.monotonic():
                    self._due_cond.wait(self._due[0][0] - time.monotonic() if self._due else None)
                ready = []
                while self._due and self._due[0][0] <= time.monotonic():
                    ready.append(heapq.heappop(self._due))
            for _, _, request, client_address in ready:
                self._hand_over(request, client_address)

    def _hand_over(self, request: Any, client_address: Any) -> None:
        with self._idle_lock:
            start = self._idle == 0
            if not start:
                self._idle -= 1
        self._jobs.put((request, client_address))
        if start:
            threading.Thread(target=self._serve_connections, name="k10s-serve-conn", daemon=True).start()

    def _serve_connections(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            self.process_request_thread(*job)
            with self._idle_lock:
                if self._idle >= MAX_IDLE_THREADS:
                    return
                self._idle += 1

    def shutdown_request(self, request: Any) -> None:
        self.predelayed.discard(request)
        super().shutdown_request(request)

    def server_close(self) -> None:
        super().server_close()
        with self._due_cond:
            pending, self._due = self._due, []
        for _, _, request, _ in pending:
            self.shutdown_request(request)
        with self._idle_lock:
            idle, self._idle = self._idle, 0
        for _ in range(idle):
            self._jobs.put(None)


class Headers(dict):
    """Request headers by lower-cased name (``get``/``[]``/``in`` ignore case; last one wins)."""

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(key.lower(), default)

    def __getitem__(self, key: str) -> Any:
        return super().get(key.lower())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and super().__contains__(key.lower())


def parse_request(handler: Any, fallback: Any) -> bool:
    """``BaseHTTPRequestHandler.parse_request`` for plain HTTP/1.0 and 1.1 requests.

    Sets ``command``, ``path``, ``request_version``, ``headers``, ``close_connection``;
    anything else (HTTP/0.9, odd versions) goes to ``fallback()`` (the stdlib method).
    """
    line = str(handler.raw_requestline, "iso-8859-1").rstrip("\r\n")
    words = line.split()
    if len(words) != 3 or words[2] not in ("HTTP/1.1", "HTTP/1.0"):
        return fallback()
    handler.requestline = line
    handler.command, path, handler.request_version = words
    handler.path = "/" + path.lstrip("/") if path.startswith("//") else path
    headers = Headers()
    for _ in range(MAX_HEADERS + 1):
        raw = handler.rfile.readline(MAX_LINE + 1)
        if len(raw) > MAX_LINE:
            handler.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Line too long")
            return False
        if raw in (b"\r\n", b"\n", b""):
            break
        key, sep, value = raw.decode("iso-8859-1").partition(":")
        if sep:
            dict.__setitem__(headers, key.strip().lower(), value.strip())
    else:
        handler.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Too many headers")
        return False
    handler.headers = headers
    connection = headers.get("connection", "").lower()
    if connection == "close":
        handler.close_connection = True
    elif connection == "keep-alive":
        handler.close_connection = False
    else:
        handler.close_connection = handler.request_version != "HTTP/1.1"
    if headers.get("expect", "").lower() == "100-continue" and handler.request_version == "HTTP/1.1":
        return handler.handle_expect_100()
    return True


def parse_query(query: str) -> dict[str, list[str]]:
    """``parse_qs(query, keep_blank_values=True)``, without unquoting when nothing is quoted."""
    if not query:
        return {}
    if "%" in query or "+" in query:
        return parse_qs(query, keep_blank_values=True)
    out: dict[str, list[str]] = {}
    for part in query.split("&"):
        if part:
            key, _, value = part.partition("=")
            out.setdefault(key, []).append(value)
    return out


__all__ = ["Headers", "ReusingThreadsServer", "parse_query", "parse_request"]
