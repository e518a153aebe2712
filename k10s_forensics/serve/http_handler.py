"""One HTTP request of ``k10s serve``: the stdlib handler (headers and body in one write, a cached
Date header, dropped connections ignored) that hands each verb to the server's ``dispatch``."""

from __future__ import annotations

import json
import socket
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from k10s_forensics.serve import wire

JSON = "application/json"
_DATE_CACHE: list = [0, ""]  # [second, Date header] (formatting it is a visible cost per request)


class _HTTPServer(wire.ReusingThreadsServer):
    request_queue_size = 1024
    allow_reuse_address = True


class Handler(BaseHTTPRequestHandler):
    """One request: discovery, resource reads, logs, exec, proxy, or a refused write."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without TCP_NODELAY every small answer
    # waits ~40 ms for the peer's delayed ACK.
    disable_nagle_algorithm = True
    server_version = "k10s-serve"
    app: Any  # the serve.app.ServeServer a bound subclass names (see ServeServer.__init__)

    # ---- plumbing -------------------------------------------------------------------------
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        if self.app.access_log:
            self.app.access_log.write(f"{self.address_string()} {format % args}\n")

    def parse_request(self) -> bool:
        return wire.parse_request(self, super().parse_request)

    def date_time_string(self, timestamp: float | None = None) -> str:
        if timestamp is not None:
            return super().date_time_string(timestamp)
        now = int(time.time())
        cached = _DATE_CACHE
        if cached[0] != now:
            cached[:] = [now, super().date_time_string(now)]
        return cached[1]

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionError, socket.timeout, BrokenPipeError):
            self.close_connection = True

    def send_bytes(self, code: int, body: bytes, content_type: str = JSON, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache, private")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers_with(body)

    def end_headers_with(self, body: bytes) -> None:
        """End the headers and send them with ``body`` in one write (one packet, one wake-up of the client)."""
        if not hasattr(self, "_headers_buffer"):  # HTTP/0.9: no headers
            self.end_headers()
            self.wfile.write(body)
            return
        self._headers_buffer.append(b"\r\n")
        self._headers_buffer.append(body)
        self.flush_headers()

    def send_json(self, code: int, doc: Any, headers: dict[str, str] | None = None) -> None:
        self.send_bytes(code, json.dumps(doc, separators=(",", ":")).encode(), JSON, headers)

    def send_status(self, doc: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self.send_json(int(doc["code"]), doc, headers)

    def drain_body(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)

    # ---- verbs ----------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 (stdlib naming)
        self.app.dispatch(self, "GET")

    def do_POST(self) -> None:  # noqa: N802
        self.app.dispatch(self, "POST")

    def do_PUT(self) -> None:  # noqa: N802
        self.app.dispatch(self, "PUT")

    def do_PATCH(self) -> None:  # noqa: N802
        self.app.dispatch(self, "PATCH")

    def do_DELETE(self) -> None:  # noqa: N802
        self.app.dispatch(self, "DELETE")


__all__ = ["JSON", "Handler"]
