"""Resource requests once routing and faults are done: get, list, watch, log, exec, proxy."""

from __future__ import annotations

import threading
from typing import IO, Any, Protocol
from urllib.parse import SplitResult, parse_qs

from k10s_forensics.serve import api, exec as wsexec, live
from k10s_forensics.serve.logs import pod_logs
from k10s_forensics.serve.proxy import proxy_forward, proxy_replay
from k10s_forensics.serve.selectors import SelectorError
from k10s_forensics.serve.discovery import Resource
from k10s_forensics.serve.store import Obj, Store



class Handler(Protocol):
    """What these handlers need of a request (``serve.app.Handler`` implements it)."""

    headers: Any
    wfile: IO[bytes]
    close_connection: bool

    def send_status(self, doc: dict[str, Any], headers: dict[str, str] | None = None) -> None: ...

    def send_bytes(self, code: int, body: bytes, content_type: str = ..., headers: dict[str, str] | None = None) -> None: ...

    def drain_body(self) -> None: ...

    def send_response(self, code: int, message: str | None = None) -> None: ...

    def send_header(self, keyword: str, value: str) -> None: ...

    def end_headers(self) -> None: ...


class ServeServer(Protocol):
    """What these handlers need of the server (``serve.app.ServeServer`` implements it)."""

    store: Store
    fault_state: Any
    _stopping: threading.Event

    def _count(self, what: str) -> None: ...

MAX_WATCH_S = 1800
MEMO_ENTRIES = 256


def _bad_request(h: "Handler", message: str) -> None:
    h.send_status(api.status_body(400, "BadRequest", message))


def resource(app: "ServeServer", h: "Handler", route: api.Route, params: dict[str, str], parts: SplitResult) -> None:
    store = app.store
    res = store.resource(route.group, route.version, route.plural)
    if res is None:
        app._count("notfound")
        return h.send_status(api.status_body(404, "NotFound", "the server could not find the requested resource"))
    if route.namespace is not None and not res.namespaced:
        return h.send_status(api.not_found(route))
    vanished = app.fault_state.vanished if res.kind == "Pod" and not res.group else frozenset()
    if route.name and (route.namespace or "", route.name.split(":", 1)[0]) in vanished:
        app.fault_state.note("vanished")
        return h.send_status(api.not_found(route, route.name.split(":", 1)[0]))
    if route.subresource == "proxy":
        return _proxy(app, h, route, parts)
    if route.subresource in ("log", "exec", "attach") and res.kind != "Pod":
        return h.send_status(api.not_found(route))
    if route.subresource == "log":
        return _logs(app, h, route, params)
    if route.subresource in ("exec", "attach"):
        return _exec(app, h, route, parts)
    if route.subresource:
        return h.send_status(api.status_body(404, "NotFound", f"subresource {route.subresource!r} is not served by k10s serve"))
    accept = h.headers.get("Accept")
    try:
        if route.name:
            obj = store.get(res, route.namespace, route.name)
            if obj is None:
                app._count("get")
                return h.send_status(api.not_found(route))
            app._count("get")
            return h.send_bytes(200, api.get_answer(store, res, obj, params, accept))
        if params.get("watch") in ("true", "1"):
            app._count("watch")
            if getattr(app, "changes", None) is not None:
                return live.watch(app, h, res, route.namespace, _listing(store, res, route.namespace, vanished), params, MAX_WATCH_S)
            return _watch(app, h, _listing(store, res, route.namespace, vanished), params, accept)
        app._count("list")
        objs = _selection(store, res, route.namespace, vanished, params)
        return h.send_bytes(200, api.list_answer(store, res, objs, params, accept, selected=True))
    except SelectorError as exc:
        return _bad_request(h, str(exc))
    except ValueError as exc:
        return _bad_request(h, str(exc))


def _listing(store: Store, res: Resource, namespace: str | None, vanished: frozenset) -> list[Obj]:
    objs = store.list(res, namespace)
    return [o for o in objs if (o.namespace or "", o.name) not in vanished] if vanished else objs


def _selection(store: Store, res: Resource, namespace: str | None, vanished: frozenset, params: dict[str, str]) -> list[Obj]:
    """The objects a list request selects, remembered per (resource, namespace, selectors):
    the snapshot never changes, and a paged list asks the same question once per page."""
    key = (res.group, res.version, res.plural, namespace, params.get("labelSelector"), params.get("fieldSelector"), vanished)
    found = store.memo.get(key)
    if found is None:
        found = api.select(_listing(store, res, namespace, vanished), params)
        if len(store.memo) > MEMO_ENTRIES:
            store.memo.clear()
        store.memo[key] = found
    return found


