"""Builders of Kubernetes objects and raw bundles for the k8s parser tests."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from k10s_forensics.store.bundle import Bundle, new_manifest, write_json_atomic, write_raw_table
from k10s_forensics.parsers import ParseIssues
from k10s_forensics.rebuild.run import DeriveContext

T0 = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.timezone.utc)


def at(minutes: float) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def iso(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def jsonable(value: Any) -> Any:
    """YAML-loaded data with datetimes turned into RFC 3339 text (as the API serves JSON)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.timezone.utc)
        return iso(value)
    return value


def obj_row(body: dict[str, Any] | str | bytes, captured_at: dt.datetime = T0, **override: Any) -> dict[str, Any]:
    """A raw/objects row for ``body`` (a dict is dumped to JSON; text/bytes are kept verbatim)."""
    meta = body.get("metadata", {}) if isinstance(body, dict) else {}
    row = {
        "captured_at": captured_at,
        "api_version": body.get("apiVersion") if isinstance(body, dict) else None,
        "kind": body.get("kind") if isinstance(body, dict) else None,
        "namespace": meta.get("namespace"),
        "name": meta.get("name"),
        "uid": meta.get("uid"),
        "body": json.dumps(body) if isinstance(body, dict) else body,
    }
    row.update(override)
    return row


def make_bundle(path: Path, objects: list[dict[str, Any]], exec_rows: list[dict[str, Any]] | None = None) -> Bundle:
    path.mkdir(parents=True, exist_ok=True)
    write_json_atomic(path / "manifest.json", new_manifest(window_start=at(0), window_end=at(60)))
    write_raw_table(path, "objects", objects)
    if exec_rows:
        write_raw_table(path, "exec", exec_rows)
    return Bundle.open(path)


def context(bundle: Bundle, out: Path) -> DeriveContext:
    out.mkdir(parents=True, exist_ok=True)
    return DeriveContext(bundle, out, ParseIssues())


def meta(name: str, namespace: str | None = "team-a", uid: str | None = None, **extra: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"name": name, "uid": uid or f"uid-{name}", "creationTimestamp": iso(T0)}
    if namespace is not None:
        m["namespace"] = namespace
    m.update(extra)
    return m


def container(name: str = "pytorch", gpus: int = 0, env: dict[str, Any] | None = None, limits_only: bool = False, **extra: Any) -> dict[str, Any]:
    res: dict[str, Any] = {}
    if gpus:
        res = {"limits": {"nvidia.com/gpu": str(gpus)}} if limits_only else {"requests": {"nvidia.com/gpu": gpus}, "limits": {"nvidia.com/gpu": gpus}}
    env_list = []
    for k, v in (env or {}).items():
        env_list.append({"name": k, "valueFrom": {"fieldRef": {"fieldPath": v["fieldRef"]}}} if isinstance(v, dict) else {"name": k, "value": str(v)})
    c = {"name": name, "image": "nvcr.io/nvidia/pytorch:24.05", "resources": res, "env": env_list}
    c.update(extra)
    return c


def running_status(names: list[str], started: dt.datetime, pod_ip: str = "10.1.0.5", restarts: int = 0) -> dict[str, Any]:
    return {
        "phase": "Running",
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "hostIP": "10.0.0.1",
        "startTime": iso(started),
        "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}],
        "containerStatuses": [
            {"name": n, "ready": True, "restartCount": restarts, "image": "img", "state": {"running": {"startedAt": iso(started)}}}
            for n in names
        ],
    }


def pod(name: str, *, labels: dict[str, str] | None = None, containers: list[dict[str, Any]] | None = None, node: str | None = "gpu-node-1",
        uid: str | None = None, status: dict[str, Any] | None = None, owner: tuple[str, str] | None = None,
        annotations: dict[str, str] | None = None, namespace: str = "team-a", started: dt.datetime = T0, **spec_extra: Any) -> dict[str, Any]:
    containers = containers if containers is not None else [container()]
    m = meta(name, namespace, uid, labels=labels or {})
    if annotations:
        m["annotations"] = annotations
    if owner:
        m["ownerReferences"] = [{"apiVersion": "v1", "kind": owner[0], "name": owner[1], "uid": f"uid-{owner[1]}", "controller": True}]
    spec = {"containers": containers, **spec_extra}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": m, "spec": spec,
            "status": status if status is not None else running_status([c["name"] for c in containers], started)}


def pytorch_labels(job: str, rtype: str, idx: int) -> dict[str, str]:
    lab = {
        "training.kubeflow.org/job-name": job,
        "training.kubeflow.org/operator-name": "pytorchjob-controller",
        "training.kubeflow.org/replica-type": rtype,
        "training.kubeflow.org/replica-index": str(idx),
    }
    if rtype == "master":
        lab["training.kubeflow.org/job-role"] = "master"
    return lab


def pytorchjob(name: str, workers: int, gpus: int, nproc: Any = None, master: bool = True, env_nproc: Any = None) -> dict[str, Any]:
    def spec(replicas: int) -> dict[str, Any]:
        env = {"PET_NPROC_PER_NODE": env_nproc} if env_nproc is not None else None
        return {"replicas": replicas, "restartPolicy": "OnFailure", "template": {"spec": {"containers": [container(gpus=gpus, env=env)]}}}

    specs = {"Worker": spec(workers)}
    if master:
        specs["Master"] = spec(1)
    body: dict[str, Any] = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": meta(name, labels={"kueue.x-k8s.io/queue-name": "lq"}),
                            "spec": {"pytorchReplicaSpecs": specs, "runPolicy": {"backoffLimit": 3}},
                            "status": {"conditions": [{"type": "Created", "status": "True"}, {"type": "Running", "status": "True", "message": "running"}],
                                       "startTime": iso(T0)}}
    if nproc is not None:
        body["spec"]["nprocPerNode"] = nproc
    return body
