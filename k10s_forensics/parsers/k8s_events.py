"""``events``: one row per Kubernetes event, from raw/objects kind=Event.

Both APIs serve the same events: ``v1`` (involvedObject, message, count, first/lastTimestamp,
source) and ``events.k8s.io/v1`` (regarding, note, deprecatedCount/deprecated*Timestamp,
series, reportingController). An event seen through both APIs or in several listings is
one row (same metadata.uid): the copy with the highest count, then the latest time, wins.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from k10s_forensics.parsers.k8s_common import Obj, as_dict, iter_objects, text_or_none, to_int, ts

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

_EPOCH = dt.datetime.min.replace(tzinfo=dt.timezone.utc)


def derive(ctx: "DeriveContext") -> None:
    best: dict[tuple[Any, ...], dict[str, Any]] = {}
    for obj in iter_objects(ctx, "Event"):
        row = event_row(obj)
        key = ("uid", row["event_uid"]) if row["event_uid"] else ("name", row["namespace"], obj.name)
        old = best.get(key)
        if old is None or _rank(row) > _rank(old):
            best[key] = row
    rows = sorted(best.values(), key=lambda r: (r["ts"] or _EPOCH, r["namespace"] or "", r["object_name"] or ""))
    ctx.emit("events", rows)


def _rank(row: dict[str, Any]) -> tuple[int, dt.datetime]:
    return (row["count"] or 0, row["ts"] or _EPOCH)


def _latest(*values: Any) -> dt.datetime | None:
    times = [t for t in (ts(v) for v in values) if t is not None]
    return max(times) if times else None


def _earliest(*values: Any) -> dt.datetime | None:
    times = [t for t in (ts(v) for v in values) if t is not None]
    return min(times) if times else None


def event_row(obj: Obj) -> dict[str, Any]:
    """Normalise either API's event into the ``events`` columns."""
    body, meta = obj.body, obj.meta
    new_api = "regarding" in body or "note" in body or (obj.api_version or "").startswith("events.k8s.io/")
    target = as_dict(body.get("regarding") if new_api else body.get("involvedObject"))
    series = as_dict(body.get("series"))
    source = as_dict(body.get("deprecatedSource") if new_api else body.get("source"))
    if new_api:
        message = body.get("note")
        last = (body.get("deprecatedLastTimestamp"), series.get("lastObservedTime"), body.get("eventTime"))
        first_ts = _earliest(body.get("deprecatedFirstTimestamp"), body.get("eventTime"))
        count = to_int(series.get("count")) or to_int(body.get("deprecatedCount"))
    else:
        message = body.get("message")
        last = (body.get("lastTimestamp"), series.get("lastObservedTime"), body.get("eventTime"))
        first_ts = _earliest(body.get("firstTimestamp"), body.get("eventTime"))
        count = to_int(series.get("count")) or to_int(body.get("count"))
    event_ts = _latest(*last) or first_ts or ts(meta.get("creationTimestamp"))
    return {
        "ts": event_ts,
        "namespace": obj.namespace or text_or_none(target.get("namespace")),
        "object_kind": text_or_none(target.get("kind")),
        "object_name": text_or_none(target.get("name")),
        "object_uid": text_or_none(target.get("uid")),
        "reason": text_or_none(body.get("reason")),
        "type": text_or_none(body.get("type")),
        "message": text_or_none(message),
        "count": count if count and count > 0 else 1,
        "first_ts": first_ts or event_ts,
        "source_component": text_or_none(body.get("reportingController")) or text_or_none(body.get("reportingComponent")) or text_or_none(source.get("component")),
        "source_host": text_or_none(body.get("reportingInstance")) or text_or_none(source.get("host")),
        "event_uid": obj.uid,
        "api_version": obj.api_version,
        "object_namespace": text_or_none(target.get("namespace")),
        "action": text_or_none(body.get("action")),
        "raw_row": obj.row,
    }
