"""Helpers shared by the Kubernetes-object parsers (objects, labels, conditions, GPUs, owners).

Every Kubernetes parser reads ``raw/objects.parquet`` through :func:`iter_objects`, which
parses each JSON body once, records what it cannot read as a counted issue
(``objects:<Kind>``) and yields :class:`Obj` records carrying the raw row index so a
derived row can always point back to its evidence.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from k10s_forensics.store.bundle import parse_iso
from k10s_forensics.parsers.common import quantity

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

RAW_FILE = "raw/objects.parquet"

#: Kinds of training jobs (and their controllers' parents) that own pods.
KUBEFLOW_KINDS = ("PyTorchJob", "MPIJob", "TFJob", "JAXJob", "PaddleJob", "XGBoostJob", "MXNetJob")
JOB_KINDS = KUBEFLOW_KINDS + ("TrainJob", "JobSet", "Job", "RayJob", "RayCluster", "RayService", "LeaderWorkerSet")

_GPU_RESOURCE = re.compile(r"^nvidia\.com/(gpu|gpu\.shared|mig-[^/]+)$")


@dataclass
class Obj:
    """One parsed object of one listing."""

    body: dict[str, Any]
    captured_at: dt.datetime | None
    api_version: str | None
    kind: str
    namespace: str | None
    name: str
    uid: str | None
    row: int

    @property
    def meta(self) -> dict[str, Any]:
        return as_dict(self.body.get("metadata"))

    @property
    def spec(self) -> dict[str, Any]:
        return as_dict(self.body.get("spec"))

    @property
    def status(self) -> dict[str, Any]:
        return as_dict(self.body.get("status"))


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def iter_objects(ctx: "DeriveContext", kind: str, api_versions: Iterable[str] | None = None, *,
                 count_issues: bool = True) -> Iterator[Obj]:
    """Parse every raw object of ``kind`` (optionally only some api_versions).

    Unreadable bodies are counted as issues under ``objects:<kind>`` and skipped (by one
    parser of the kind: a second reader passes ``count_issues=False``, so a bad row counts
    once); the metadata fields fall back to the raw columns when the body lacks them.
    """
    issue = ctx.issue if count_issues else (lambda *args: None)
    table = ctx.raw("objects", kind=kind)
    if table.num_rows == 0:
        return
    wanted = set(api_versions) if api_versions is not None else None
    source = f"objects:{kind}"
    cols = {name: table.column(name).to_pylist() for name in ("captured_at", "api_version", "namespace", "name", "uid", "body", "_row")}
    for i in range(table.num_rows):
        api_version = cols["api_version"][i]
        body_version = None
        row = cols["_row"][i]
        text = cols["body"][i]
        if text is None or not str(text).strip():
            issue(source, "empty body", None, RAW_FILE, row)
            continue
        try:
            body = json.loads(text)
        except (ValueError, RecursionError) as exc:
            issue(source, "unparseable JSON body", f"{exc.__class__.__name__}: {exc}; {str(text)[:80]!r}", RAW_FILE, row)
            continue
        if not isinstance(body, dict):
            issue(source, "body is not a JSON object", str(text)[:80], RAW_FILE, row)
            continue
        body_version = body.get("apiVersion") if isinstance(body.get("apiVersion"), str) else None
        api_version = api_version or body_version
        if wanted is not None and api_version not in wanted:
            continue
        meta = as_dict(body.get("metadata"))
        name = text_or_none(meta.get("name")) or cols["name"][i]
        if not name:
            issue(source, "missing metadata.name", str(text)[:80], RAW_FILE, row)
            continue
        namespace = text_or_none(meta.get("namespace")) or cols["namespace"][i] or None
        uid = text_or_none(meta.get("uid")) or cols["uid"][i] or None
        yield Obj(body, cols["captured_at"][i], api_version, kind, namespace, name, uid, row)


def latest(objs: Iterable[Obj]) -> Obj:
    """The object of the last listing (ties: the later raw row)."""
    epoch = dt.datetime.min.replace(tzinfo=dt.timezone.utc)
    return max(objs, key=lambda o: (o.captured_at or epoch, o.row))


def text_or_none(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value if value != "" else None
    if isinstance(value, (int, float, bool)):
        return str(value)
    return None


def ts(value: Any) -> dt.datetime | None:
    """RFC 3339 text (or an already parsed datetime) -> aware UTC datetime; None otherwise."""
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    if isinstance(value, str):
        return parse_iso(value)
    return None


def to_int(value: Any) -> int | None:
    """An integer from JSON numbers or numeric text; None for anything else (bools too)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
        return int(value)
    return None


