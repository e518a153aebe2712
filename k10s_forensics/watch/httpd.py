"""The watcher's HTTP endpoint: ``GET /healthz``, ``GET /metrics``, ``GET /`` (the index
page), ``GET /<id>/report.html``, ``POST /alertmanager`` and ``POST /trigger``.

Request bodies need a ``Content-Length`` of at most 1 MiB (else 411/413, before reading);
each is parsed and schema-checked by ``alerts.py``; a refused body costs one counter and a
400 with a one-line reason.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from k10s_forensics.watch import alerts, page, store

REPORT = "report.html"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class Handler(BaseHTTPRequestHandler):
    watcher: Any
    server_version = "k10s-watch"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib signature)
        pass

    def _send(self, code: int, body: bytes, ctype: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, code: int, doc: Any) -> None:
        self._send(code, json.dumps(doc).encode() + b"\n")

    def do_GET(self) -> None:  # noqa: N802 (stdlib naming)
        path = self.path.split("?", 1)[0]
        w = self.watcher
        if path == "/healthz":
            ok, why = w.health()
            return self._send(200 if ok else 503, (why + "\n").encode(), "text/plain; charset=utf-8")
        if path == "/metrics":
            return self._send(200, w.metrics.render().encode(), "text/plain; version=0.0.4; charset=utf-8")
        if path in ("/", "/index.html"):
            return self._send(200, page.render_html(store.listing(w.out)).encode(), "text/html; charset=utf-8")
        parts = path.strip("/").split("/")
        if len(parts) == 2 and parts[1] == REPORT:  # only an incident id that exists, never a path from the URL
            known = {p.name: p for p in store.entries(w.out)}
            target = known.get(parts[0])
            if target is not None and (target / REPORT).is_file():
                return self._send(200, (target / REPORT).read_bytes(), "text/html; charset=utf-8")
        self._json(404, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0]
        if path not in ("/alertmanager", "/trigger"):
            self.close_connection = True
            return self._json(404, {"error": "not found"})
        raw = self._body(path)
        if raw is None:
            return
        try:
            doc = alerts.parse_json(raw)
            answer = self.watcher.on_alertmanager(doc) if path == "/alertmanager" else self.watcher.on_manual(doc)
        except alerts.BadBody as exc:
            self.watcher.metrics.inc("k10s_watch_webhook_rejected_total", endpoint=path.strip("/"))
            return self._json(400, {"error": str(exc)})
        self._json(200, answer)

    def _body(self, path: str) -> bytes | None:
        length_text = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding") or not (length_text or "").isdigit():
            self.close_connection = True
            self.watcher.metrics.inc("k10s_watch_webhook_rejected_total", endpoint=path.strip("/"))
            self._json(411, {"error": "Content-Length required"})
            return None
        if int(length_text) > alerts.MAX_BODY_BYTES:
            self.close_connection = True
            self.watcher.metrics.inc("k10s_watch_webhook_rejected_total", endpoint=path.strip("/"))
            self._json(413, {"error": f"body larger than {alerts.MAX_BODY_BYTES} bytes"})
            return None
        return self.rfile.read(int(length_text))

    def do_PUT(self) -> None:  # noqa: N802
        self.close_connection = True
        self._json(405, {"error": "method not allowed"})

    do_DELETE = do_PATCH = do_PUT  # noqa: N815


def start(watcher: Any, host: str, port: int) -> _Server:
    handler = type("BoundHandler", (Handler,), {"watcher": watcher})
    server = _Server((host, port), handler)
    threading.Thread(target=server.serve_forever, name="k10s-watch-http", daemon=True).start()
    return server


__all__ = ["Handler", "start"]
