"""``KubeSource``: the only door from capture to the cluster, and it only reads.

Every request is an HTTP GET: lists (paginated), gets, discovery, container logs, the API
server's pod/service proxy, and ``exec`` (a GET upgraded to a WebSocket) of a command from
``ALLOWED_COMMANDS``, a fixed set of read-only commands. There is no method that creates,
updates, patches or deletes anything, and ``tests/test_capture_readonly.py`` fails if one
is added. Configuration is loaded as kubectl does it (``--kubeconfig``, ``KUBECONFIG``,
``~/.kube/config``, else the in-cluster service account).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator
from functools import lru_cache
from urllib.parse import quote, quote_plus

from k10s_forensics.capture.connection import ClusterConnection, load_connection
from k10s_forensics.capture.dump_commands import FR_COMMAND, RAS_JSON, RAS_TEXT
from k10s_forensics.capture.retry import CallError, Deadline, RetryPolicy, call_with_retry, parse_retry_after
from k10s_forensics.capture.calls import ExecResult, http_error as _http_error
from k10s_forensics.capture.proxied import make_transport
from k10s_forensics.capture.transport import TransportError

#: The only commands capture ever runs inside a pod (argv tuples, matched exactly).
ALLOWED_COMMANDS: frozenset[tuple[str, ...]] = frozenset(
    {
        ("nvidia-smi", "-q", "-x"),
        ("ss", "-tin"),
        ("printenv", "NVIDIA_VISIBLE_DEVICES"),
        ("dmesg", "--time-format", "iso"),
        FR_COMMAND,
        RAS_JSON,
        RAS_TEXT,
    }
)
#: Largest response body kept (bytes); exec output and scrapes beyond it are cut and say so.
MAX_BODY_BYTES = 64 << 20
#: Seconds between looks at the client configuration's bearer token (its hook refreshes it).
AUTH_RECHECK_S = 1.0


@dataclass
class CallStats:
    """Counters shared by all threads (for progress, the benchmark and the manifest)."""

    calls: int = 0
    retries: int = 0
    failures: int = 0
    bytes_in: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, kind: str, nbytes: int = 0, failed: bool = False) -> None:
        with self._lock:
            self.calls += 1
            self.bytes_in += nbytes
            self.failures += int(failed)
            self.by_kind[kind] = self.by_kind.get(kind, 0) + 1

    def retried(self) -> None:
        with self._lock:
            self.retries += 1


class KubeSource:
    """Read-only access to the Kubernetes API (GET only; exec limited to ``ALLOWED_COMMANDS``).

    Args:
        connection: from ``load_connection``.
        deadline: the capture's global deadline / stop flag.
        timeout_s: per-call timeout (connect and each read), shortened near the deadline.
        retry: backoff policy for 429/5xx/timeouts.
        pool_size: HTTP connections kept open (set it to the capture's concurrency).
    """

    def __init__(self, connection: ClusterConnection, deadline: Deadline, *, timeout_s: float = 30.0,
                 retry: RetryPolicy | None = None, pool_size: int = 64):
        self.connection = connection
        self.deadline = deadline
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        self.stats = CallStats()
        self._config = connection.configuration
        self._transport = make_transport(self._config, pool_size)
        self._endpoint = getattr(self._transport, "endpoint", None)
        self._auth: tuple[float, str | None] = (-1.0, None)
        self._discovery: dict[str, Any] | None = None
        self._discovery_lock = threading.Lock()

    # ---- low level: one GET -------------------------------------------------------------
    def _headers(self, accept: str = "application/json") -> dict[str, str]:
        headers = {"Accept": accept, "User-Agent": "k10s-capture/0.1 (read-only)"}
        checked_at, token = self._auth
        now = time.monotonic()
        if now - checked_at > AUTH_RECHECK_S:  # the client's refresh hook renews expiring tokens
            auth = self._config.auth_settings().get("BearerToken")
            token = auth.get("value") if auth else None
            self._auth = (now, token)
        if token:
            headers["authorization"] = token
        return headers

    def _get_once(self, path: str, params: list[tuple[str, Any]] | None, limit_bytes: int, kind: str, accept: str) -> tuple[int, str, bool]:
        target = path + (("?" + _query(params)) if params else "")
        timeout = self.deadline.bound(self.timeout_s)
        try:
            resp = self._transport.request("GET", target, self._headers(accept), timeout, limit_bytes,
                                           lambda: self.deadline.stopped)
        except TransportError as exc:
            self.stats.count(kind, failed=True)
            if exc.kind == "timeout":
                raise CallError(f"timeout after {timeout:.0f}s: GET {path}", kind="timeout") from exc
            raise CallError(f"connection failed: GET {path}: {exc}", kind="connection") from exc
        status = resp.status
        text = resp.body.decode("utf-8", errors="replace")
        self.stats.count(kind, len(resp.body), failed=status >= 400)
        if status >= 400 and kind != "proxy":
            raise _http_error(status, text, path, parse_retry_after(resp.headers.get("retry-after")))
        if status in (401, 403, 429) and kind == "proxy":
            # A 5xx through the proxy is usually the target's own answer (exporter not ready,
            # pod unreachable): recorded as it came, not retried. 429 is the API server's.
            raise _http_error(status, text, path, parse_retry_after(resp.headers.get("retry-after")))
        return status, text, resp.cut

    def _get(self, path: str, params: list[tuple[str, Any]] | None = None, *, limit_bytes: int = MAX_BODY_BYTES,
             kind: str = "get", accept: str = "application/json") -> tuple[int, str, bool]:
        return call_with_retry(lambda: self._get_once(path, params, limit_bytes, kind, accept), self.retry,
                               self.deadline, on_retry=lambda e, w: self.stats.retried())

    # ---- read verbs ---------------------------------------------------------------------
    def get(self, path: str, params: list[tuple[str, Any]] | None = None) -> dict[str, Any]:
        """GET one object (or any JSON document) at an API path."""
        _, text, _ = self._get(path, params)
        return _json(text, path)

    def list(self, path: str, params: list[tuple[str, Any]] | None = None, page_size: int = 500) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """List a collection page by page (``limit``/``continue``); yields (list, items) per page.

        Pages keep memory flat on clusters with many objects. A 410 (expired continue token)
        restarts nothing: the error is raised and the caller records what it got so far.
        """
        token: str | None = None
        while True:
            page_params = list(params or []) + [("limit", page_size)] + ([("continue", token)] if token else [])
            doc = _json(self._get(path, page_params, kind="list")[1], path)
            yield doc, list(doc.get("items") or [])
            token = (doc.get("metadata") or {}).get("continue")
            if not token:
                return

    def version(self) -> dict[str, Any]:
        return self.get("/version")

    def discovery(self) -> dict[str, dict[str, Any]]:
        """Served API groups: ``{group: {"preferred": version, "versions": [...]}}`` ("" is core)."""
        with self._discovery_lock:
            if self._discovery is not None:
                return self._discovery
        groups: dict[str, dict[str, Any]] = {"": {"preferred": "v1", "versions": ["v1"], "resources": {}}}
        doc = self.get("/apis")
        for g in doc.get("groups") or []:
            versions = [v.get("version") for v in g.get("versions") or []]
            preferred = (g.get("preferredVersion") or {}).get("version") or (versions[0] if versions else None)
            groups[g.get("name", "")] = {"preferred": preferred, "versions": versions, "resources": {}}
        with self._discovery_lock:
            if self._discovery is None:
                self._discovery = groups
            return self._discovery

    def resources(self, group: str, version: str) -> dict[str, dict[str, Any]]:
        """Resources served by ``group/version``, by kind: ``{kind: {"name": plural, "namespaced": bool}}``."""
        entry = self.discovery().get(group)
        if entry is None or version not in entry["versions"]:
            return {}
        cache = entry["resources"]
        with self._discovery_lock:
            if version in cache:
                return cache[version]
        path = "/api/v1" if group == "" else f"/apis/{group}/{version}"
        try:
            doc = self.get(path)
        except CallError as exc:
            if exc.kind != "not-found":
                raise
            doc = {}
        found = {r["kind"]: {"name": r["name"], "namespaced": bool(r.get("namespaced"))}
                 for r in doc.get("resources") or [] if "/" not in r.get("name", "")}
        with self._discovery_lock:
            cache[version] = found
        return found

    def logs(self, namespace: str, pod: str, container: str, *, previous: bool, limit_bytes: int,
             tail_lines: int | None = None) -> tuple[str, bool]:
        """Container log text with ``timestamps=true``; returns (text, cut at limit_bytes)."""
        params: list[tuple[str, Any]] = [("container", container), ("timestamps", "true"), ("previous", str(previous).lower()),
                                         ("limitBytes", limit_bytes)]
        if tail_lines is not None:
            params.append(("tailLines", tail_lines))
        _, text, cut = self._get(f"/api/v1/namespaces/{_q(namespace)}/pods/{_q(pod)}/log", params,
                                 limit_bytes=limit_bytes + 1, kind="log", accept="text/plain")
        return text, cut or len(text.encode("utf-8", errors="replace")) > limit_bytes

    def proxy_get(self, path: str) -> tuple[int, str]:
        """GET through the API server's pod/service proxy (``.../proxy/...``); returns (status, body)."""
        if "/proxy" not in path:
            raise ValueError(f"not a proxy path: {path}")
        status, text, _ = self._get(path, kind="proxy", accept="*/*")
        return status, text

    def exec(self, namespace: str, pod: str, container: str, argv: tuple[str, ...], timeout_s: float | None = None) -> ExecResult:
        """Run an allow-listed read-only command in a container (exec over WebSocket).

        Raises:
            PermissionError: the command is not in ``ALLOWED_COMMANDS`` (a bug, never the cluster).
            CallError: the exec could not be started (forbidden, pod gone, ...).
        """
        if tuple(argv) not in ALLOWED_COMMANDS:
            raise PermissionError(f"capture only runs read-only commands; {' '.join(argv)!r} is not allowed")
        from k10s_forensics.capture.execws import run_exec

        path = f"/api/v1/namespaces/{_q(namespace)}/pods/{_q(pod)}/exec"
        params = [("container", container), ("stdout", "true"), ("stderr", "true")] + [("command", a) for a in argv]
        target = path + "?" + _query(params)
        limit = self.deadline.bound(timeout_s or self.timeout_s)

        def once() -> ExecResult:
            try:
                result = run_exec(self._config, self._endpoint, target, self._headers(), limit, MAX_BODY_BYTES)
            except CallError:
                self.stats.count("exec", failed=True)
                raise
            self.stats.count("exec", len(result.stdout) + len(result.stderr), failed=result.error is not None)
            return result

        return call_with_retry(once, self.retry, self.deadline, on_retry=lambda e, w: self.stats.retried())

    def close(self) -> None:
        self._transport.close()


def _json(text: str, path: str) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except ValueError:
        raise CallError(f"GET {path}: answer is not JSON", kind="bad-answer") from None
    if not isinstance(doc, dict):
        raise CallError(f"GET {path}: answer is not a JSON object", kind="bad-answer")
    return doc


@lru_cache(maxsize=8192)
def _q(value: str) -> str:
    return quote(value, safe="")


@lru_cache(maxsize=8192)
def _quote_plus(value: str) -> str:
    return quote_plus(value)


def _query(params: list[tuple[str, Any]]) -> str:
    """``urlencode(params)``, with the quoting of repeated values (commands, names) remembered."""
    return "&".join(f"{_quote_plus(str(k))}={_quote_plus(str(v))}" for k, v in params)


def object_json(item: dict[str, Any], api_version: str, kind: str) -> str:
    """An object from a list answer as JSON text, with apiVersion/kind as ``kubectl get -o json`` shows them."""
    if "kind" not in item or "apiVersion" not in item:
        item = {"apiVersion": api_version, "kind": kind, **item}
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


__all__ = ["KubeSource", "ClusterConnection", "ExecResult", "CallStats", "ALLOWED_COMMANDS", "load_connection", "object_json"]
