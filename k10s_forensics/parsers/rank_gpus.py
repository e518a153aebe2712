"""The GPUs of a rank for ``ranks``: pod incarnation windows, ``NVIDIA_VISIBLE_DEVICES`` run in the pod
(ordered by local rank), dcgm-exporter pod labels (a set: ordered by PCI bus id only when the GPUs are
identical), and the GPU facts (PCI bus id, product) that order them. Nothing is guessed."""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from k10s_forensics.parsers import scratch

if TYPE_CHECKING:  # pragma: no cover
    from k10s_forensics.parsers.context import DeriveContext

_UUID = re.compile(r"^(GPU|MIG)-[0-9A-Za-z][0-9A-Za-z/._-]*$")
_FAR = dt.datetime.max.replace(tzinfo=dt.timezone.utc)
_NEVER = dt.datetime.min.replace(tzinfo=dt.timezone.utc)


def incarnation_windows(pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """[start, end) of every pod incarnation; an open end closes where the next uid of the name starts."""
    by_name: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for p in pods:
        start = p["started_at"] or p["created_at"] or p["first_seen_at"] or _NEVER
        by_name[(p["namespace"], p["pod"])].append({"namespace": p["namespace"], "pod": p["pod"], "pod_uid": p["pod_uid"],
                                                   "node": p["node"], "start": start, "end": p["finished_at"] or p["deleted_at"]})
    out = []
    for items in by_name.values():
        items.sort(key=lambda w: w["start"])
        for i, w in enumerate(items):
            nxt = items[i + 1]["start"] if i + 1 < len(items) else _FAR
            w["end"] = min(w["end"] or _FAR, nxt)
            out.append(w)
    return out


def _match(by_name: dict[tuple[str, str], list[dict[str, Any]]], ns: str, pod: str, node: str | None, at: dt.datetime) -> str | None:
    hits = [w["pod_uid"] for w in by_name.get((ns, pod), []) if w["start"] <= at < w["end"]
            and (node is None or w["node"] is None or w["node"] == node)]
    return hits[0] if len(hits) == 1 else None


def visible_devices(ctx: "DeriveContext", windows: list[dict[str, Any]]) -> dict[str, list[str] | None]:
    """pod_uid -> GPU UUIDs from NVIDIA_VISIBLE_DEVICES in local-rank order (None when runs disagree)."""
    table = ctx.raw("exec", source="visible-devices")
    by_name: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for w in windows:
        by_name[(w["namespace"], w["pod"])].append(w)
    out: dict[str, list[str] | None] = {}
    for r in table.select(["namespace", "pod", "node", "captured_at", "stdout", "exit_code", "error"]).to_pylist():
        if r["error"] or (r["exit_code"] not in (None, 0)) or r["captured_at"] is None:
            continue
        tokens = [t.strip() for t in (r["stdout"] or "").strip().split(",")]
        if not tokens or not all(_UUID.match(t) for t in tokens):
            continue  # all / void / none / empty / indices: the GPUs are not named
        uid = _match(by_name, r["namespace"], r["pod"], r["node"], r["captured_at"])
        if uid is None:
            continue
        out[uid] = tokens if uid not in out or out[uid] == tokens else None
    return out


def dcgm_gpus(ctx: "DeriveContext", windows: list[dict[str, Any]]) -> dict[str, set[str]]:
    """pod_uid -> GPUs dcgm-exporter attributed to the incarnation within its window."""
    path = ctx.table_path("gpu_samples")
    if not path.is_file() or not windows:
        return {}
    win = pa.Table.from_pylist(windows)
    con = scratch.connection()
    con.register("win", win)
    rows = con.sql(
        """SELECT w.pod_uid, list(DISTINCT s.gpu_uuid) AS gpus
           FROM read_parquet($path) s JOIN win w
             ON (s.pod_uid IS NOT NULL AND s.pod_uid = w.pod_uid)
             OR (s.pod_uid IS NULL AND s.namespace = w.namespace AND s.pod = w.pod
                 AND (w.node IS NULL OR s.node = w.node) AND s.ts >= w.start AND s.ts < w."end")
           WHERE s.gpu_uuid IS NOT NULL GROUP BY w.pod_uid""",
        params={"path": str(path)},
    ).fetchall()
    con.close()
    return {uid: set(gpus) for uid, gpus in rows}


def gpu_facts(ctx: "DeriveContext") -> dict[str, dict[str, str | None]]:
    """gpu_uuid -> {pci, product} from the gpus emitted so far and dcgm labels (consistent values only)."""
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: {"pci": set(), "product": set()})
    for g in ctx.table("gpus").select(["gpu_uuid", "pci_bus_id", "product"]).to_pylist():
        if g["gpu_uuid"]:
            _add(seen[g["gpu_uuid"]], g["pci_bus_id"], g["product"])
    path = ctx.table_path("gpu_samples")
    if path.is_file():
        con = scratch.connection()
        q = "SELECT DISTINCT gpu_uuid, pci_bus_id, model_name FROM read_parquet($p) WHERE gpu_uuid IS NOT NULL"
        for uuid, pci, product in con.sql(q, params={"p": str(path)}).fetchall():
            _add(seen[uuid], pci, product)
        con.close()
    return {u: {k: next(iter(v)) if len(v) == 1 else None for k, v in facts.items()} for u, facts in seen.items()}


def _add(facts: dict[str, set[str]], pci: str | None, product: str | None) -> None:
    if pci:
        facts["pci"].add(pci.lower())
    if product:
        facts["product"].add(product.replace("-", " ").strip().lower())


def order_gpus(gpus: set[str], nproc: int, info: dict[str, dict[str, str | None]]) -> list[str] | None:
    """Local rank order of a pod's GPU set, or None when it is not certain."""
    if len(gpus) != nproc:
        return None
    if nproc == 1:
        return list(gpus)
    facts = [info.get(g, {}) for g in gpus]
    if any(not f.get("pci") for f in facts) or len({f.get("product") for f in facts}) != 1:
        return None
    return sorted(gpus, key=lambda g: (info[g]["pci"] or "", g))


def rank_gpus(pod: dict[str, Any], nproc: int, visible: dict[str, list[str] | None], dcgm: dict[str, set[str]],
              info: dict[str, dict[str, str | None]]) -> tuple[list[str] | None, str | None]:
    uid = pod["pod_uid"]
    listed = visible.get(uid)
    if listed and len(listed) == nproc and len(set(listed)) == nproc:
        return listed, "visible-devices"
    dset = dcgm.get(uid)
    if dset and (pod["gpu_request"] in (None, 0) or len(dset) == pod["gpu_request"]):
        ordered = order_gpus(dset, nproc, info)
        if ordered:
            return ordered, "dcgm-pod-label"
    return None, None


__all__ = ["dcgm_gpus", "gpu_facts", "incarnation_windows", "order_gpus", "rank_gpus", "visible_devices"]
