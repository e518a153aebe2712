"""Write a simulated fleet's index rows straight into a FLEET folder (no bundles).

The rows are those ``fleet.extract`` makes from a bundle, built from the plan instead of
from raw evidence, and written through the same ``FleetStore.write_batch``: this is how
the benchmarks reach 10,000 bundles on a small machine (see BENCHMARKS.md for what that
does and does not measure).
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable

from k10s_forensics.analyze.prices import PriceTable
from k10s_forensics.store.bundle import utcnow
from k10s_forensics.fleet.extract import epoch_s, month_of
from k10s_forensics.fleet.store import FleetStore
from k10s_forensics.simulate.fleet import FleetPlan, SimBundle

XID_ACTIONS = {48: ("Uncorrectable double-bit ECC error", "reset-gpu", True), 79: ("GPU has fallen off the bus (PCIe link lost)", "reboot-node", True),
               94: ("Contained ECC error", "restart-app", False), 119: ("GSP firmware RPC timeout", "reset-gpu", True),
               13: ("Graphics engine exception", "restart-app", False), 31: ("GPU memory page fault", "restart-app", False),
               43: ("GPU stopped processing", "none", False)}


#: Columns an incident row takes from its only finding.
INCIDENT_COPY = ("bundle_id", "cluster_name", "rule", "severity", "cause", "title", "job", "namespace", "incident_at", "incident_epoch_s",
                 "incident_month", "gpu_hours_lost", "usd_per_gpu_hour", "cost_usd", "culprit_ranks", "culprit_pods", "culprit_nodes", "culprit_node_unknown",
                 "culprit_confidence", "culprit_gpus", "source_path")


def bundle_rows(plan: FleetPlan, index: int, b: SimBundle, prices: PriceTable) -> dict[str, list[dict[str, Any]]]:
    bid = hashlib.sha256(f"sim-fleet:{plan.seed}:{index}".encode()).hexdigest()
    base = {"bundle_id": bid, "cluster_name": b.cluster}
    out: dict[str, list[dict[str, Any]]] = {"nodes": [], "gpus": [], "findings": [], "incidents": [], "culprits": [], "health_events": []}
    where: dict[str, tuple[str, str]] = {}
    for n in b.nodes:
        name = n.name_at(b.start)
        out["nodes"].append({**base, "node": name, "node_key": n.key, "system_uuid": n.system_uuid, "machine_id": n.machine_id,
                             "instance_type": "p5.48xlarge", "gpu_product": n.product, "kubelet_version": "v1.31.2", "ready": True})
        for g in b.layout[n.key]:
            where[g.uuid] = (name, n.key)
            out["gpus"].append({**base, "seen_at": b.start, "seen_epoch_s": epoch_s(b.start), "node": name, "node_key": n.key,
                                "gpu_uuid": g.uuid, "gpu_serial": g.serial if b.has_serials else None, "pci_bus_id": f"0000:{g.bus}:00.0",
                                "product": n.product, "driver_version": n.driver, "vbios_version": "96.00.89.00.01",
                                "ecc_dbe_volatile": 0, "remapped_rows_uncorrectable": 0})
    for i, f in enumerate(b.findings):
        fid = f"{bid}:{i}"
        node_name = f.node.name_at(b.start) if f.node else None
        hours = f.gpu_hours_lost
        price = prices.price(f.node.product if f.node else b.nodes[0].product)
        ns = b.namespace
        out["findings"].append({**base, "finding_id": fid, "rule": f.rule, "severity": f.severity, "cause": f.cause, "title": f"{f.rule} {f.cause}",
                                "job": f"{ns}/train-{index}", "namespace": ns, "incident_at": f.at, "incident_epoch_s": epoch_s(f.at),
                                "incident_month": month_of(f.at), "gpu_hours_lost": hours, "usd_per_gpu_hour": price,
                                "cost_usd": None if hours is None else round(hours * price, 2), "culprit_ranks": "",
                                "culprit_pods": "", "culprit_nodes": node_name or "", "culprit_node_unknown": None, "culprit_confidence": None, "culprit_gpus": f.gpu.uuid if f.gpu else "", "recommendation": "",
                                "source_path": f"simulated://{plan.seed}/{index}"})
        row = out["findings"][-1]  # the plan draws independent incidents: one finding each
        out["incidents"].append({**{k: row[k] for k in INCIDENT_COPY}, "incident_id": f"{bid}:inc-{i + 1}", "findings": 1,
                                 "finding_ids": fid, "symptom_rules": ""})
        common = {**base, "finding_id": fid, "rule": f.rule, "cause": f.cause, "severity": f.severity, "namespace": ns,
                  "incident_at": f.at, "incident_epoch_s": epoch_s(f.at)}
        if f.gpu:
            gnode, gkey = where.get(f.gpu.uuid, (node_name, f.node.key if f.node else None))
            out["culprits"].append({**common, "culprit_kind": "gpu", "node": gnode, "node_key": gkey, "gpu_uuid": f.gpu.uuid,
                                    "gpu_serial": f.gpu.serial if b.has_serials else None})
        if f.node:
            out["culprits"].append({**common, "culprit_kind": "node", "node": node_name, "node_key": f.node.key, "gpu_uuid": None, "gpu_serial": None})
        if f.xid:
            out["health_events"].append(_xid(base, f.at, f.xid, node_name, f.node.key, f.gpu, b.has_serials))
    for node, gpu, code, at in b.app_xids:
        out["health_events"].append(_xid(base, at, code, node.name_at(b.start), node.key, gpu, b.has_serials))
    out["bundles"] = [{**base, "window_month": month_of(b.start), "window_start": b.start, "window_end": b.end,
                       "window_start_epoch_s": epoch_s(b.start), "created_at": b.end, "cluster_server": f"https://{b.cluster}.k10s.invalid",
                       "kubernetes_version": "v1.31.2", "scope_namespaces": b.namespace, "scope_jobs": f"{b.namespace}/train-{index}",
                       "tool_version": "sim", "parser_version": "sim", "redaction_level": "none", "redaction_key_id": None,
                       "complete": True, "source_path": f"simulated://{plan.seed}/{index}", "raw_bytes": 0,
                       "findings": len(out["findings"]), "gpus_seen": len(out["gpus"]), "nodes_seen": len(out["nodes"]), "indexed_at": utcnow()}]
    return out


def _xid(base, at, code, node, nkey, gpu, serials) -> dict[str, Any]:
    meaning, action, fatal = XID_ACTIONS.get(code, ("", "", False))
    return {**base, "event_at": at, "event_epoch_s": epoch_s(at), "kind": "xid", "xid": code, "node": node, "node_key": nkey,
            "gpu_uuid": gpu.uuid if gpu else None, "gpu_serial": gpu.serial if gpu and serials else None,
            "meaning": meaning, "action": action, "fatal": fatal}


def write_rows(plan: FleetPlan, out: str, *, batch_size: int = 1000, progress: Callable[[int], None] | None = None) -> int:
    """Write every bundle of ``plan`` as index rows into the fleet folder ``out``."""
    store = FleetStore.create(out)
    prices = PriceTable.default()
    pending: dict[str, list[dict[str, Any]]] = {}
    for i, b in enumerate(plan.bundles):
        for table, rows in bundle_rows(plan, i, b, prices).items():
            pending.setdefault(table, []).extend(rows)
        if len(pending["bundles"]) >= batch_size:
            store.write_batch(pending)
            pending = {}
            if progress:
                progress(i + 1)
    if pending:
        store.write_batch(pending)
    return len(plan.bundles)


__all__ = ["write_rows", "bundle_rows"]
