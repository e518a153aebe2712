"""Helpers for the analyze/rules tests: bundles made of hand-built derived tables."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.store.bundle import Bundle, new_manifest, write_json_atomic
from k10s_forensics.store.derived import mark_current
from k10s_forensics.store.tables import TABLE_NAMES, from_rows

T0 = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.timezone.utc)


def at(seconds: float) -> dt.datetime:
    """T0 + seconds."""
    return T0 + dt.timedelta(seconds=seconds)


def table_bundle(path: Path, tables: dict[str, list[dict[str, Any]]], minutes: float = 10, omit: tuple[str, ...] = ()) -> Bundle:
    """A bundle whose tables/ hold ``tables`` (others empty; ``omit`` ones absent); no rebuild needed."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "tables").mkdir(exist_ok=True)
    manifest = new_manifest(window_start=T0, window_end=at(minutes * 60))
    for name in TABLE_NAMES:
        if name in omit:
            continue
        pq.write_table(from_rows(name, tables.get(name, [])), path / "tables" / f"{name}.parquet")
    write_json_atomic(path / "manifest.json", manifest)
    bundle = Bundle.open(path)
    mark_current(bundle)  # hand-built tables count as current: no rebuild replaces them
    return bundle


def gang(job: str = "llama", ns: str = "team-a", pods: int = 4, per_pod: int = 1, kind: str = "PyTorchJob", start: float = -600) -> dict[str, list[dict]]:
    """Pods, ranks, nodes and gpus of a healthy gang (one node per pod)."""
    out: dict[str, list[dict]] = {"pods": [], "ranks": [], "nodes": [], "gpus": [], "jobs": []}
    world = pods * per_pod
    out["jobs"].append({"namespace": ns, "job": job, "kind": kind, "uid": f"uid-{job}", "world_size": world, "state": "Running", "replicas": pods, "nproc_per_node": per_pod})
    for p in range(pods):
        node = f"gpu-node-{p}"
        pod = f"{job}-worker-{p}"
        out["nodes"].append({"node": node, "ready": True, "unschedulable": False, "gpu_product": "NVIDIA H100 80GB HBM3", "gpu_capacity": 8, "gpu_allocatable": 8, "internal_ip": f"10.0.0.{p + 1}", "addresses": [f"10.0.0.{p + 1}", node], "taints": []})
        out["pods"].append({"namespace": ns, "pod": pod, "pod_uid": f"uid-{pod}", "node": node, "phase": "Running", "pod_ip": f"10.1.{p}.5", "pod_ips": [f"10.1.{p}.5"], "created_at": at(start), "started_at": at(start), "gpu_request": per_pod, "job": job, "job_kind": kind, "scheduled": True})
        for lr in range(per_pod):
            uuid = f"GPU-{p:02d}{lr:02d}-0000"
            rank = p * per_pod + lr
            out["gpus"].append({"node": node, "gpu_uuid": uuid, "gpu_index": lr, "pci_bus_id": f"0000:{16 + lr:02x}:00.0", "product": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559})
            out["ranks"].append({"namespace": ns, "job": job, "rank": rank, "node_rank": p, "local_rank": lr, "pod": pod, "pod_uid": f"uid-{pod}", "node": node, "gpu_uuid": uuid, "job_kind": kind, "world_size": world, "nproc_per_node": per_pod, "started_at": at(start)})
    return out


def samples(g: dict[str, list[dict]], minutes: float = 10, interval: float = 10, seed: int = 0, override=None) -> list[dict]:
    """Healthy synchronous-training GPU samples for every rank of ``g``; ``override(rank, t, row)`` edits rows."""
    import random

    rnd = random.Random(seed)
    rows = []
    for r in g["ranks"]:
        for i in range(int(minutes * 60 / interval)):
            t = i * interval
            row = {
                "ts": at(t), "node": r["node"], "gpu_uuid": r["gpu_uuid"], "source": "dcgm-exporter",
                "util_pct": 100.0, "sm_active": 0.62 + rnd.gauss(0, 0.03), "tensor_active": 0.45 + rnd.gauss(0, 0.03),
                "power_w": 520 + rnd.gauss(0, 15), "fb_used_mib": 60000 + rnd.gauss(0, 200), "fb_total_mib": 81559.0,
                "temp_c": 62 + rnd.gauss(0, 2), "sm_clock_mhz": 1980 + rnd.gauss(0, 5), "throttle_reasons": 0, "xid": 0,
                "namespace": r["namespace"], "pod": r["pod"], "power_limit_w": 700.0, "model_name": "NVIDIA H100 80GB HBM3",
            }
            if override:
                override(r["rank"], t, row)
            rows.append(row)
    return rows


def log_row(g: dict[str, list[dict]], who: int, kind: str, t: float, **kw) -> dict[str, Any]:
    """A ``logs`` row of rank ``who`` of gang ``g``: event ``kind`` at ``t`` seconds (``at``), on its pod and node;
    ``kw`` adds or overrides columns."""
    r = next(x for x in g["ranks"] if x["rank"] == who)
    row = {"ts": at(t), "namespace": r["namespace"], "pod": r["pod"], "pod_uid": r["pod_uid"], "container": "pytorch",
           "rank": who, "kind": kind, "line": f"{kind} line", "node": r["node"], "previous": False}
    row.update(kw)
    return row


def assert_planned_light(bundle: Bundle) -> None:
    """``bundle`` is small enough to be planned without DuckDB's optimizer, and ``analyze``'s
    connection to it (``engine.open_tables(light=True)``) has the optimizer off."""
    from k10s_forensics.engine import LIGHT_MAX_ROWS, open_tables

    con, rows = open_tables(bundle, light=True)
    try:
        assert max(rows.values()) <= LIGHT_MAX_ROWS
        assert con.execute("SELECT current_setting('enable_optimizer')").fetchall() == [(False,)]
    finally:
        con.close()


def analyze_tables(tmp_path: Path, tables: dict[str, list[dict[str, Any]]], only=None, name: str = "b", **kw) -> dict:
    """The analysis of a bundle made of ``tables`` (``only``: these rules)."""
    return analyze(table_bundle(tmp_path / name, tables, **kw), only=set(only) if only else None)


def rule_findings(result: dict, rule: str) -> list[dict]:
    """The findings of ``rule`` in an analysis."""
    return [f for f in result["findings"] if f["rule"] == rule]


def prepare_views(bundle: Bundle, *views: str):
    """``prepare`` with only the shared views ``views`` read, and what those read (``analyze.viewplan``): a test of
    one view pays for its dependencies, not for every shared statement (~0.2 CPU s each time). The SQL is the
    product's, whole (no empty shortcuts): the same rows as ``prepare(bundle)``."""
    from k10s_forensics.analyze import viewplan
    from k10s_forensics.analyze.runner import prepare

    con = prepare(bundle, rules=[], gates=False)  # the tables, the prices and viewplan.ALWAYS
    made = viewplan.closure(viewplan.ALWAYS)
    viewplan.create(con, [s for s in viewplan.plan([], views) if s.name not in made])
    return con
