"""The Table printers of ``k10s serve``: per kind, the columns the API server prints (wide ones
priority 1) and the cells of one object; pods, nodes, events, jobs, namespaces, services, Kubeflow
jobs (STATE), and a generic NAME, AGE."""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable

from k10s_forensics.serve.ages import human_duration, since
from k10s_forensics.store.bundle import parse_iso

Cell = Any
Printer = Callable[[dict[str, Any], dt.datetime], list[Cell]]


def _col(name: str, priority: int = 0, fmt: str = "", kind: str = "string") -> dict[str, Any]:
    return {"name": name, "type": kind, "format": fmt, "description": name, "priority": priority}


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _age(obj: dict[str, Any], now: dt.datetime) -> str:
    return since(_meta(obj).get("creationTimestamp"), now)


def _pod_cells(pod: dict[str, Any], now: dt.datetime) -> list[Cell]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    reason = status.get("reason") or status.get("phase") or ""
    restarts, ready, last_restart = 0, 0, None
    initializing = False
    inits = status.get("initContainerStatuses") or []
    for i, c in enumerate(inits):
        restarts += int(c.get("restartCount") or 0)
        state = c.get("state") or {}
        term, wait = state.get("terminated"), state.get("waiting")
        if term and term.get("exitCode") == 0:
            continue
        if term:
            reason = "Init:" + (term.get("reason") or (f"Signal:{term['signal']}" if term.get("signal") else f"ExitCode:{term.get('exitCode')}"))
        elif wait and wait.get("reason") and wait.get("reason") != "PodInitializing":
            reason = "Init:" + wait["reason"]
        elif c.get("started") and c.get("ready"):
            continue  # a running sidecar (restartable init container)
        else:
            reason = f"Init:{i}/{len(spec.get('initContainers') or inits)}"
        initializing = True
        break
    has_running = False
    if not initializing:
        restarts = 0
        for c in reversed(status.get("containerStatuses") or []):
            restarts += int(c.get("restartCount") or 0)
            last_term = (c.get("lastState") or {}).get("terminated") or {}
            finished = parse_iso(last_term.get("finishedAt"))
            if finished and (last_restart is None or finished > last_restart):
                last_restart = finished
            state = c.get("state") or {}
            wait, term = state.get("waiting") or {}, state.get("terminated")
            if wait.get("reason"):
                reason = wait["reason"]
            elif term and term.get("reason"):
                reason = term["reason"]
            elif term:
                reason = f"Signal:{term['signal']}" if term.get("signal") else f"ExitCode:{term.get('exitCode')}"
            elif c.get("ready") and state.get("running") is not None:
                has_running = True
                ready += 1
        if reason == "Completed" and has_running:
            conditions = {x.get("type"): x.get("status") for x in status.get("conditions") or []}
            reason = "Running" if conditions.get("Ready") == "True" else "NotReady"
    if _meta(pod).get("deletionTimestamp"):
        reason = "Unknown" if status.get("reason") == "NodeLost" else (reason if reason in ("Succeeded", "Failed") else "Terminating")
    restarts_text = str(restarts)
    if restarts and last_restart:
        restarts_text = f"{restarts} ({human_duration((now - last_restart).total_seconds())} ago)"
    ips = status.get("podIPs") or []
    ip = (ips[0].get("ip") if ips else None) or status.get("podIP") or "<none>"
    gates = spec.get("readinessGates") or []
    return [
        _meta(pod).get("name"),
        f"{ready}/{len(spec.get('containers') or [])}",
        reason,
        restarts_text,
        _age(pod, now),
        ip,
        spec.get("nodeName") or "<none>",
        status.get("nominatedNodeName") or "<none>",
        f"{len(gates)}" if gates else "<none>",
    ]


