"""raw/scrapes source=prometheus-query (Prometheus HTTP API JSON) -> gpu_samples.

Bodies are ``/api/v1/query_range`` (``matrix``) or ``/api/v1/query`` (``vector``) answers.
The metric is the ``__name__`` label, else the metric named in the url's ``query=``
parameter (``last_over_time(DCGM_FI_DEV_GPU_UTIL{...}[15s])`` -> ``DCGM_FI_DEV_GPU_UTIL``);
it is mapped to columns with the same DCGM table as ``dcgm``. Samples of one device, pod
and timestamp across metrics become one row (``source`` = prometheus-query).

The workload pod and the node come from :mod:`prom_labels` (every scrape convention:
honorLabels, kube-prometheus ``exported_*``, relabelled node, legacy spellings), with the
captured pods and nodes naming exporter pods, their IPs and nodes. Series of other
metrics (kube-state-metrics) are left to :mod:`prom_ksm`.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from k10s_forensics.parsers.gpu_common import INT_COLUMNS, capture_failure, dcgm_identity, metric_column
from k10s_forensics.parsers.prom_labels import Attribution, fill_nodes

SOURCE = "prometheus-query"
ISSUE_SOURCE = "scrapes:prometheus-query"
RAW_FILE = "raw/scrapes.parquet"
_IDENT_KEYS = ("gpu_uuid", "namespace", "pod", "container", "pod_uid")
_ROW_KEYS = ("gpu_uuid", "gpu_index", "pci_bus_id", "model_name", "mig_profile", "gpu_instance_id", "pod_uid")
_METRIC = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?=[{\[]|$)")
_FUNCTIONS = frozenset({"last_over_time", "max_over_time", "min_over_time", "avg_over_time", "rate", "increase", "sum", "max", "min"})


@functools.lru_cache(maxsize=1 << 16)
def _when(stamp: Any) -> dt.datetime:
    """A sample time (seconds) as a UTC datetime; cached: the same times recur across GPUs and metrics."""
    return dt.datetime.fromtimestamp(float(stamp), tz=dt.timezone.utc)


def node_of(labels: dict[str, str]) -> str | None:
    """The node a series belongs to judged from its labels alone (no captured pods or nodes)."""
    return Attribution().node(labels)


def query_metric(url: str | None) -> str | None:
    """The metric a url's ``query=`` selects (``last_over_time(M{...}[15s])`` -> ``M``), or None."""
    if not url:
        return None
    query = parse_qs(urlsplit(url).query).get("query")
    if not query:
        return None
    for m in _METRIC.finditer(query[0]):
        if m.group(1) not in _FUNCTIONS and m.group(1) not in ("or", "and", "unless", "by", "without"):
            return m.group(1)
    return None


def parse_prometheus_query(body: str | None, url: str | None = None, att: Attribution | None = None) -> tuple[list[dict], list[tuple[str, str | None]]]:
    """Parse one Prometheus API answer into gpu_samples rows (dicts) and issues (reason, example).

    ``att`` names exporter pods, IPs and nodes from the captured objects (labels only without it).
    """
    rows: dict[tuple, dict[str, Any]] = {}
    issues = accumulate(body, url, att or Attribution(), rows)
    return finish(rows), issues


