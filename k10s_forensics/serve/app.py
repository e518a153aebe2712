"""The HTTP server of ``k10s serve``: a threaded stdlib server answering the Kubernetes API.

Each request runs in its own daemon thread (injected latency overlaps across requests); the
listen backlog is large so a capture benchmark's ~64 concurrent clients never see refusals.

Parts: ``http_handler`` (one request: headers, bodies, verbs); this module routes each request
(discovery, faults, access reviews, resources) and runs the server.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from k10s_forensics.serve import api, discovery, handlers, live, wire
from k10s_forensics.serve.faults import Faults, FaultState
from k10s_forensics.serve.http_handler import JSON, Handler, _HTTPServer
from k10s_forensics.serve.discovery import version_doc
from k10s_forensics.serve.kubeconfig import write_kubeconfig
from k10s_forensics.serve.store import ROUND_GAP_S, Store

HEALTH = ("/healthz", "/livez", "/readyz")
SSAR_PATH = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"


class ServeServer:
    """A running (or ready to run) read-only API server over one bundle."""

    def __init__(self, store: Store, faults: Faults | None = None, port: int = 0, access_log: Any = None,
                 server_version: str | None = None):
        self.store = store
        self.server_version = server_version or store.kubernetes_version
        self.faults = faults or Faults()
        pods = [(o.namespace or "", o.name) for o in store.objects.get(("", "v1", "pods"), [])]
        self.fault_state = FaultState(self.faults, pods)
        self.access_log = access_log
        #: proxy path prefix -> live base URL (tests: a real Prometheus behind the service proxy)
        self.upstreams: dict[str, str] = {}
        self.counts: dict[str, int] = {}
        self.changes: Any = None  # serve.changes.ChangeLog while playing an incident (live.py)
        self.play: Any = None
        self.bookmark_s = 5.0
        self.down_until = 0.0  # monotonic time an injected outage ends
        self._count_lock = threading.Lock()
        self._stopping = threading.Event()
        handler = type("BoundHandler", (Handler,), {"app": self})
        self.httpd = _HTTPServer(("127.0.0.1", port), handler)
        self.httpd.connect_delay_s = self.faults.latency_ms / 1000.0
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread: threading.Thread | None = None

    # ---- lifecycle ------------------------------------------------------------------------
    def start(self) -> "ServeServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="k10s-serve", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self._stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> "ServeServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def write_kubeconfig(self, path: str | os.PathLike[str]) -> Path:
        return write_kubeconfig(path, self.url, name=f"k10s-{self.store.bundle.path.name}")

    def stats(self) -> dict[str, Any]:
        with self._count_lock:
            counts = dict(self.counts)
        return {"bundle": str(self.store.bundle.path), "counts": counts, "faults": self.fault_state.snapshot()}

    def reset(self) -> None:
        """Rewind exec and proxy cursors (between test cases)."""
        self.store.reset_cursors()

    def _count(self, what: str) -> None:
        with self._count_lock:
            self.counts[what] = self.counts.get(what, 0) + 1

    # ---- routing --------------------------------------------------------------------------
    def dispatch(self, h: Handler, method: str) -> None:
        parts = urlsplit(h.path)
        path = parts.path.rstrip("/") or "/"
        h.query = wire.parse_query(parts.query)
        params = {k: v[-1] for k, v in h.query.items()}
        waited = h.request in self.httpd.predelayed  # this connection's first request already waited
        if waited:
            self.httpd.predelayed.discard(h.request)
        if path.startswith("/k10s/"):
            return self._control(h, method, path)
        if time.monotonic() < self.down_until:  # an outage: no answer, the connection just drops
            h.close_connection = True
            return self._count("outage")
        self.fault_state.count_request()
        if self.faults.latency_ms and not waited:
            time.sleep(self.faults.latency_ms / 1000.0)
        if method == "GET" and self._discovery(h, path):
            return self._count("discovery")
        if method == "POST" and path == SSAR_PATH:
            self._count("access-review")
            return self._access_review(h)
        route = api.parse_route(path)
        if route is None:
            self._count("notfound")
            return h.send_status(api.status_body(404, "NotFound", "the server could not find the requested resource"))
        is_exec = route.subresource in ("exec", "attach")
        if method == "POST" and self.changes is not None and live.create_event(self, h, route):
            return
        if method != "GET" and not (method == "POST" and is_exec):
            h.drain_body()
            self._count("write")
            return h.send_status(api.method_not_allowed(method, path, self.store.bundle.path.name))
        if self._inject(h, route, params):
            return
        handlers.resource(self, h, route, params, parts)

    def _discovery(self, h: Handler, path: str) -> bool:
        catalog = self.store.catalog
        if path == "/version":
            h.send_json(200, version_doc(self.server_version))
        elif path in HEALTH:
            h.send_bytes(200, b"ok", "text/plain; charset=utf-8")
        elif path == "/api":
            h.send_json(200, discovery.api_versions(f"127.0.0.1:{self.port}"))
        elif path == "/apis":
            h.send_json(200, discovery.api_group_list(catalog))
        elif path == "/api/v1":
            h.send_json(200, discovery.api_resource_list(catalog, "", "v1"))
        elif path.startswith("/apis/") and path.count("/") == 2:
            doc = discovery.api_group(catalog, path.split("/")[2])
            h.send_json(200, doc) if doc else h.send_status(api.status_body(404, "NotFound", f"group {path} not served"))
        elif path.startswith("/apis/") and path.count("/") == 3 and catalog.has_version(*path.split("/")[2:4]):
            h.send_json(200, discovery.api_resource_list(catalog, *path.split("/")[2:4]))
        elif path.startswith("/openapi"):
            h.send_status(api.status_body(404, "NotFound", "k10s serve does not serve OpenAPI documents"))
        else:
            return False
        return True

    def _inject(self, h: Handler, route: api.Route, params: dict[str, str]) -> bool:
        """Apply forbid / timeout / 429 / 500 faults; True when the request was answered."""
        fs = self.fault_state
        verb = _verb(route, params)
        if fs.forbidden(route.plural, route.group, route.subresource):
            fs.note("403")
            h.send_status(api.forbidden(route, verb))
            return True
        fault = fs.draw()
        if fault == "timeout":
            fs.note("timeout")
            self._stopping.wait(self.faults.timeout_hang_s)
            h.close_connection = True
            return True
        if fault == "429":
            fs.note("429")
            doc = api.status_body(429, "TooManyRequests", "Too many requests, please try again later.", {"retryAfterSeconds": 1})
            h.send_status(doc, {"Retry-After": "1"})
            return True
        if fault == "500":
            fs.note("500")
            h.send_status(api.status_body(500, "InternalError", "Internal error occurred: injected fault (k10s serve --error-rate-500)"))
            return True
        return False

    def _access_review(self, h: Handler) -> None:
        """Answer a SelfSubjectAccessReview (a question, not a write): reads are allowed unless
        ``--forbid`` names the resource; writes are denied (this server is read-only)."""
        try:
            length = int(h.headers.get("Content-Length") or 0)
            review = json.loads(h.rfile.read(length) or b"{}")
            attrs = review["spec"]["resourceAttributes"]
        except (ValueError, KeyError, TypeError):
            h.close_connection = True
            return h.send_status(api.status_body(400, "BadRequest", "not a SelfSubjectAccessReview with spec.resourceAttributes"))
        verb, sub = str(attrs.get("verb") or ""), attrs.get("subresource") or None
        allowed, reason = True, ""
        if self.fault_state.forbidden(str(attrs.get("resource") or ""), str(attrs.get("group") or ""), sub):
            allowed, reason = False, "forbidden by k10s serve --forbid"
        elif verb not in ("get", "list", "watch") and not (verb == "create" and sub in ("exec", "attach")):
            allowed, reason = False, "k10s serve is a read-only replay"
        review["status"] = {"allowed": allowed, **({"denied": True, "reason": reason} if not allowed else {})}
        review.setdefault("metadata", {})
        h.send_json(201, review)

    def _control(self, h: Handler, method: str, path: str) -> None:
        if method == "GET" and path == "/k10s/stats":
            return h.send_json(200, self.stats())
        if live.control(self, h, method, path):
            return
        h.drain_body()
        h.send_status(api.status_body(404, "NotFound", f"no such k10s endpoint: {method} {path}"))


def _verb(route: api.Route, params: dict[str, str]) -> str:
    if route.subresource in ("exec", "attach", "portforward"):
        return "create"
    if params.get("watch") in ("true", "1"):
        return "watch"
    return "get" if route.name else "list"


def start_server(
    bundle: str | os.PathLike[str],
    *,
    port: int = 0,
    at: dt.datetime | None = None,
    faults: Faults | None = None,
    round_gap_s: float = ROUND_GAP_S,
    access_log: Any = None,
    server_version: str | None = None,
) -> ServeServer:
    """Load ``bundle`` and serve it on 127.0.0.1 in a background thread (``.stop()`` to end)."""
    store = Store.load(bundle, at=at, round_gap_s=round_gap_s)
    return ServeServer(store, faults, port=port, access_log=access_log, server_version=server_version).start()


__all__ = ["Handler", "JSON", "ServeServer", "start_server", "version_doc"]
