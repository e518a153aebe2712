"""Alertmanager's webhook (JSON version 4) and the manual trigger body, checked and matched.

Nothing from a body is trusted: its size is capped before it is read, its shape is checked
(an object with ``version`` "4" and a list of at most ``MAX_ALERTS`` alerts whose labels are
short strings), and only names that are valid Kubernetes names are kept. A body never
reaches a shell or a path: the incident's folder name is built by the watcher from the
matched job (``incidents.incident_id``), never from the body.

Matching a firing alert to jobs, first that applies:
* a job label (``job_name``, ``pytorchjob``, ``trainjob``, ``jobset``, ``mpijob``,
  ``rayjob``, ``training_job``) with ``namespace``;
* a pod (``pod``, ``exported_pod``, ``pod_name``) with its namespace label: that pod's job;
* a node (``node``, ``kubernetes_node``, ``nodename``, ``Hostname``, ``instance``): the
  jobs of the training pods on that node;
* a GPU (``UUID``, ``uuid``, ``gpu_uuid``) only with one of the above.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

MAX_BODY_BYTES = 1 << 20
MAX_ALERTS = 1000
MAX_LABEL_CHARS = 1024
NAME = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")
LABEL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
JOB_KEYS = ("job_name", "pytorchjob", "trainjob", "jobset", "mpijob", "rayjob", "training_job")
POD_KEYS = (("exported_pod", "exported_namespace"), ("pod", "namespace"), ("pod_name", "pod_namespace"))
NODE_KEYS = ("node", "kubernetes_node", "nodename", "Hostname", "hostname", "instance")


class BadBody(ValueError):
    """The body is not what the endpoint accepts (the message says why, one line)."""


def parse_json(raw: bytes) -> Any:
    if len(raw) > MAX_BODY_BYTES:
        raise BadBody(f"body larger than {MAX_BODY_BYTES} bytes")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadBody("body is not JSON") from None


def _labels(alert: Any, i: int) -> dict[str, str]:
    if not isinstance(alert, dict):
        raise BadBody(f"alerts[{i}] is not an object")
    labels = alert.get("labels")
    if not isinstance(labels, dict):
        raise BadBody(f"alerts[{i}].labels is not an object")
    out = {}
    for key, value in labels.items():
        if not isinstance(key, str) or not LABEL_NAME.fullmatch(key):
            raise BadBody(f"alerts[{i}].labels: invalid label name")
        if not isinstance(value, str) or len(value) > MAX_LABEL_CHARS:
            raise BadBody(f"alerts[{i}].labels.{key}: not a string of at most {MAX_LABEL_CHARS} characters")
        out[key] = value
    return out


def firing_alerts(doc: Any) -> list[dict[str, str]]:
    """Labels of each firing alert of an Alertmanager webhook body (version 4)."""
    if not isinstance(doc, dict):
        raise BadBody("not a JSON object")
    if str(doc.get("version")) != "4":
        raise BadBody("not an Alertmanager webhook body (version 4)")
    alerts = doc.get("alerts")
    if not isinstance(alerts, list) or len(alerts) > MAX_ALERTS:
        raise BadBody(f"alerts must be a list of at most {MAX_ALERTS}")
    out = []
    for i, alert in enumerate(alerts):
        labels = _labels(alert, i)
        status = alert.get("status", doc.get("status"))
        if status == "firing":
            out.append(labels)
    return out


def _name(value: str | None) -> str | None:
    return value if value and NAME.fullmatch(value) else None


def match(labels: dict[str, str], pod_job: Callable[[str, str], str | None],
          node_jobs: Callable[[str], list[str]]) -> list[str]:
    """The jobs (``namespace/name``) an alert is about; [] when none is known."""
    ns = _name(labels.get("namespace") or labels.get("exported_namespace"))
    for key in JOB_KEYS:
        job = _name(labels.get(key))
        if job and ns:
            return [f"{ns}/{job}"]
    for pod_key, ns_key in POD_KEYS:
        pod, pod_ns = _name(labels.get(pod_key)), _name(labels.get(ns_key))
        if pod and pod_ns:
            job = pod_job(pod_ns, pod)
            if job:
                return [job]
    for key in NODE_KEYS:
        node = _name((labels.get(key) or "").split(":")[0]) if key == "instance" else _name(labels.get(key))
        if node:
            jobs = node_jobs(node)
            if jobs:
                return sorted(set(jobs))
    return []


def manual_job(doc: Any) -> str:
    """``{"job": "ns/name"}`` -> ``ns/name`` (both valid Kubernetes names)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("job"), str):
        raise BadBody('expected {"job": "namespace/name"}')
    ns, _, name = doc["job"].partition("/")
    if not (_name(ns) and _name(name)):
        raise BadBody("job must be namespace/name (Kubernetes names)")
    return f"{ns}/{name}"


__all__ = ["BadBody", "MAX_BODY_BYTES", "firing_alerts", "manual_job", "match", "parse_json"]
