"""kube-state-metrics history of a simulated bundle (OpenMetrics lines), for ``prom_history``.

From the bundle's Pod and Node listings, one sample every ``step_s`` over the capture
window, with the labels kube-state-metrics 2.x writes (kube-prometheus scrapes it with
``honorLabels: true``, so ``pod``/``namespace`` name the subject): ``kube_pod_info``,
``kube_pod_labels`` (label names sanitised as ``label_<name>``: the cluster must allow-list
them with ``--metric-labels-allowlist``), ``kube_pod_created``, ``kube_pod_status_phase``,
``kube_pod_container_status_restarts_total``, ``..._last_terminated_reason``/``_exitcode``/
``_timestamp`` (kube-state-metrics 2.13+), ``..._status_running``/``_waiting_reason``/``_terminated_reason``,
``kube_pod_container_resource_requests{resource="nvidia_com_gpu"}``, ``kube_node_info``,
``kube_node_status_allocatable``, ``kube_node_spec_taint``, ``kube_node_status_condition{condition="Ready"}``.

A pod's container state switches from its first to its last listing when the last
listing's ``lastState.terminated.finishedAt`` is reached (restarts counted then).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from typing import Any, Iterator

from k10s_forensics.store.bundle import Bundle, parse_iso, read_raw

KSM = {"job": "kube-state-metrics", "instance": "10.96.0.80:8080"}
GPU = "nvidia_com_gpu"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def series_line(name: str, labels: dict[str, str], value: Any, ts: dt.datetime) -> str:
    """One OpenMetrics sample line with a timestamp in seconds; empty label values are left out."""
    body = ",".join(f'{k}="{_escape(str(v))}"' for k, v in sorted(labels.items()) if v not in (None, ""))
    return f"{name}{{{body}}} {value} {ts.timestamp():.3f}"


def _sanitise(name: str) -> str:
    return "label_" + re.sub(r"[^a-zA-Z0-9_]", "_", name)


def _listings(bundle: Bundle) -> tuple[dict[str, list[tuple[dt.datetime, dict]]], dict[str, dict]]:
    pods: dict[str, list[tuple[dt.datetime, dict]]] = defaultdict(list)
    nodes: dict[str, dict] = {}
    table = read_raw(bundle, "objects", ["captured_at", "kind", "namespace", "body"]).to_pylist()
    for row in sorted(table, key=lambda r: r["captured_at"]):
        if row["kind"] == "Pod":
            body = json.loads(row["body"])
            pods[body["metadata"]["uid"]].append((row["captured_at"], body))
        elif row["kind"] == "Node":
            body = json.loads(row["body"])
            nodes[body["metadata"]["name"]] = body
    return pods, nodes


def _times(start: dt.datetime, end: dt.datetime, step_s: float) -> Iterator[dt.datetime]:
    t = start
    while t <= end:
        yield t
        t += dt.timedelta(seconds=step_s)


def _pod_series(first: dict, last: dict, t: dt.datetime, pod_labels: bool = True) -> Iterator[tuple[str, dict[str, Any], Any]]:
    meta, spec, status = last["metadata"], last.get("spec") or {}, last.get("status") or {}
    who = {"namespace": meta["namespace"], "pod": meta["name"], "uid": meta["uid"]}
    owner = next((o for o in meta.get("ownerReferences") or [] if o.get("controller")), {})
    yield "kube_pod_info", {**who, "node": spec.get("nodeName", ""), "pod_ip": status.get("podIP", ""),
                            "host_ip": status.get("hostIP", ""), "created_by_kind": owner.get("kind", ""),
                            "created_by_name": owner.get("name", ""), "priority_class": spec.get("priorityClassName", ""),
                            "host_network": str(bool(spec.get("hostNetwork"))).lower()}, 1
    yield "kube_pod_labels", {**who, **({_sanitise(k): v for k, v in (meta.get("labels") or {}).items()} if pod_labels else {})}, 1
    created = parse_iso(meta.get("creationTimestamp"))
    if created is not None:
        yield "kube_pod_created", who, int(created.timestamp())
    yield "kube_pod_status_phase", {**who, "phase": status.get("phase", "Unknown")}, 1
    if status.get("reason") in ("Evicted", "Shutdown"):  # kube-state-metrics' reasons; 1 from the stop on
        since = next((parse_iso(c.get("lastTransitionTime")) for c in status.get("conditions") or [] if c.get("type") == "DisruptionTarget"), None)
        yield "kube_pod_status_reason", {**who, "reason": status["reason"]}, int(since is None or t >= since)
    before = {s["name"]: s for s in (first.get("status") or {}).get("containerStatuses") or []}
    for st in status.get("containerStatuses") or []:
        term = (st.get("lastState") or {}).get("terminated") or {}
        finished = parse_iso(term.get("finishedAt"))
        now = st if finished is not None and t >= finished else before.get(st["name"], st)
        labels = {**who, "container": st["name"]}
        yield "kube_pod_container_status_restarts_total", labels, int(now.get("restartCount") or 0)
        state = now.get("state") or {}
        if "running" in state:
            yield "kube_pod_container_status_running", labels, 1
        for which in ("waiting", "terminated"):
            if which in state:
                yield f"kube_pod_container_status_{which}_reason", {**labels, "reason": state[which].get("reason", "")}, 1
        now_term = (now.get("lastState") or {}).get("terminated")
        if now_term:
            yield "kube_pod_container_status_last_terminated_reason", {**labels, "reason": now_term.get("reason", "")}, 1
            yield "kube_pod_container_status_last_terminated_exitcode", labels, int(now_term.get("exitCode") or 0)
            done = parse_iso(now_term.get("finishedAt"))
            if done is not None:
                yield "kube_pod_container_status_last_terminated_timestamp", labels, round(done.timestamp(), 3)
    for c in spec.get("containers") or []:
        gpus = ((c.get("resources") or {}).get("requests") or {}).get("nvidia.com/gpu") or ((c.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu")
        if gpus:
            yield "kube_pod_container_resource_requests", {**who, "container": c["name"], "node": spec.get("nodeName", ""),
                                                           "resource": GPU, "unit": "integer"}, int(gpus)


def _ready_series(node: dict, t: dt.datetime) -> Iterator[tuple[str, dict[str, Any], Any]]:
    """kube_node_status_condition{condition="Ready"} at ``t``: one series per status, 1 for the one that held then (the
    last listing's status from its lastTransitionTime on, True before it)."""
    name = node["metadata"]["name"]
    cond = next((c for c in (node.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), {})
    since = parse_iso(cond.get("lastTransitionTime"))
    now = str(cond.get("status", "True")).lower() if since is None or t >= since else "true"
    for status in ("true", "false", "unknown"):
        yield "kube_node_status_condition", {"node": name, "condition": "Ready", "status": status}, int(status == now)


def _node_series(node: dict) -> Iterator[tuple[str, dict[str, Any], Any]]:
    name = node["metadata"]["name"]
    status = node.get("status") or {}
    ip = next((a["address"] for a in status.get("addresses") or [] if a.get("type") == "InternalIP"), "")
    yield "kube_node_info", {"node": name, "internal_ip": ip,
                             "kubelet_version": (status.get("nodeInfo") or {}).get("kubeletVersion", "")}, 1
    gpus = (status.get("allocatable") or {}).get("nvidia.com/gpu")
    if gpus is not None:
        yield "kube_node_status_allocatable", {"node": name, "resource": GPU, "unit": "integer"}, int(gpus)
    for taint in (node.get("spec") or {}).get("taints") or []:
        yield "kube_node_spec_taint", {"node": name, "key": taint.get("key", ""), "value": taint.get("value", ""),
                                       "effect": taint.get("effect", "")}, 1


def ksm_lines(bundle: Bundle, step_s: float = 30.0, pod_labels: bool = True) -> Iterator[tuple[str, str]]:
    """(metric, OpenMetrics line) of the bundle's kube-state-metrics history; ``pod_labels=False``:
    kube-state-metrics' default, no ``--metric-labels-allowlist`` (``kube_pod_labels`` without ``label_*``)."""

    window = bundle.manifest.get("window") or {}
    start, end = parse_iso(window.get("start")), parse_iso(window.get("end"))
    pods, nodes = _listings(bundle)
    for listings in pods.values():
        first, last = listings[0][1], listings[-1][1]
        gone = parse_iso(last["metadata"].get("deletionTimestamp"))
        until = min(gone or end, end) if listings[-1][0] >= end - dt.timedelta(seconds=60) else listings[-1][0]
        for t in _times(start, until, step_s):
            for name, labels, value in _pod_series(first, last, t, pod_labels):
                yield name, series_line(name, {**KSM, **labels}, value, t)
    for node in nodes.values():
        series = list(_node_series(node))
        for t in _times(start, end, step_s):
            for name, labels, value in [*series, *_ready_series(node, t)]:
                yield name, series_line(name, {**KSM, **labels}, value, t)


__all__ = ["ksm_lines", "series_line"]
