"""After an incident is captured: a webhook notification and, with ``--events``, an Event.

The notification is Slack-compatible JSON (``{"text": ...}``, which Slack, Mattermost,
Rocket.Chat and most chat bridges accept): the job, the incident's one-line ``y`` text and
the report's path. The Event (``create events``, the watcher's only write, off by default)
is a ``Warning`` event ``K10sIncidentCaptured`` on the job object.
"""

from __future__ import annotations

import datetime as dt
import json
import urllib.error
import urllib.request
from typing import Any

from k10s_forensics.store.bundle import iso

TIMEOUT_S = 10.0


def message(incident: Any, result: dict[str, Any]) -> dict[str, Any]:
    why = incident.triggers[0].reason if incident.triggers else "?"
    report = f"{result.get('path', '')}/report.html" if result.get("state") == "captured" else "(no report: capture failed)"
    text = f"k10s: incident on {incident.job} ({why}): {result.get('y') or result.get('capture', {}).get('error', '')}\nreport: {report}"
    return {"text": text, "username": "k10s watch"}


def send_webhook(url: str, doc: dict[str, Any], timeout_s: float = TIMEOUT_S) -> str:
    """POST the JSON; ``ok`` or why not (never raises)."""
    if not url.startswith(("http://", "https://")):
        return "notify_url must be http(s)"
    req = urllib.request.Request(url, data=json.dumps(doc).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "User-Agent": "k10s-watch/0.1"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:  # noqa: S310 (an http(s) URL from the config)
            resp.read(1 << 16)
            return "ok" if resp.status < 300 else f"HTTP {resp.status}"
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}"
    except (OSError, ValueError) as exc:
        return f"{exc.__class__.__name__}: {exc}"[:200]


def job_event(incident: Any, result: dict[str, Any], job_obj: dict[str, Any] | None) -> dict[str, Any]:
    ns, name = incident.job.split("/", 1)
    meta = (job_obj or {}).get("metadata") or {}
    now = iso(dt.datetime.now(dt.timezone.utc))
    involved = {"kind": incident.kind or (job_obj or {}).get("kind") or "Job", "namespace": ns, "name": name}
    if job_obj:
        involved.update(apiVersion=job_obj.get("apiVersion", ""), uid=meta.get("uid", ""))
    return {
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"generateName": f"{name[:40]}.k10s.", "namespace": ns},
        "involvedObject": involved,
        "reason": "K10sIncidentCaptured", "type": "Warning",
        "message": f"{result.get('y', '')} (bundle {result.get('path', '')})"[:1000],
        "source": {"component": "k10s-watch"}, "reportingComponent": "k10s-watch",
        "firstTimestamp": now, "lastTimestamp": now, "count": 1,
    }


__all__ = ["job_event", "message", "send_webhook"]