def _node_cells(node: dict[str, Any], now: dt.datetime) -> list[Cell]:
    status, meta = node.get("status") or {}, _meta(node)
    conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or []}
    states = ["Unknown"] if "Ready" not in conditions else ["Ready" if conditions["Ready"] == "True" else "NotReady"]
    if (node.get("spec") or {}).get("unschedulable"):
        states.append("SchedulingDisabled")
    labels = meta.get("labels") or {}
    roles = sorted({k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/") and k.split("/", 1)[1]})
    if labels.get("kubernetes.io/role"):
        roles = sorted(set(roles) | {labels["kubernetes.io/role"]})
    addresses = status.get("addresses") or []

    def addr(kind: str) -> str:
        return next((a.get("address") for a in addresses if a.get("type") == kind and a.get("address")), "<none>")

    info = status.get("nodeInfo") or {}
    return [
        meta.get("name"),
        ",".join(states),
        ",".join(roles) or "<none>",
        _age(node, now),
        info.get("kubeletVersion") or "",
        addr("InternalIP"),
        addr("ExternalIP"),
        info.get("osImage") or "<unknown>",
        info.get("kernelVersion") or "<unknown>",
        info.get("containerRuntimeVersion") or "<unknown>",
    ]


def _event_cells(ev: dict[str, Any], now: dt.datetime) -> list[Cell]:
    series = ev.get("series") or {}
    first = ev.get("firstTimestamp") or ev.get("eventTime")
    last = series.get("lastObservedTime") or ev.get("lastTimestamp") or ev.get("eventTime") or first
    count = series.get("count") or ev.get("count") or 1
    involved = ev.get("involvedObject") or ev.get("regarding") or {}
    source = ev.get("source") or {}
    component = source.get("component") or ev.get("reportingComponent") or ev.get("reportingController") or ""
    host = source.get("host") or ev.get("reportingInstance") or ""
    return [
        since(last, now),
        ev.get("type") or "",
        ev.get("reason") or "",
        f"{(involved.get('kind') or '').lower()}/{involved.get('name') or ''}",
        involved.get("fieldPath") or "",
        f"{component}, {host}" if host else component,
        (ev.get("message") or ev.get("note") or "").strip(),
        since(first, now) if first else "<unknown>",
        str(count),
        _meta(ev).get("name"),
    ]


def _job_cells(job: dict[str, Any], now: dt.datetime) -> list[Cell]:
    spec, status = job.get("spec") or {}, job.get("status") or {}
    conds = {c.get("type") for c in status.get("conditions") or [] if c.get("status") == "True"}
    order = [("Complete", "Complete"), ("Failed", "Failed"), ("Suspended", "Suspended"), ("FailureTarget", "FailureTarget"), ("SuccessCriteriaMet", "SuccessCriteriaMet")]
    state = "Terminating" if _meta(job).get("deletionTimestamp") and not conds & {"Complete", "Failed"} else "Running"
    for cond, label in order:
        if cond in conds:
            state = label
            break
    succeeded = int(status.get("succeeded") or 0)
    if spec.get("completions") is not None:
        completions = f"{succeeded}/{spec['completions']}"
    elif int(spec.get("parallelism") or 1) > 1:
        completions = f"{succeeded}/1 of {spec['parallelism']}"
    else:
        completions = f"{succeeded}/1"
    start, end = parse_iso(status.get("startTime")), parse_iso(status.get("completionTime"))
    duration = human_duration(((end or now) - start).total_seconds()) if start else ""
    containers = ((spec.get("template") or {}).get("spec") or {}).get("containers") or []
    selector = (spec.get("selector") or {}).get("matchLabels") or {}
    return [
        _meta(job).get("name"),
        state,
        completions,
        duration,
        _age(job, now),
        ",".join(c.get("name", "") for c in containers),
        ",".join(c.get("image", "") for c in containers),
        ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or "<none>",
    ]


def _namespace_cells(ns: dict[str, Any], now: dt.datetime) -> list[Cell]:
    return [_meta(ns).get("name"), (ns.get("status") or {}).get("phase") or "Active", _age(ns, now)]


def _service_cells(svc: dict[str, Any], now: dt.datetime) -> list[Cell]:
    spec = svc.get("spec") or {}
    ingress = ((svc.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []
    external = ",".join(i.get("ip") or i.get("hostname") or "" for i in ingress) or ",".join(spec.get("externalIPs") or []) or "<none>"
    ports = ",".join(
        f"{p.get('port')}{':' + str(p['nodePort']) if p.get('nodePort') else ''}/{p.get('protocol', 'TCP')}" for p in spec.get("ports") or []
    )
    selector = spec.get("selector") or {}
    return [
        _meta(svc).get("name"),
        spec.get("type") or "ClusterIP",
        spec.get("clusterIP") or "<none>",
        external,
        ports or "<none>",
        _age(svc, now),
        ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or "<none>",
    ]


def _last_condition_type(obj: dict[str, Any]) -> str:
    conds = (obj.get("status") or {}).get("conditions") or []
    return (conds[-1].get("type") or "") if conds else ""


def _kubeflow_cells(obj: dict[str, Any], now: dt.datetime) -> list[Cell]:
    return [_meta(obj).get("name"), _last_condition_type(obj), _age(obj, now)]


def _generic_cells(obj: dict[str, Any], now: dt.datetime) -> list[Cell]:
    return [_meta(obj).get("name"), _age(obj, now)]


_NAME = _col("Name", fmt="name")
PRINTERS: dict[str, tuple[list[dict[str, Any]], Printer]] = {
    "Pod": (
        [_NAME, _col("Ready"), _col("Status"), _col("Restarts"), _col("Age"), _col("IP", 1), _col("Node", 1),
         _col("Nominated Node", 1), _col("Readiness Gates", 1)],
        _pod_cells,
    ),
    "Node": (
        [_NAME, _col("Status"), _col("Roles"), _col("Age"), _col("Version"), _col("Internal-IP", 1), _col("External-IP", 1),
         _col("OS-Image", 1), _col("Kernel-Version", 1), _col("Container-Runtime", 1)],
        _node_cells,
    ),
    "Event": (
        [_col("Last Seen"), _col("Type"), _col("Reason"), _col("Object"), _col("Subobject", 1), _col("Source", 1),
         _col("Message"), _col("First Seen", 1), _col("Count", 1), _col("Name", 1)],
        _event_cells,
    ),
    "Job": (
        [_NAME, _col("Status"), _col("Completions"), _col("Duration"), _col("Age"), _col("Containers", 1), _col("Images", 1),
         _col("Selector", 1)],
        _job_cells,
    ),
    "Namespace": ([_NAME, _col("Status"), _col("Age")], _namespace_cells),
    "Service": (
        [_NAME, _col("Type"), _col("Cluster-IP"), _col("External-IP"), _col("Port(s)"), _col("Age"), _col("Selector", 1)],
        _service_cells,
    ),
}
for _kind in ("PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob"):
    PRINTERS[_kind] = ([_NAME, _col("State"), _col("Age")], _kubeflow_cells)
GENERIC: tuple[list[dict[str, Any]], Printer] = ([_NAME, _col("Age")], _generic_cells)


__all__ = ["GENERIC", "PRINTERS", "Cell", "Printer"]
