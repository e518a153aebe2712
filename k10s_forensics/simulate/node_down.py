"""A node that died whole (``Sim.down``): what the API server and capture see of it afterwards.

The kubelet stops posting the node's status; after the node controller's grace period (``GRACE``) the Ready
condition turns ``Unknown`` (``NodeStatusUnknown``), the node gets the ``unreachable`` taints and the pods on it turn
not Ready, their containers still ``running`` as last reported (nobody can say otherwise). Everything capture asks of
the node itself — its pods' logs, an exec, a scrape of its exporter — times out dialling it.
"""

from __future__ import annotations

import datetime as dt

from k10s_forensics.store.bundle import iso

#: the node controller's node-monitor-grace-period (Kubernetes' default)
GRACE = dt.timedelta(seconds=40)


def stopped(sim, node: str, t: dt.datetime) -> bool:
    """The node had died by ``t`` (nothing on it answers)."""
    at = sim.down.get(node)
    return at is not None and at <= t


def marked(sim, node: str, t: dt.datetime) -> tuple[dt.datetime, dt.datetime] | None:
    """(last heartbeat, when the node controller marked it Unknown) once that has happened by ``t``, else None."""
    at = sim.down.get(node)
    return (at, at + GRACE) if at is not None and at + GRACE <= t else None


def pod_not_ready(body: dict, since: dt.datetime) -> dict:
    """A pod body as the node controller leaves it on an unreachable node: Ready False, all else as last reported."""
    for cond in body["status"].get("conditions", []):
        if cond["type"] == "Ready":
            cond.update(status="False", lastTransitionTime=iso(since))
    for status in body["status"].get("containerStatuses", []):
        status["ready"] = False
    return body


def dial_error(ip: str, port: int = 10250) -> str:
    return f"dial tcp {ip}:{port}: i/o timeout"


def logs_error(ip: str, ns: str, pod: str, container: str) -> str:
    """What ``kubectl logs`` (the API server proxying to the kubelet) answers for a pod on a dead node."""
    return f'Get "https://{ip}:10250/containerLogs/{ns}/{pod}/{container}": {dial_error(ip)}'


def exec_error(ip: str) -> str:
    return f"error dialing backend: {dial_error(ip)}"


def dead_exec(
    ts: dt.datetime, node, source: str, ns: str, pod: str, container: str, command: str
) -> dict:
    """The raw/exec row of an exec into a container on a dead node (capture's 30 s dial time-out)."""
    return {
        "captured_at": ts,
        "duration_ms": 30000,
        "source": source,
        "node": node.name,
        "namespace": ns,
        "pod": pod,
        "container": container,
        "command": command,
        "exit_code": None,
        "stdout": "",
        "stderr": "",
        "error": exec_error(node.ip),
    }
