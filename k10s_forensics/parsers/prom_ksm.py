"""raw/scrapes source=prometheus-query kube-state-metrics series -> historical pods, containers, nodes.

For pods deleted before capture (cleanPodPolicy, JobSet/TrainJob restarts), the pod's
kube-state-metrics history is all that is left. Per pod uid the series are folded into
the Pod object they describe and handed to the ``pods`` parser's own row builders, so job,
replica and index fields come out exactly as for a listed pod:

* ``kube_pod_info``: node, pod IP, host IP, controlling owner (``created_by_*``);
* ``kube_pod_labels``: labels, when kube-state-metrics allow-lists them
  (``--metric-labels-allowlist=pods=[*]``); ``label_<sanitised>`` names are mapped back for
  the keys the parsers read (training-operator, JobSet, batch and Kueue labels);
* ``kube_pod_created``, ``kube_pod_status_phase`` (last phase);
* ``kube_pod_container_status_restarts_total`` (last value), ``..._last_terminated_reason``/
  ``_exitcode``/``_timestamp`` (the last termination time; without it, kube-state-metrics
  before 2.13, the time the restart counter last went up, to one scrape interval);
* ``kube_pod_container_status_running``/``_waiting_reason``/``_terminated_reason``: the
  container's state at its last sample;
* ``kube_pod_container_resource_requests{resource="nvidia_com_gpu"}``;
* ``kube_pod_status_reason{reason="Evicted"|"Shutdown"}`` at 1: the pod's status reason (the kubelet evicted it, or
  its node shut down: queries/disruption.sql).

Only uids the capture did not list become rows, with ``evidence = 'prometheus'``;
``first_seen_at``/``last_seen_at`` span the samples, and a pod whose series stop before the
history ends is taken as gone then (``finished_at``). Nodes absent from the listing get a
row from ``kube_node_info``/``kube_node_status_allocatable``/``kube_node_spec_taint`` and
``kube_node_status_condition{condition="Ready"}``: the status its last sample held (``unknown`` is read as the node
controller's ``NodeStatusUnknown``, the only writer of that status) and since when (the first sample of that
status's last run): a node deleted after it died (a spot VM the cloud reclaimed) keeps its NotReady.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from k10s_forensics.store.bundle import parse_iso
from k10s_forensics.parsers.k8s_common import Obj
from k10s_forensics.parsers.k8s_owners import JobIndex
from k10s_forensics.parsers.k8s_pods import container_rows, pod_row
from k10s_forensics.parsers.prometheus import query_metric

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

SOURCE = "prometheus-query"
EVIDENCE = "prometheus"
KNOWN_LABELS = (
    "training.kubeflow.org/job-name", "training.kubeflow.org/replica-type", "training.kubeflow.org/replica-index",
    "training.kubeflow.org/job-role", "training.kubeflow.org/operator-name", "group-name", "job-name",
    "trainer.kubeflow.org/trainjob-name", "trainer.kubeflow.org/trainjob-ancestor-step",
    "jobset.sigs.k8s.io/jobset-name", "jobset.sigs.k8s.io/replicatedjob-name", "jobset.sigs.k8s.io/job-index",
    "jobset.sigs.k8s.io/job-global-index", "jobset.sigs.k8s.io/restart-attempt", "batch.kubernetes.io/job-name",
    "batch.kubernetes.io/job-completion-index", "batch.kubernetes.io/controller-uid", "controller-uid",
    "kueue.x-k8s.io/queue-name", "ray.io/cluster", "ray.io/node-type", "ray.io/originated-from-cr-name",
    "ray.io/originated-from-crd", "leaderworkerset.sigs.k8s.io/name", "app", "app.kubernetes.io/name",
    "pytorch-job-name", "tf-job-name",
)
UNSANITISE = {"label_" + re.sub(r"[^a-zA-Z0-9_]", "_", k): k for k in KNOWN_LABELS}
_STATES = {"kube_pod_container_status_running": "running", "kube_pod_container_status_waiting_reason": "waiting",
           "kube_pod_container_status_terminated_reason": "terminated"}
_GPU_RESOURCES = re.compile(r"^nvidia_com_(gpu|mig.*)$")


def _ts(t: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(t, tz=dt.timezone.utc)


def _iso(t: float | None) -> str | None:
    return _ts(t).isoformat().replace("+00:00", "Z") if t is not None else None


class _Pod:
    def __init__(self) -> None:
        self.labels: dict[str, str] = {}
        self.info: dict[str, str] = {}
        self.times: list[float] = []
        self.created: float | None = None
        self.phase: tuple[float, str] | None = None
        self.restarts: dict[str, list[tuple[float, float]]] = defaultdict(list)
        self.last_reason: dict[str, str] = {}
        self.last_exit: dict[str, int] = {}
        self.last_finished: dict[str, float] = {}
        self.state: dict[str, tuple[float, str, str]] = {}  # container -> (time, running/waiting/terminated, reason)
        self.gpus: dict[str, int] = {}
        self.reason: tuple[float, str] | None = None  # (first sample at 1, status reason)

    def body(self, namespace: str, name: str, uid: str, history_end: float | None) -> dict[str, Any]:
        info = self.info
        meta: dict[str, Any] = {"name": name, "namespace": namespace, "uid": uid,
                                "labels": {UNSANITISE[k]: v for k, v in self.labels.items() if k in UNSANITISE}}
        if self.created is not None:
            meta["creationTimestamp"] = _iso(self.created)
        if info.get("created_by_kind"):
            meta["ownerReferences"] = [{"kind": info["created_by_kind"], "name": info.get("created_by_name", ""), "controller": True}]
        names = sorted(set(self.restarts) | set(self.gpus) | set(self.last_reason))
        containers = [{"name": c, **({"resources": {"requests": {"nvidia.com/gpu": str(self.gpus[c])}}} if c in self.gpus else {})}
                      for c in names]
        last_seen = max(self.times) if self.times else None
        gone = last_seen is not None and history_end is not None and last_seen < history_end - 120
        statuses = []
        for c in names:
            points = sorted(self.restarts.get(c, []))
            count = int(points[-1][1]) if points else 0
            st: dict[str, Any] = {"name": c, "restartCount": count}
            if c in self.last_reason or c in self.last_exit:
                increased = [t for (t, v), (_, prev) in zip(points[1:], points) if v > prev]
                term = {"reason": self.last_reason.get(c), "exitCode": self.last_exit.get(c)}
                if c in self.last_finished:
                    term["finishedAt"] = _iso(self.last_finished[c])
                elif increased:
                    term["finishedAt"] = _iso(increased[-1])
                st["lastState"] = {"terminated": term}
            if gone:
                st["state"] = {"terminated": {"reason": "Unknown", "finishedAt": _iso(last_seen)}}
            elif c in self.state:
                _, which, reason = self.state[c]
                st["state"] = {which: {"reason": reason} if reason else {}}
                if which == "terminated" and self.reason:  # a stopped pod's container ended when its reason turned (a scrape)
                    st["state"][which]["finishedAt"] = _iso(self.reason[0])
            statuses.append(st)
        status = {"phase": self.phase[1] if self.phase else None, "podIP": info.get("pod_ip") or None,
                  "hostIP": info.get("host_ip") or None, "containerStatuses": statuses,
                  **({"reason": self.reason[1]} if self.reason else {})}
        spec = {"nodeName": info.get("node") or None, "containers": containers,
                "hostNetwork": info.get("host_network") == "true", "priorityClassName": info.get("priority_class") or None}
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def _fold(pods: dict[tuple[str, str, str], _Pod], nodes: dict[str, dict], name: str, labels: dict[str, str], values: list) -> None:
    if name.startswith("kube_node"):
        node = nodes.setdefault(labels.get("node", ""), {"taints": {}})
        if name == "kube_node_info":
            node["internal_ip"] = labels.get("internal_ip")
        elif name == "kube_node_status_allocatable" and _GPU_RESOURCES.match(labels.get("resource", "")):
            node["gpu_allocatable"] = int(float(values[-1][1]))
        elif name == "kube_node_spec_taint":
            node["taints"][(labels.get("key"), labels.get("value"), labels.get("effect"))] = True
        elif name == "kube_node_status_condition" and labels.get("condition") == "Ready" and labels.get("status"):
            node.setdefault("ready", {})[labels["status"].lower()] = [(float(t), float(v)) for t, v in values]
        return
    key = (labels.get("namespace", ""), labels.get("pod", ""), labels.get("uid", ""))
    if not all(key):
        return
    pod = pods.setdefault(key, _Pod())
    times = [float(v[0]) for v in values]
    last = float(values[-1][1])
    container = labels.get("container", "")
    if name == "kube_pod_info":
        pod.info = labels
        pod.times.extend(times)
    elif name == "kube_pod_labels":
        pod.labels = {k: v for k, v in labels.items() if k.startswith("label_")}
    elif name == "kube_pod_created":
        pod.created = last
    elif name == "kube_pod_status_phase" and last == 1 and (pod.phase is None or times[-1] >= pod.phase[0]):
        pod.phase = (times[-1], labels.get("phase", ""))
    elif name == "kube_pod_container_status_restarts_total":
        pod.restarts[container].extend((float(t), float(v)) for t, v in values)
    elif name == "kube_pod_container_status_last_terminated_reason" and last == 1:
        pod.last_reason[container] = labels.get("reason", "")
    elif name == "kube_pod_container_status_last_terminated_exitcode":
        pod.last_exit[container] = int(last)
    elif name in _STATES and last == 1 and (container not in pod.state or times[-1] >= pod.state[container][0]):
        pod.state[container] = (times[-1], _STATES[name], labels.get("reason", ""))
    elif name == "kube_pod_container_status_last_terminated_timestamp":
        pod.last_finished[container] = last
    elif name == "kube_pod_status_reason" and last == 1 and pod.reason is None:
        pod.reason = (min(float(t) for t, v in values if float(v) == 1), labels.get("reason", ""))
    elif name == "kube_pod_container_resource_requests" and _GPU_RESOURCES.match(labels.get("resource", "")):
        pod.gpus[container] = int(last)


def _series(body: str | None, url: str | None):
    try:
        doc = json.loads(body or "")
        result = doc["data"]["result"] if doc.get("status") == "success" else []
    except (ValueError, KeyError, TypeError, AttributeError):
        return
    fallback = query_metric(url)
    for s in result if isinstance(result, list) else []:
        labels = {str(k): str(v) for k, v in (s.get("metric") or {}).items()} if isinstance(s, dict) else {}
        name = labels.get("__name__") or fallback
        values = s.get("values") or ([s["value"]] if s.get("value") else [])
        if name and name.startswith("kube_") and values:
            yield name, labels, values


def _ready(series: dict[str, list[tuple[float, float]]] | None) -> dict[str, Any]:
    """ready / ready_reason / ready_changed_at of a node from its Ready condition's series (status -> points)."""
    held = sorted((t, status) for status, points in (series or {}).items() for t, v in points if v == 1)
    if not held:
        return {}
    status = held[-1][1]
    since = held[-1][0]
    for t, st in reversed(held):  # back to the first sample of the last run of that status
        if st != status:
            break
        since = t
    return {"ready": {"true": True, "false": False}.get(status), "ready_changed_at": _ts(since),
            "ready_reason": "NodeStatusUnknown" if status == "unknown" else None}