def accumulate(body: str | None, url: str | None, att: Attribution, rows: dict[tuple, dict[str, Any]]) -> list[tuple[str, str | None]]:
    """Add one answer's samples to ``rows`` (one row per device, pod and time across metrics); returns issues."""
    if not body or not body.strip():
        return [("empty body", url)]
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError) as exc:
        return [("malformed JSON", f"{exc}: {body[:120]!r}")]
    if not isinstance(doc, dict):
        return [("not a Prometheus API answer", body[:200])]
    if doc.get("status") != "success":
        return [(f"query error: {doc.get('errorType') or doc.get('status')}", str(doc.get("error"))[:200])]
    data = doc.get("data") or {}
    kind = data.get("resultType")
    if kind not in ("matrix", "vector"):
        return [(f"unsupported resultType {kind!r}", None)]
    # Thanos/Mimir partial responses (a store or ingester missing) answer success with warnings
    issues: list[tuple[str, str | None]] = [("partial answer (server warning)", str(w)[:200]) for w in doc.get("warnings") or []]
    if doc.get("isPartial") is True:  # VictoriaMetrics cluster: a vmstorage node did not answer
        issues.append(("partial answer (isPartial)", url))
    fallback_name = query_metric(url)
    for series in data.get("result") or []:
        if not isinstance(series, dict):
            issues.append(("malformed series", str(series)[:200]))
            continue
        labels = {str(k): str(v) for k, v in (series.get("metric") or {}).items()}
        name = labels.get("__name__") or fallback_name
        target = metric_column(name) if name else None
        if target is None:
            if name is None:
                issues.append(("series without metric name", json.dumps(labels)[:200]))
            continue
        ident = dcgm_identity(labels)
        if ident is None:
            issues.append(("series without UUID label", json.dumps(labels)[:200]))
            continue
        column, rank = target
        node = att.node(labels)
        ident["namespace"], ident["pod"], ident["container"] = att.workload(labels)
        points = series.get("values") if kind == "matrix" else [series.get("value")]
        ident_key = tuple(ident[k] for k in _IDENT_KEYS)
        template = {k: ident[k] for k in _ROW_KEYS + ("namespace", "pod", "container")}
        template.update(node=node, source=SOURCE)
        as_int = column in INT_COLUMNS
        for point in points or []:
            try:
                when = _when(point[0])
                value = float(point[1])
            except (TypeError, ValueError, IndexError, OverflowError, OSError):
                issues.append(("malformed sample", str(point)[:200]))
                continue
            if not math.isfinite(value):
                continue
            key = (node, when, ident_key)
            row = rows.get(key)
            if row is None:
                row = rows[key] = {**template, "ts": when, "_ranks": {}}
            ranks = row["_ranks"]
            if rank < ranks.get(column, 1 << 30):
                ranks[column] = rank
                row[column] = int(value) if as_int else value
    return issues


def finish(rows: dict[tuple, dict[str, Any]]) -> list[dict]:
    """The accumulated rows, framebuffer total derived from used + free (+ reserved)."""
    out = []
    for row in rows.values():
        row.pop("_ranks")
        free, used = row.pop("_fb_free", None), row.get("fb_used_mib")
        reserved = row.pop("_fb_reserved", None)
        if row.get("fb_total_mib") is None and used is not None and free is not None:
            row["fb_total_mib"] = used + free + (reserved or 0.0)
        out.append(row)
    return out


def _shape(url: str | None) -> str:
    """The url with its metric name blanked: answers for the same GPUs and time piece share it."""
    metric = query_metric(url) or ""
    return (url or "").replace(metric, "", 1) if metric else (url or "")


def derive(ctx) -> None:
    """Emit gpu_samples rows from every prometheus-query scrape."""
    table = ctx.raw("scrapes", source=SOURCE)
    if table.num_rows == 0:
        return
    att = Attribution.build(ctx.table("pods").to_pylist(), ctx.table("nodes").to_pylist())
    uuid_node: dict[str, str] = {}
    unplaced: list[dict] = []  # rows without a node wait for another series of their GPU to name it
    groups: dict[str, list[dict]] = {}
    for row in table.select(["url", "status", "body", "error", "_row"]).to_pylist():
        if (query_metric(row.get("url")) or "").startswith("kube_"):
            continue  # kube-state-metrics: prom_ksm's
        groups.setdefault(_shape(row.get("url")), []).append(row)
    for group in groups.values():  # answers of the same GPUs and time piece merge into one row per sample
        rows: dict[tuple, dict[str, Any]] = {}
        for row in group:
            failure = capture_failure(row)
            if failure:
                ctx.issue(ISSUE_SOURCE, failure, row.get("error") or (row.get("body") or "")[:200], RAW_FILE, row["_row"])
                if row.get("status") not in (None, 200) or not row.get("body"):
                    continue
            try:
                issues = accumulate(row.get("body"), row.get("url"), att, rows)
            except Exception as exc:  # a parser bug costs this row only
                issues = [(f"parser error ({exc.__class__.__name__})", str(exc)[:200])]
            for reason, example in issues:
                ctx.issue(ISSUE_SOURCE, reason, example, RAW_FILE, row["_row"])
        samples = finish(rows)
        placed = [r for r in samples if r.get("node")]
        unplaced.extend(r for r in samples if not r.get("node"))
        for r in placed:
            uuid_node.setdefault(r["gpu_uuid"], r["node"])
        if placed:
            ctx.emit("gpu_samples", placed)
    if unplaced:
        fill_nodes(unplaced, uuid_node)
        missing = sum(1 for r in unplaced if not r.get("node"))
        if missing:
            ctx.issue(ISSUE_SOURCE, "sample without a node (no node label, exporter pod or other series of its GPU)", unplaced[0]["gpu_uuid"], RAW_FILE, None, missing)
        ctx.emit("gpu_samples", unplaced)


__all__ = ["derive", "parse_prometheus_query", "node_of", "SOURCE"]
