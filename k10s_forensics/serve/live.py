"""The live side of ``k10s serve`` when it plays an incident: watch streams that follow the
change log (bookmarks, 410 Gone), log follows that stream new lines, an API outage on
demand, and Event creation (the one write a watcher with ``--events`` makes).
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from k10s_forensics.serve import api
from k10s_forensics.serve.changes import ChangeLog, Gone
from k10s_forensics.serve.discovery import Resource
from k10s_forensics.serve.store import Obj

MAX_EVENT_BODY_BYTES = 64 << 10
EVENT_KEYS = (("", "v1", "events"), ("events.k8s.io", "v1", "events"))


def _chunk(h: Any, data: bytes) -> None:
    h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
    h.wfile.flush()


def _start_stream(h: Any, content_type: str) -> None:
    h.send_response(200)
    h.send_header("Content-Type", content_type)
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()


def _timeout_s(params: dict[str, str], limit_s: float) -> float:
    try:
        return min(float(params.get("timeoutSeconds") or limit_s), limit_s)
    except ValueError:
        return limit_s


def watch(app: Any, h: Any, res: Resource, namespace: str | None, objs: list[Obj], params: dict[str, str],
          limit_s: float) -> None:
    """A watch that streams the change log: ADDED for the current state when asked without a
    resourceVersion, then every change after it; ``BOOKMARK`` events every
    ``app.bookmark_s`` when the client allows them; ``ERROR`` 410 for a compacted version."""
    log: ChangeLog = app.changes
    key = (res.group, res.version, res.plural)
    rv_text = params.get("resourceVersion") or ""
    _start_stream(h, "application/json")
    epoch = log.epoch
    if rv_text in ("", "0"):
        with log.cond:
            rv = log.rv
            current = api.select(objs, params)
        for obj in current:
            _chunk(h, b'{"type":"ADDED","object":' + obj.raw + b"}\n")
    else:
        try:
            rv = int(rv_text)
        except ValueError:
            rv = -1
    bookmarks = params.get("allowWatchBookmarks") in ("true", "1")
    end = time.monotonic() + _timeout_s(params, limit_s)
    last_mark = time.monotonic()
    while time.monotonic() < end and not app._stopping.is_set():
        if log.epoch != epoch or time.monotonic() < app.down_until:  # the API server "went away": drop the stream
            h.close_connection = True
            return
        try:
            changes, upto = log.since(rv, key)
        except Gone as exc:
            status = api.status_body(410, "Expired", str(exc))
            _chunk(h, json.dumps({"type": "ERROR", "object": status}, separators=(",", ":")).encode() + b"\n")
            break
        for change in changes:
            if (namespace is None or change.obj.namespace == namespace) and api.select([change.obj], params):
                _chunk(h, b'{"type":"' + change.type.encode() + b'","object":' + change.obj.raw + b"}\n")
        rv = upto
        if bookmarks and time.monotonic() - last_mark >= app.bookmark_s:
            mark = {"kind": res.kind, "apiVersion": res.api_version, "metadata": {"resourceVersion": str(rv)}}
            _chunk(h, json.dumps({"type": "BOOKMARK", "object": mark}, separators=(",", ":")).encode() + b"\n")
            last_mark = time.monotonic()
        log.wait(rv, min(0.5, max(0.0, end - time.monotonic())))
    h.wfile.write(b"0\r\n\r\n")
    h.close_connection = True


def follow_logs(app: Any, h: Any, body_now: Any, limit_s: float) -> None:
    """``follow=true``: what the log holds now, then each line the play reveals, until the
    container's log stops growing in a way that keeps what was sent (a new incarnation),
    the server stops or an outage drops the connection."""
    log: ChangeLog = app.changes
    epoch = log.epoch
    _start_stream(h, "text/plain; charset=utf-8")
    sent = body_now()
    if sent:
        _chunk(h, sent.encode("utf-8"))
    end = time.monotonic() + limit_s
    while time.monotonic() < end and not app._stopping.is_set():
        seen = (log.rv, log.ticks)
        log.wait(log.rv, 5.0)
        if log.epoch != epoch or time.monotonic() < app.down_until:
            h.close_connection = True
            return
        if (log.rv, log.ticks) == seen:
            continue
        now = body_now()
        if now is None or not now.startswith(sent):
            break
        if len(now) > len(sent):
            _chunk(h, now[len(sent):].encode("utf-8"))
            sent = now
    h.wfile.write(b"0\r\n\r\n")
    h.close_connection = True


def create_event(app: Any, h: Any, route: api.Route) -> bool:
    """POST of an Event while playing: stored and streamed like any change. True when handled."""
    key = (route.group, route.version, route.plural)
    if key not in EVENT_KEYS or route.name or route.subresource or not route.namespace:
        return False
    length = int(h.headers.get("Content-Length") or 0)
    if length > MAX_EVENT_BODY_BYTES:
        h.close_connection = True
        h.send_status(api.status_body(413, "RequestEntityTooLarge", "event body too large"))
        return True
    try:
        body = json.loads(h.rfile.read(length) or b"{}")
        meta = body["metadata"]
        meta["namespace"] = route.namespace
        meta.setdefault("name", f"{meta.pop('generateName', 'k10s.')}{app.changes.rv + 1:x}")
    except (ValueError, KeyError, TypeError):
        h.send_status(api.status_body(400, "BadRequest", "not an Event"))
        return True
    app._count("event-create")
    change = app.changes.put(key, body)
    h.send_bytes(201, change.obj.raw)
    return True





def outage(app: Any, seconds: float, compact: bool = False) -> None:
    """The API server goes away for ``seconds``: open streams drop, requests get no answer;
    with ``compact`` the watch history is gone when it comes back (watchers get 410)."""
    app.down_until = time.monotonic() + seconds
    if app.changes is not None:
        app.changes.interrupt()
        if compact:  # when it comes back, what changed while it was away is compacted too
            timer = threading.Timer(max(0.0, seconds - 0.05), app.changes.compact)
            timer.daemon = True
            timer.start()


def control(app: Any, h: Any, method: str, path: str) -> bool:
    """``POST /k10s/outage?seconds=S[&compact=1]``, ``POST /k10s/play/PHASE``, ``GET /k10s/play``."""
    params = {k: v[-1] for k, v in (getattr(h, "query", None) or {}).items()}
    if method == "POST" and path == "/k10s/outage":
        h.drain_body()
        try:
            seconds = min(float(params.get("seconds") or 5), 3600.0)
        except ValueError:
            return False
        outage(app, seconds, params.get("compact") in ("1", "true"))
        h.send_json(200, {"down_s": seconds})
        return True
    if app.play is not None and method == "GET" and path == "/k10s/play":
        h.send_json(200, app.play.describe())
        return True
    if app.play is not None and method == "POST" and path.startswith("/k10s/play/"):
        h.drain_body()
        phase = path.rsplit("/", 1)[1]
        if phase not in ("fail", "hang", "restart"):
            return False
        app.play.advance(phase)
        h.send_json(200, app.play.describe())
        return True
    return False


def start_play(app: Any, times: Any = None, clock: bool = True) -> Any:
    """Play the served bundle's incident on ``app`` (a ServeServer); returns the Play."""
    from k10s_forensics.serve.play import Play

    play = Play(app.store, times)
    app.play, app.changes = play, play.log
    return play.start() if clock else play
__all__ = ["control", "create_event", "follow_logs", "outage", "start_play", "watch"]
