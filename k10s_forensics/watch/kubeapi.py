"""The watcher's HTTP client to the API server: GET (lists), streamed GET (watches, log
follows) and the one POST it may make (an Event, only with ``--events``).

It uses the connection capture loads (kubeconfig or in-cluster: host, bearer token re-read
for every request so rotated tokens work, TLS CA, client certificate). Every request is
recorded by verb in ``calls`` (the read-only proof in the tests reads the server's log too).
"""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any, Iterator
from urllib.parse import urlencode, urlsplit

from k10s_forensics.capture.transport import tls_context

MAX_LIST_BYTES = 256 << 20
MAX_LINE_BYTES = 16 << 20
USER_AGENT = "k10s-watch/0.1 (read-only)"


class ApiError(Exception):
    """The API server answered with an error (``status``) or not at all (status 0)."""

    def __init__(self, status: int, message: str, reason: str = ""):
        super().__init__(message)
        self.status, self.reason = status, reason


class KubeApi:
    """Small HTTP client for one API server (thread-safe: one connection per request)."""

    def __init__(self, configuration: Any):
        self.config = configuration
        parts = urlsplit(configuration.host)
        self.tls = parts.scheme == "https"
        self.host, self.port = parts.hostname or "localhost", parts.port or (443 if self.tls else 80)
        self.base = parts.path.rstrip("/")
        self.ctx = tls_context(configuration) if self.tls else None
        self.calls: dict[str, int] = {}
        self._lock = threading.Lock()
        self._open: set[http.client.HTTPConnection] = set()

    def _conn(self, timeout_s: float) -> http.client.HTTPConnection:
        if self.tls:
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout_s, context=self.ctx)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout_s)

    def _headers(self, accept: str) -> dict[str, str]:
        headers = {"Accept": accept, "User-Agent": USER_AGENT}
        auth = self.config.auth_settings().get("BearerToken")
        if auth and auth.get("value"):
            headers["Authorization"] = auth["value"]
        return headers

    def _request(self, method: str, path: str, params: dict[str, Any] | None, timeout_s: float,
                 body: bytes | None = None, accept: str = "application/json") -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        target = self.base + path + (("?" + urlencode(params)) if params else "")
        with self._lock:
            self.calls[method] = self.calls.get(method, 0) + 1
        conn = self._conn(timeout_s)
        headers = self._headers(accept)
        if body is not None:
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, target, body=body, headers=headers)
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise ApiError(0, f"{method} {path}: {exc.__class__.__name__}: {exc}") from None
        if resp.status >= 400:
            text = resp.read(1 << 16).decode("utf-8", "replace")
            conn.close()
            reason, message = "", text[:300]
            try:
                doc = json.loads(text)
                reason, message = str(doc.get("reason") or ""), str(doc.get("message") or message)
            except (ValueError, AttributeError):
                pass
            raise ApiError(resp.status, f"{method} {path}: {resp.status} {message}", reason)
        return conn, resp

    def get(self, path: str, params: dict[str, Any] | None = None, timeout_s: float = 30.0) -> dict[str, Any]:
        conn, resp = self._request("GET", path, params, timeout_s)
        try:
            data = resp.read(MAX_LIST_BYTES + 1)
        except (OSError, http.client.HTTPException) as exc:
            raise ApiError(0, f"GET {path}: {exc.__class__.__name__}: {exc}") from None
        finally:
            conn.close()
        if len(data) > MAX_LIST_BYTES:
            raise ApiError(0, f"GET {path}: answer larger than {MAX_LIST_BYTES} bytes")
        try:
            return json.loads(data)
        except ValueError:
            raise ApiError(0, f"GET {path}: not JSON") from None

    def list_all(self, path: str, params: dict[str, Any], timeout_s: float = 60.0) -> tuple[list[dict[str, Any]], str]:
        """Every item of a paged list and the list's resourceVersion."""
        items: list[dict[str, Any]] = []
        page = dict(params, limit=500)
        while True:
            doc = self.get(path, page, timeout_s)
            items += doc.get("items") or []
            meta = doc.get("metadata") or {}
            if not meta.get("continue"):
                return items, str(meta.get("resourceVersion") or "")
            page["continue"] = meta["continue"]

    def stream(self, path: str, params: dict[str, Any], timeout_s: float, accept: str = "application/json") -> Iterator[bytes]:
        """Lines of a streamed answer (watch events, followed logs), until it ends or
        :meth:`close_all` is called. A line longer than 16 MiB ends the stream."""
        conn, resp = self._request("GET", path, params, timeout_s, accept=accept)
        with self._lock:
            self._open.add(conn)
        try:
            while True:
                line = resp.readline(MAX_LINE_BYTES)
                if not line:
                    return
                yield line
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise ApiError(0, f"stream {path}: {exc.__class__.__name__}: {exc}") from None
        finally:
            with self._lock:
                self._open.discard(conn)
            conn.close()

    def post(self, path: str, doc: dict[str, Any], timeout_s: float = 10.0) -> dict[str, Any]:
        conn, resp = self._request("POST", path, None, timeout_s, body=json.dumps(doc).encode())
        try:
            return json.loads(resp.read(1 << 20) or b"{}")
        except (ValueError, OSError, http.client.HTTPException):
            return {}
        finally:
            conn.close()

    def close_all(self) -> None:
        """Abort every open stream (the watcher is stopping)."""
        with self._lock:
            conns = list(self._open)
        for conn in conns:
            try:
                if conn.sock is not None:
                    conn.sock.shutdown(2)
            except OSError:
                pass


__all__ = ["ApiError", "KubeApi"]
