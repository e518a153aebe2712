"""Planning Prometheus history queries: window, scope filter, step, request splitting.

* **Window**: ``--from``/``--to`` (RFC 3339, or relative to now such as ``-3h``; ``--to``
  defaults to now), else ``--since`` back from ``--to``/now.
* **Scope**: one ``/api/v1/series`` call over the window tells which labels the server
  uses; a series is in scope when its workload pod (``exported_pod``/``pod``/``pod_name``)
  is a scope pod or starts with a scope job's name (pods already deleted), or when its
  node (node label, exporter pod, instance IP, ``Hostname``) is a scope node. The queries
  then filter on the GPU UUIDs of those series, the one key every convention keeps.
* **Interval**: the series' own scrape interval: a ``count_over_time`` query_range finds
  when one in-scope series has samples, a range vector there gives their median spacing.
* **Raw samples**: each request is an instant query of a range vector (``M{..}[Δ]`` at the
  piece's end), so samples keep their own timestamps; no piece holds more than
  ``MAX_POINTS`` samples per series at that interval (the size of a query_range Prometheus
  accepts, under its 11,000 points), and no selector more than ``MAX_SELECTOR_CHARS`` of UUIDs.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from k10s_forensics.errors import CollectorError
from k10s_forensics.parsers.prom_labels import Attribution

MAX_POINTS = 10_000
MAX_SELECTOR_CHARS = 4_000
DEFAULT_STEP_S = 15.0
_RELATIVE = re.compile(r"^(now)?\s*-\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_time(text: str, now: float) -> float:
    """RFC 3339 (``2026-05-15T12:00:00Z``), unix seconds, ``now`` or ``-3h``/``now-90m`` -> unix seconds.

    Raises:
        CollectorError: anything else.
    """
    value = text.strip()
    if value == "now":
        return now
    m = _RELATIVE.match(value)
    if m:
        return now - float(m.group(2)) * _UNITS[m.group(3)]
    try:
        return float(value)
    except ValueError:
        pass
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise CollectorError(f"not a time: {text!r} (use RFC 3339 like 2026-05-15T12:00:00Z, or -3h)") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.timezone.utc)
    return parsed.timestamp()


def history_window(since_s: float, start: str | None, end: str | None, now: float) -> tuple[float, float]:
    """(start, end) unix seconds of the history to fetch.

    Raises:
        CollectorError: an unreadable time, or start not before end.
    """
    stop = parse_time(end, now) if end else now
    begin = parse_time(start, now) if start else stop - since_s
    if begin >= stop:
        raise CollectorError("--from must be before --to")
    return begin, stop


@dataclass
class ScopeKeys:
    """What puts a series in scope; ``everything`` for -A without a job."""

    everything: bool = False
    pods: set[tuple[str, str]] = field(default_factory=set)
    job_prefixes: set[tuple[str, str]] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)

    def wants(self, labels: dict[str, str], att: Attribution) -> bool:
        if self.everything:
            return True
        namespace, pod, _ = att.workload(labels)
        if pod and ((namespace, pod) in self.pods or any(
                namespace == ns and pod.startswith(prefix + "-") for ns, prefix in self.job_prefixes)):
            return True
        return att.node(labels) in self.nodes


def uuid_label(labels: dict[str, str]) -> str | None:
    return "UUID" if labels.get("UUID") else ("uuid" if labels.get("uuid") else None)


def scoped_uuids(series: Iterable[dict[str, str]], keys: ScopeKeys, att: Attribution) -> dict[str, set[str]]:
    """UUID label name -> GPU UUIDs of the series in scope."""
    out: dict[str, set[str]] = {}
    for labels in series:
        name = uuid_label(labels)
        if name and keys.wants(labels, att):
            out.setdefault(name, set()).add(labels[name])
    return out


def exporter_pods(series: Iterable[dict[str, str]]) -> set[str]:
    """dcgm-exporter pod names that series carry in ``pod`` (kube-prometheus default)."""
    att = Attribution()
    return {s["pod"] for s in series if s.get("pod") and att.is_exporter(s["pod"])}


def describe_convention(series: list[dict[str, str]]) -> str:
    """How the server labels DCGM series, in words (for the manifest)."""
    if not series:
        return "no DCGM series in the window"
    keys = set().union(*(s.keys() for s in series))
    parts = []
    if keys & {"exported_pod", "exported_namespace"}:
        parts.append("kube-prometheus default (workload in exported_*, exporter pod in pod)")
    elif keys & {"pod", "pod_name"}:
        parts.append("workload in " + ("pod" if "pod" in keys else "pod_name (legacy)"))
    else:
        parts.append("no workload labels")
    node = [k for k in ("node", "kubernetes_node", "nodename") if k in keys]
    parts.append(f"node label {node[0]}" if node else "node from exporter pod/instance/Hostname")
    if "uuid" in keys and "UUID" not in keys:
        parts.append("lower-case uuid")
    if keys & {"GPU_I_ID", "GPU_I_PROFILE"}:
        parts.append("MIG series")
    return "; ".join(parts)


def series_labels(body: str) -> list[dict[str, str]]:
    """Label sets of a ``/api/v1/series`` answer.

    Raises:
        CollectorError: not a successful series answer.
    """
    try:
        doc = json.loads(body)
    except ValueError:
        raise CollectorError(f"series answer is not JSON: {body[:120]!r}") from None
    if not isinstance(doc, dict) or doc.get("status") != "success" or not isinstance(doc.get("data"), list):
        raise CollectorError(f"series query failed: {str(doc.get('error') if isinstance(doc, dict) else body)[:200]}")
    return [{str(k): str(v) for k, v in s.items()} for s in doc["data"] if isinstance(s, dict)]


def busiest_time(body: str) -> float | None:
    """The time of the point with the most samples in a ``count_over_time`` range answer (None when empty)."""
    try:
        points = [(float(v[1]), float(v[0])) for s in json.loads(body)["data"]["result"] for v in s.get("values") or []]
    except (ValueError, KeyError, TypeError, IndexError):
        return None
    return max(points)[1] if points else None


def interval_from_samples(body: str) -> float | None:
    """The median spacing (whole seconds, >= 1) of the raw samples in a range-vector answer."""
    try:
        values = json.loads(body)["data"]["result"][0]["values"]
        times = sorted(float(v[0]) for v in values)
    except (ValueError, KeyError, TypeError, IndexError):
        return None
    gaps = sorted(b - a for a, b in zip(times, times[1:]) if b > a)
    if not gaps:
        return None
    return max(1.0, float(round(gaps[len(gaps) // 2])))


def pieces(start: float, end: float, interval_s: float, max_points: int = MAX_POINTS) -> Iterator[tuple[float, float]]:
    """Consecutive [from, to] pieces covering [start, end], each at most ``max_points`` samples per series."""
    span = interval_s * (max_points - 1)
    t = start
    while True:
        stop = min(end, t + span)
        yield t, stop
        if stop >= end:
            return
        t = stop


def regex_escape(value: str) -> str:
    """A literal inside a PromQL double-quoted regex string (backslashes doubled for the string)."""
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\\\1", value).replace('"', '\\"')


def uuid_groups(uuids: Iterable[str], max_chars: int = MAX_SELECTOR_CHARS) -> list[list[str]]:
    """Sorted UUIDs in groups whose regex stays under ``max_chars``."""
    groups: list[list[str]] = [[]]
    size = 0
    for u in sorted(uuids):
        cost = len(regex_escape(u)) + 1
        if groups[-1] and size + cost > max_chars:
            groups.append([])
            size = 0
        groups[-1].append(u)
        size += cost
    return [g for g in groups if g]


def selector(metric: str, matchers: dict[str, list[str]] | None) -> str:
    """``metric{label=~"a|b"}`` (or the bare metric)."""
    if not matchers:
        return metric
    inner = ",".join(f'{k}=~"{"|".join(regex_escape(v) for v in vals)}"' for k, vals in sorted(matchers.items()))
    return f"{metric}{{{inner}}}"


def raw_query(metric: str, matchers: dict[str, list[str]] | None, start: float, end: float) -> str:
    """The raw samples of [start, end] as a range vector (evaluated at ``end``).

    A range vector returns every stored sample at its own timestamp: no step grid that
    shifts a sample up to one step later, and no value repeated for 5 minutes after a
    series ends (a GPU that fell off the bus, a deleted pod), as a bare query_range would.
    """
    return ranged(selector(metric, matchers), start, end)


def ranged(sel: str, start: float, end: float) -> str:
    """``sel[Δ]`` covering [start, end] evaluated at ``end`` (one extra millisecond: ranges are left-open in Prometheus 3)."""
    return f"{sel}[{int(round((end - start) * 1000)) + 1}ms]"


def instant_params(query: str, at: float, timeout_s: float) -> list[tuple[str, str]]:
    return [("query", query), ("time", f"{at:.3f}"), ("timeout", f"{max(1, int(timeout_s))}s")]


def range_params(query: str, start: float, end: float, step_s: float, timeout_s: float) -> list[tuple[str, str]]:
    return [("query", query), ("start", f"{start:.3f}"), ("end", f"{end:.3f}"), ("step", f"{step_s:g}"),
            ("timeout", f"{max(1, int(timeout_s))}s")]


def as_iso(t: float) -> str:
    return dt.datetime.fromtimestamp(t, tz=dt.timezone.utc).isoformat().replace("+00:00", "Z")


def scope_keys(ctx: Any) -> ScopeKeys:
    """From the capture scope and inventory: scope pods, job name prefixes, sampled nodes."""
    scope = ctx.scope
    if scope.all_namespaces and not scope.jobs:
        return ScopeKeys(everything=True)
    inv = ctx.inventory
    with inv.lock:
        pods = {(p.namespace, p.name) for p in inv.pods.values() if p.key not in inv.operator_pods}
    return ScopeKeys(pods=pods, job_prefixes={(j.namespace, j.name) for j in scope.jobs}, nodes=set(inv.gpu_nodes()))


def inventory_attribution(ctx: Any) -> Attribution:
    """Attribution from the captured pods (exporter pods and their IPs) and nodes."""
    att = Attribution()
    inv = ctx.inventory
    with inv.lock:
        att.nodes = set(inv.nodes)
        for p in list(inv.pods.values()) + list(inv.operator_pods.values()):
            if p.node:
                att.pod_node[p.name] = p.node
                if getattr(p, "ip", ""):
                    att.ip_node.setdefault(p.ip, p.node)
            if {p.labels.get("app"), p.labels.get("app.kubernetes.io/name")} & {"nvidia-dcgm-exporter", "dcgm-exporter"}:
                att.exporter_pods.add(p.name)
    return att


__all__ = ["parse_time", "history_window", "ScopeKeys", "scoped_uuids", "describe_convention", "series_labels",
           "busiest_time", "interval_from_samples", "pieces", "uuid_groups", "selector", "raw_query", "ranged", "instant_params", "range_params", "scope_keys",
           "inventory_attribution", "MAX_POINTS"]