def derive(ctx: "DeriveContext") -> None:
    table = ctx.raw("scrapes", source=SOURCE)
    if table.num_rows == 0:
        return
    pods: dict[tuple[str, str, str], _Pod] = {}
    nodes: dict[str, dict] = {}
    for row in table.select(["url", "status", "body"]).to_pylist():
        if row.get("status") == 200 and "kube_" in (row.get("url") or ""):
            for name, labels, values in _series(row["body"], row["url"]):
                _fold(pods, nodes, name, labels, values)
    history = ctx.bundle.manifest.get("history") or {}
    end = parse_iso(history.get("end"))
    listed = {r["pod_uid"] for r in ctx.table("pods").select(["pod_uid"]).to_pylist()}
    index = JobIndex.build(ctx)
    pod_rows, container_out = [], []
    for (namespace, name, uid), pod in sorted(pods.items()):
        if uid in listed or not pod.times:
            continue
        body = pod.body(namespace, name, uid, end.timestamp() if end else None)
        obj = Obj(body, _ts(max(pod.times)), "v1", "Pod", namespace, name, uid, -1)
        row = pod_row(ctx, obj, index)
        row.update(first_seen_at=_ts(min(pod.times)), last_seen_at=_ts(max(pod.times)), raw_row=None, evidence=EVIDENCE)
        pod_rows.append(row)
        container_out.extend(container_rows(obj))
    ctx.emit("pods", pod_rows)
    ctx.emit("containers", container_out)
    known = {r["node"] for r in ctx.table("nodes").select(["node"]).to_pylist()}
    ctx.emit("nodes", [{"node": n, "internal_ip": v.get("internal_ip"), "gpu_allocatable": v.get("gpu_allocatable"),
                        "taints": [{"key": k, "value": val or None, "effect": e} for k, val, e in v["taints"]],
                        "evidence": EVIDENCE, **_ready(v.get("ready"))}
                       for n, v in sorted(nodes.items()) if n and n not in known])


__all__ = ["derive"]
