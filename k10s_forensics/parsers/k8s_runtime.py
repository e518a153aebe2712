"""``runtime_classes`` and ``pod_runtime``: what a GPU pod needs from its node to start.

``runtime_classes``: one row per RuntimeClass (node.k8s.io/v1, last listing): its handler
(``nvidia``, ``nvidia-cdi``, ``runc``). ``pod_runtime``: one row per pod uid (last listing)
with the RuntimeClass it asks for and its ``/dev/shm``: the volume mounted there (an
``emptyDir`` with ``medium: Memory`` and its ``sizeLimit``, a hostPath, ...) in any app
container. Without a mount the container runtime gives 64 MiB (Docker/containerd default).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from k10s_forensics.parsers.common import quantity
from k10s_forensics.parsers.k8s_common import Obj, as_dict, as_list, iter_objects, json_text, text_or_none

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

SHM_PATH = "/dev/shm"
_EPOCH = dt.datetime.min.replace(tzinfo=dt.timezone.utc)


#: Set by ``k10s import-logs`` on the pods it makes up from logs: their spec says nothing of the real pod.
IMPORTED_ANNOTATION = "k10s.io/imported"
#: Set by ``k10s import-logs`` when neither an option nor the log said how many processes a node ran: the one
#: process per node it then assumes gives each pod a rank the log never named (``ranks.rank_source`` = ``assumed``).
LAYOUT_LABEL, ASSUMED = "k10s.io/imported-layout", "assumed"
#: Set (on ``LAYOUT_LABEL``) by ``k10s import-logs`` on a node whose first global rank its log contradicts while the process
#: counts of the nodes below it are unknown (``parsers/log_node_nproc.py``): its local ranks name no global rank.
BASE_UNKNOWN = "node-base-unknown"
#: Set by ``k10s import-logs`` on the pods it makes from a paste whose line order nothing proves (times or tracebacks
#: running both ways, ``log_newest_first.order_unknown``): no first failure is read from its lines' order.
ORDER_LABEL, ORDER_UNKNOWN = "k10s.io/imported-order", "unknown"
#: Set by ``k10s import-logs`` on each pod made from a file of its own when several were given (the file's position):
#: lines of two such files have no order between them but their clocks (docs/rules.md, "Session 69: failures with no
#: clock between files"); one file routed or split to several pods has its pods unlabelled (one file's order).
FILE_LABEL = "k10s.io/imported-file"
#: Set by ``k10s import-logs`` on its pods when nothing stated how many processes a node ran (``parsers/log_nproc_guess.py``):
#: the count was built from the ranks the log names, so its highest rank seen is a node's last local rank by construction.
NPROC_LABEL, NPROC_GUESSED = "k10s.io/imported-nproc", "guessed"


def derive(ctx: "DeriveContext") -> None:
    classes: dict[str, Obj] = {}
    for obj in iter_objects(ctx, "RuntimeClass"):
        old = classes.get(obj.name)
        if old is None or _order(obj) >= _order(old):
            classes[obj.name] = obj
    ctx.emit("runtime_classes", [runtime_class_row(o) for _, o in sorted(classes.items())])
    pods: dict[str, Obj] = {}
    for obj in iter_objects(ctx, "Pod", count_issues=False):  # k8s_pods counts the unreadable ones
        if not obj.uid:
            continue
        old = pods.get(obj.uid)
        if old is None or _order(obj) >= _order(old):
            pods[obj.uid] = obj
    rows = [pod_runtime_row(o) for o in pods.values()]
    ctx.emit("pod_runtime", sorted(rows, key=lambda r: (r["namespace"] or "", r["pod"] or "", r["pod_uid"])))


def _order(obj: Obj) -> tuple:
    return (obj.captured_at or _EPOCH, obj.row)


def runtime_class_row(obj: Obj) -> dict[str, Any]:
    body = obj.body
    scheduling = as_dict(body.get("scheduling"))
    return {
        "runtime_class": obj.name,
        "handler": text_or_none(body.get("handler")),
        "node_selector_json": json_text(scheduling.get("nodeSelector")) if scheduling.get("nodeSelector") else None,
        "captured_at": obj.captured_at,
    }


def shm_volume(spec: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """(volume name, volume) mounted at /dev/shm in an app container, else (None, None)."""
    for container in as_list(spec.get("containers")):
        for mount in as_list(as_dict(container).get("volumeMounts")):
            mount = as_dict(mount)
            if str(mount.get("mountPath") or "").rstrip("/") == SHM_PATH:
                name = text_or_none(mount.get("name"))
                for vol in as_list(spec.get("volumes")):
                    if as_dict(vol).get("name") == name:
                        return name, as_dict(vol)
                return name, {}
    return None, None


def pod_runtime_row(obj: Obj) -> dict[str, Any]:
    spec = obj.spec
    name, vol = shm_volume(spec)
    kind = medium = None
    size = None
    if vol is not None:
        kinds = [k for k in vol if k != "name"]
        kind = kinds[0] if kinds else None
        if kind == "emptyDir":
            empty = as_dict(vol.get("emptyDir"))
            medium = text_or_none(empty.get("medium")) or ""
            limit = quantity(empty.get("sizeLimit"))
            size = int(limit) if limit is not None else None
    return {
        "namespace": obj.namespace,
        "pod": obj.name,
        "pod_uid": obj.uid,
        "runtime_class": text_or_none(spec.get("runtimeClassName")),
        "shm_volume": name,
        "shm_volume_kind": kind,
        "shm_medium": medium,
        "shm_size_limit_bytes": size,
        "gpu_resources": _gpu_resources(spec),
        "images": sorted({str(as_dict(c).get("image")) for c in as_list(spec.get("containers")) if as_dict(c).get("image")}),
        "spec_known": as_dict(as_dict(obj.meta).get("annotations")).get(IMPORTED_ANNOTATION) != "true",
    }


def _gpu_resources(spec: dict[str, Any]) -> list[str]:
    names: set[str] = set()
    for c in as_list(spec.get("containers")) + as_list(spec.get("initContainers")):
        res = as_dict(as_dict(c).get("resources"))
        for part in (as_dict(res.get("limits")), as_dict(res.get("requests"))):
            names.update(k for k in part if str(k).startswith("nvidia.com/"))
    return sorted(names)