def labels(body: dict[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in as_dict(as_dict(body.get("metadata")).get("labels")).items() if v is not None}


def annotations(body: dict[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in as_dict(as_dict(body.get("metadata")).get("annotations")).items() if v is not None}


def first(mapping: dict[str, str], *keys: str) -> str | None:
    """The first non-empty value among ``keys``."""
    for key in keys:
        value = mapping.get(key)
        if value not in (None, ""):
            return value
    return None


def json_text(value: Any) -> str | None:
    return None if value in (None, {}, []) else json.dumps(value, sort_keys=True, default=str)


# ---- conditions -----------------------------------------------------------------------
def conditions(status: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in as_list(status.get("conditions")) if isinstance(c, dict) and isinstance(c.get("type"), str)]


def condition(status: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    """The condition of ``ctype`` (case-insensitive); the latest when listed twice."""
    found = [c for c in conditions(status) if c["type"].lower() == ctype.lower()]
    return found[-1] if found else None


def condition_true(status: dict[str, Any], ctype: str) -> bool | None:
    """True/False from the condition's status; None when the condition is absent or Unknown."""
    cond = condition(status, ctype)
    if cond is None:
        return None
    value = str(cond.get("status", "")).lower()
    return True if value == "true" else False if value == "false" else None


def cond_time(cond: dict[str, Any] | None) -> dt.datetime | None:
    if not cond:
        return None
    return ts(cond.get("lastTransitionTime")) or ts(cond.get("lastUpdateTime")) or ts(cond.get("lastProbeTime"))


# ---- resources ------------------------------------------------------------------------
def is_gpu_resource(name: str) -> bool:
    """``nvidia.com/gpu``, ``nvidia.com/gpu.shared`` (time-slicing) or a MIG resource."""
    return bool(_GPU_RESOURCE.match(name))


def gpu_amount(resources: dict[str, Any] | None) -> int | None:
    """Sum of GPU resources in a resource map; None when the map is absent."""
    if not isinstance(resources, dict):
        return None
    total = 0.0
    for key, value in resources.items():
        if is_gpu_resource(str(key)):
            total += quantity(value) or 0.0
    return int(total)


def container_gpu_request(container: dict[str, Any]) -> int:
    """GPUs one container asks for: requests, else limits (extended resources default to limits)."""
    res = as_dict(container.get("resources"))
    requests, limits = as_dict(res.get("requests")), as_dict(res.get("limits"))
    keys = {k for k in list(requests) + list(limits) if is_gpu_resource(str(k))}
    total = 0.0
    for key in keys:
        value = requests.get(key) if requests.get(key) is not None else limits.get(key)
        total += quantity(value) or 0.0
    return int(total)


def pod_gpu_request(spec: dict[str, Any]) -> int:
    """Effective pod GPU request as the scheduler computes it (sidecar init containers included).

    max(max over init containers of (its request + sidecars started before it),
        sum of app containers + all sidecars).
    """
    sidecars = 0
    init_peak = 0
    for c in as_list(spec.get("initContainers")):
        if not isinstance(c, dict):
            continue
        req = container_gpu_request(c)
        if c.get("restartPolicy") == "Always":
            sidecars += req
            init_peak = max(init_peak, sidecars)
        else:
            init_peak = max(init_peak, sidecars + req)
    apps = sum(container_gpu_request(c) for c in as_list(spec.get("containers")) if isinstance(c, dict))
    return max(init_peak, apps + sidecars)


# ---- owners and jobs ------------------------------------------------------------------
def controller_owner(meta: dict[str, Any]) -> tuple[str | None, str | None]:
    """(kind, name) of the controlling owner reference, else of the first one."""
    owners = [o for o in as_list(meta.get("ownerReferences")) if isinstance(o, dict)]
    chosen = next((o for o in owners if o.get("controller") is True), owners[0] if owners else None)
    if not chosen:
        return None, None
    return text_or_none(chosen.get("kind")), text_or_none(chosen.get("name"))


__all__ = [
    "Obj", "iter_objects", "latest", "ts", "to_int", "labels", "annotations", "first", "json_text",
    "conditions", "condition", "condition_true", "cond_time", "is_gpu_resource", "gpu_amount",
    "container_gpu_request", "pod_gpu_request", "controller_owner",
    "as_dict", "as_list", "text_or_none", "KUBEFLOW_KINDS", "JOB_KINDS", "RAW_FILE",
]