def _logs(app: "ServeServer", h: "Handler", route: api.Route, params: dict[str, str]) -> None:
    app._count("logs")
    answer = pod_logs(app.store, route.namespace or "", route.name or "", params)
    if answer.status == 200 and getattr(app, "changes", None) is not None and params.get("follow") in ("true", "1"):
        def now() -> str | None:  # None ends the stream: the pod is gone (deleted, as the kubelet ends it)
            if app.store.pod(route.namespace or "", route.name or "") is None:
                return None
            again = pod_logs(app.store, route.namespace or "", route.name or "", params)
            return again.body if again.status == 200 else None
        return live.follow_logs(app, h, now, MAX_WATCH_S)
    if answer.status == 200:
        return h.send_bytes(200, answer.body.encode("utf-8"), "text/plain; charset=utf-8")
    details = {"name": route.name or "", "kind": "pods"}
    h.send_status(api.status_body(answer.status, answer.reason, answer.body, details))


def _exec(app: "ServeServer", h: "Handler", route: api.Route, parts: SplitResult) -> None:
    app._count("exec")
    store, ns, pod = app.store, route.namespace or "", route.name or ""
    query = getattr(h, "query", None)
    if query is None:
        query = parse_qs(parts.query, keep_blank_values=True)
    if not store.pod_known(ns, pod):
        return h.send_status(api.not_found(route))
    upgrade = (h.headers.get("Upgrade") or "").lower()
    if upgrade != "websocket":
        h.drain_body()
        message = (
            f"k10s serve replays exec over websockets only (got Upgrade: {h.headers.get('Upgrade') or 'none'}); "
            "use kubectl >= 1.30 (a version-matching kubectl dispatcher picks an older one for an old bundle: "
            "run k10s serve --server-version v1.31.0) or the kubernetes Python client's stream()"
        )
        return _bad_request(h, message)
    protocol = wsexec.choose_subprotocol(h.headers.get("Sec-WebSocket-Protocol"))
    if protocol is None:
        return _bad_request(h, f"no supported exec subprotocol offered; k10s serve speaks {', '.join(wsexec.SUBPROTOCOLS)}")
    container, error = wsexec.resolve_container(store, ns, pod, (query.get("container") or [""])[-1])
    if error or container is None:
        return _bad_request(h, error or "no container")
    argv = query.get("command") or []
    if app.fault_state.exec_fails():
        app.fault_state.note("exec-failure")
        message = "error executing command in container: failed to exec in container: injected fault (k10s serve --fail-exec)"
        result = wsexec.ExecResult("", "", wsexec.internal_error_status(message))
    else:
        result = wsexec.replay(store, ns, pod, container, argv)
    want = {k: (query.get(k) or ["false"])[-1].lower() in ("true", "1") for k in ("stdout", "stderr")}
    wsexec.stream_result(h, result, protocol, want["stdout"], want["stderr"], wsexec.first_frame_delay(h.headers))


def _proxy(app: "ServeServer", h: "Handler", route: api.Route, parts: SplitResult) -> None:
    app._count("proxy")
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    answer = (proxy_forward(app.upstreams, target) if app.upstreams else None) or proxy_replay(app.store, target)
    if answer is None:
        message = f"no recorded answer for {parts.path} in this bundle (k10s serve replays raw/scrapes)"
        return h.send_status(api.status_body(404, "NotFound", message))
    if answer.error:
        return h.send_status(api.status_body(503, "ServiceUnavailable", answer.error))
    h.send_bytes(answer.status, answer.body.encode("utf-8"), answer.content_type)


def _watch(app: "ServeServer", h: "Handler", objs: list[Obj], params: dict[str, str], accept: str | None) -> None:
    """A watch on a snapshot: initial ADDED events when asked without a resourceVersion, then
    nothing changes until ``timeoutSeconds`` (at most 30 min) or the server stops."""
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()

    def chunk(data: bytes) -> None:
        h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        h.wfile.flush()

    rv = params.get("resourceVersion") or ""
    if rv in ("", "0") and "as=Table" not in (accept or ""):
        for obj in api.select(objs, params):
            chunk(b'{"type":"ADDED","object":' + obj.raw + b"}\n")
    try:
        timeout = min(float(params.get("timeoutSeconds") or MAX_WATCH_S), MAX_WATCH_S)
    except ValueError:
        timeout = MAX_WATCH_S
    app._stopping.wait(timeout)
    h.wfile.write(b"0\r\n\r\n")
    h.close_connection = True
