"""``GET .../pods/{pod}/log``: replay container logs from raw/logs.

Bodies are stored as the API returns them with ``timestamps=true``; this module applies
``sinceSeconds``/``sinceTime`` (relative to the served moment: ``--at`` or the window end),
``tailLines``, ``timestamps`` (stripped unless true) and ``limitBytes``, in the API
server's order. ``follow`` returns what was captured and ends.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from k10s_forensics.store.bundle import parse_iso
from k10s_forensics.serve.store import Store


@dataclass
class LogAnswer:
    """Either a text body (status 200) or an error (status, reason, message)."""

    status: int
    body: str = ""
    reason: str = ""


def pod_containers(pod: dict[str, Any] | None) -> list[str]:
    spec = (pod or {}).get("spec") or {}
    return [c.get("name") for c in spec.get("containers") or [] if c.get("name")]


def default_container(pod: dict[str, Any] | None) -> str | None:
    """The annotated default container, else the only container, else None."""
    annotations = ((pod or {}).get("metadata") or {}).get("annotations") or {}
    named = annotations.get("kubectl.kubernetes.io/default-container")
    names = pod_containers(pod)
    if named and named in names:
        return named
    return names[0] if len(names) == 1 else None


def _int(params: dict[str, str], name: str) -> int | None:
    value = params.get(name)
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {value!r}") from None


def select_lines(body: str, params: dict[str, str], now: dt.datetime) -> str:
    """Apply since/tail/timestamps/limitBytes to a timestamped log body."""
    lines = body.splitlines(keepends=True)
    since_s = _int(params, "sinceSeconds")
    since_time = parse_iso(params.get("sinceTime")) if params.get("sinceTime") else None
    cutoff = now - dt.timedelta(seconds=since_s) if since_s is not None else since_time
    if cutoff is not None:
        kept = []
        for line in lines:
            ts = parse_iso(line.split(" ", 1)[0])
            if ts is None or ts >= cutoff:
                kept.append(line)
        lines = kept
    tail = _int(params, "tailLines")
    if tail is not None:
        lines = lines[-tail:] if tail > 0 else []
    if params.get("timestamps", "false").lower() != "true":
        lines = [line.split(" ", 1)[1] if " " in line and parse_iso(line.split(" ", 1)[0]) else line for line in lines]
    text = "".join(lines)
    limit = _int(params, "limitBytes")
    if limit is not None and limit >= 0:
        text = text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")
    return text


def pod_logs(store: Store, namespace: str, pod_name: str, params: dict[str, str]) -> LogAnswer:
    """The log answer for one pod/container as the bundle recorded it."""
    pod = store.pod(namespace, pod_name)
    if pod is None and not store.pod_known(namespace, pod_name):
        return LogAnswer(404, reason="NotFound", body=f'pods "{pod_name}" not found')
    container = params.get("container") or default_container(pod.body if pod else None)
    if not container:
        names = pod_containers(pod.body if pod else None) or sorted(
            {k[2] for k in store.logs if k[0] == namespace and k[1] == pod_name}
        )
        if len(names) == 1:
            container = names[0]
        else:
            return LogAnswer(400, reason="BadRequest",
                             body=f"a container name must be specified for pod {pod_name}, choose one of: [{' '.join(names)}]")
    previous = params.get("previous", "false").lower() == "true"
    rec = store.logs.get((namespace, pod_name, container, previous))
    if rec is None:
        which = "previous terminated container" if previous else "container"
        return LogAnswer(404, reason="NotFound",
                         body=f'logs of {which} "{container}" in pod "{pod_name}" were not captured in this bundle')
    row = rec
    if row.get("error") and not row.get("body"):
        return LogAnswer(400, reason="BadRequest", body=str(row.get("error")))
    body = row.get("body") or ""
    if store.log_filter is not None:
        body = store.log_filter(namespace, pod_name, body)
    try:
        return LogAnswer(200, body=select_lines(body, params, store.ref_time))
    except ValueError as exc:
        return LogAnswer(400, reason="BadRequest", body=str(exc))


__all__ = ["LogAnswer", "default_container", "pod_containers", "pod_logs", "select_lines"]
