"""One bundle -> its fleet rows (bundles, findings, culprits, gpus, nodes, health_events).

Runs the bundle's own analysis (the same rules as ``k10s analyze``) and a few queries on
the same DuckDB connection; nothing here writes to the fleet (see store.py). Every row is
a plain dict in the column order of ``schema.FLEET_TABLES``.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from k10s_forensics import __version__
from k10s_forensics.analyze.prices import PriceTable
from k10s_forensics.store.bundle import Bundle, parse_iso, utcnow
from k10s_forensics.engine import run_sql
from k10s_forensics.errors import QueryError
from k10s_forensics.fleet.identity import bundle_id, clean_serial, cluster_name, node_key

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
#: gpu-health causes that are health events of their own (the rest come from tables).
_HEALTH_CAUSES = {"thermal-throttle": "thermal-throttle", "power-brake": "power-brake", "node-not-ready": "node-not-ready"}
_XML_GPU = re.compile(r"<gpu\b.*?</gpu>", re.S)
_XML_FIELD = {name: re.compile(rf"<{name}>\s*([^<]*?)\s*</{name}>") for name in ("uuid", "vbios_version", "serial")}

NODES_SQL = """
WITH raw AS (
    SELECT name AS node,
           json_extract_string(body, '$.status.nodeInfo.systemUUID') AS system_uuid,
           json_extract_string(body, '$.status.nodeInfo.machineID') AS machine_id,
           row_number() OVER (PARTITION BY name ORDER BY captured_at DESC) AS k
    FROM raw_objects WHERE kind = 'Node'
)
SELECT n.node, r.system_uuid, r.machine_id, n.instance_type, n.gpu_product, n.kubelet_version, n.ready
FROM nodes n LEFT JOIN raw r ON r.node = n.node AND r.k = 1
ORDER BY n.node
"""
GPUS_SQL = """
SELECT node, gpu_uuid, serial, pci_bus_id, product, driver_version, first_seen_at,
       ecc_dbe_volatile, remapped_rows_uncorrectable, remapped_rows_pending, remapped_rows_failure
FROM gpus WHERE NOT coalesce(is_mig, false) AND gpu_uuid IS NOT NULL ORDER BY node, gpu_uuid
"""
XID_SQL = """
SELECT DISTINCT ts, node, gpu_uuid, xid, meaning, action, fatal FROM k10s_xid_event
WHERE xid IS NOT NULL ORDER BY ts, node, gpu_uuid, xid
"""


def epoch_s(ts: dt.datetime | None) -> int | None:
    return None if ts is None else int((ts - _EPOCH).total_seconds())


def month_of(ts: dt.datetime | None) -> str:
    return ts.strftime("%Y-%m") if ts else "unknown"


def _when(value: Any) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    return parse_iso(value) if isinstance(value, str) else None


def _rows(con, sql: str, origin: str) -> list[dict[str, Any]]:
    table = run_sql(con, sql, origin=origin)
    return table.to_pylist() if table is not None else []


def _vbios(con) -> dict[str, tuple[str | None, str | None]]:
    """GPU UUID -> (VBIOS version, serial) from nvidia-smi -q -x outputs."""
    found: dict[str, tuple[str | None, str | None]] = {}
    try:
        texts = _rows(con, "SELECT stdout FROM raw_exec WHERE source = 'nvidia-smi-xml' AND stdout IS NOT NULL", "fleet:vbios")
    except QueryError:  # raw/exec absent: no view
        return found
    for row in texts:
        for block in _XML_GPU.findall(row["stdout"] or ""):
            values = {k: (m.group(1) if (m := rx.search(block)) else None) for k, rx in _XML_FIELD.items()}
            if values["uuid"]:
                found[values["uuid"]] = (values["vbios_version"], clean_serial(values["serial"]))
    return found


def incident_rows(base, bid, analysis, start, by_uuid, prices, source) -> list[dict[str, Any]]:
    """One fleet row per incident of the analysis (its cost counted once, see analyze/incidents.py)."""
    from k10s_forensics.analyze.incidents import counted, incidents_of, members

    findings = analysis["findings"]
    rows = []
    for inc in counted(incidents_of(analysis)):
        at = _when(inc.get("started_at")) or start
        price = inc.get("usd_per_gpu_hour")
        if price is None:
            products = [by_uuid[u].get("product") for u in inc["gpus"] if u in by_uuid] or [g.get("product") for g in by_uuid.values()]
            price = prices.price(products[0] if products else None)
        hours = inc.get("gpu_hours_lost")
        cost = inc.get("cost_usd")
        if cost is None and hours is not None:
            cost = round(hours * price, 2)
        ids = members(inc)
        rows.append({**base, "incident_id": f"{bid}:{inc['id']}", "rule": inc["root"]["rule"], "severity": inc["severity"],
                     "cause": inc.get("cause"), "title": inc.get("title"), "job": inc.get("job"),
                     "namespace": _namespace({"job": inc.get("job"), "pods": inc["pods"]}), "incident_at": at,
                     "incident_epoch_s": epoch_s(at), "incident_month": month_of(at), "gpu_hours_lost": hours,
                     "usd_per_gpu_hour": price, "cost_usd": cost, "findings": len(ids),
                     "finding_ids": ",".join(f"{bid}:{i}" for i in ids),
                     "symptom_rules": ",".join(f"{findings[i]['rule']}:{findings[i].get('cause') or '---'}" for i in ids[1:]),
                     "culprit_ranks": ",".join(map(str, inc["ranks"])), "culprit_pods": ",".join(inc["pods"]),
                     "culprit_nodes": ",".join(inc["nodes"]), "culprit_node_unknown": inc.get("node_unknown"),
                     "culprit_confidence": inc.get("confidence"),
                     "culprit_gpus": ",".join(inc["gpus"]), "source_path": source})
    return rows


def _namespace(finding: dict[str, Any]) -> str | None:
    for value in [finding.get("job")] + list(finding.get("pods") or []):
        if value and "/" in str(value):
            return str(value).split("/", 1)[0]
    return None


def extract(path: str, source: str | None = None, prices: PriceTable | None = None) -> dict[str, list[dict[str, Any]]]:
    """Every fleet row of the bundle at ``path`` (folder or archive)."""
    from k10s_forensics.analyze.rules import load_rules
    from k10s_forensics.analyze.runner import prepare, run_rules

    bundle = Bundle.open(path)
    bid = bundle_id(bundle)
    prices = prices or PriceTable.default()
    con = prepare(bundle, prices)
    try:
        analysis = run_rules(con, bundle, load_rules())
        nodes = _rows(con, NODES_SQL, "fleet:nodes")
        gpus = _rows(con, GPUS_SQL, "fleet:gpus")
        xids = _rows(con, XID_SQL, "fleet:xid")
        vbios = _vbios(con)
    finally:
        con.close()
    return _assemble(bundle, bid, source or str(path), analysis, nodes, gpus, xids, vbios, prices)


def _assemble(bundle, bid, source, analysis, nodes, gpus, xids, vbios, prices) -> dict[str, list[dict[str, Any]]]:
    m = bundle.manifest
    cluster = cluster_name(m)
    window = m.get("window") or {}
    start, end = _when(window.get("start")) or _when(m.get("created_at")), _when(window.get("end"))
    base = {"bundle_id": bid, "cluster_name": cluster}
    node_keys = {n["node"]: node_key(n["node"], n.get("system_uuid"), n.get("machine_id")) for n in nodes}

    def nkey(name):
        return node_keys.get(name) or node_key(name)

    by_uuid = {g["gpu_uuid"]: g for g in gpus}
    out: dict[str, list[dict[str, Any]]] = {"nodes": [], "gpus": [], "findings": [], "incidents": [], "culprits": [], "health_events": []}
    for n in nodes:
        out["nodes"].append({**base, "node": n["node"], "node_key": nkey(n["node"]), "system_uuid": n.get("system_uuid"),
                             "machine_id": n.get("machine_id"), "instance_type": n.get("instance_type"),
                             "gpu_product": n.get("gpu_product"), "kubelet_version": n.get("kubelet_version"), "ready": n.get("ready")})
    for g in gpus:
        seen = _when(g.get("first_seen_at")) or start
        vb, xml_serial = vbios.get(g["gpu_uuid"], (None, None))
        serial = clean_serial(g.get("serial")) or xml_serial
        g["serial"] = serial
        out["gpus"].append({**base, "seen_at": seen, "seen_epoch_s": epoch_s(seen), "node": g["node"], "node_key": nkey(g["node"]),
                            "gpu_uuid": g["gpu_uuid"], "gpu_serial": serial, "pci_bus_id": g.get("pci_bus_id"),
                            "product": g.get("product"), "driver_version": g.get("driver_version"), "vbios_version": vb,
                            "ecc_dbe_volatile": g.get("ecc_dbe_volatile"), "remapped_rows_uncorrectable": g.get("remapped_rows_uncorrectable")})
        for kind, flag in (("ecc-uncorrectable", (g.get("ecc_dbe_volatile") or 0) > 0),
                           ("row-remap-pending", bool(g.get("remapped_rows_pending"))),
                           ("row-remap-failure", bool(g.get("remapped_rows_failure")))):
            if flag:
                out["health_events"].append(_event(base, seen, kind, None, g["node"], nkey(g["node"]), g["gpu_uuid"], serial,
                                                   kind.replace("-", " "), "reset-gpu", kind != "row-remap-pending"))
    for x in xids:
        g = by_uuid.get(x.get("gpu_uuid")) or {}
        out["health_events"].append(_event(base, _when(x["ts"]) or start, "xid", x["xid"], x.get("node"), nkey(x.get("node")),
                                           x.get("gpu_uuid"), g.get("serial"), x.get("meaning"), x.get("action"), bool(x.get("fatal"))))
    for i, f in enumerate(analysis["findings"]):
        _add_finding(out, base, f"{bid}:{i}", f, start, by_uuid, nkey, prices)
        out["findings"][-1]["source_path"] = source
    out["incidents"] = incident_rows(base, bid, analysis, start, by_uuid, prices, source)
    out["bundles"] = [{
        **base, "window_month": month_of(start), "window_start": start, "window_end": end, "window_start_epoch_s": epoch_s(start),
        "created_at": _when(m.get("created_at")), "cluster_server": (m.get("cluster") or {}).get("server"),
        "kubernetes_version": (m.get("cluster") or {}).get("kubernetes_version"),
        "scope_namespaces": ",".join(map(str, (m.get("scope") or {}).get("namespaces") or [])),
        "scope_jobs": ",".join(map(str, (m.get("scope") or {}).get("jobs") or [])),
        "tool_version": (m.get("tool") or {}).get("version"), "parser_version": str(m.get("parser_version") or __version__),
        "redaction_level": (m.get("redaction") or {}).get("level") or "none", "redaction_key_id": (m.get("redaction") or {}).get("key_id"),
        "complete": bool(m.get("complete", True)), "source_path": source,
        "raw_bytes": sum(p.stat().st_size for p in (bundle.path / "raw").glob("*.parquet")),
        "findings": len(out["findings"]), "gpus_seen": len(out["gpus"]), "nodes_seen": len(out["nodes"]), "indexed_at": utcnow(),
    }]
    return out


def _event(base, at, kind, xid, node, nkey, uuid, serial, meaning, action, fatal) -> dict[str, Any]:
    return {**base, "event_at": at, "event_epoch_s": epoch_s(at), "kind": kind, "xid": xid, "node": node, "node_key": nkey,
            "gpu_uuid": uuid, "gpu_serial": serial, "meaning": meaning, "action": action, "fatal": fatal}


def _add_finding(out, base, fid, f, start, by_uuid, nkey, prices) -> None:
    at = _when(f.get("started_at")) or start
    ns = _namespace(f)
    products = [by_uuid[u].get("product") for u in f["gpus"] if u in by_uuid] or [g.get("product") for g in by_uuid.values()]
    price = prices.price(products[0] if products else None)
    hours = f.get("gpu_hours_lost")
    out["findings"].append({
        **base, "finding_id": fid, "rule": f["rule"], "severity": f["severity"], "cause": f.get("cause"), "title": f.get("title"),
        "job": f.get("job"), "namespace": ns, "incident_at": at, "incident_epoch_s": epoch_s(at), "incident_month": month_of(at),
        "gpu_hours_lost": hours, "usd_per_gpu_hour": price, "cost_usd": None if hours is None else round(hours * price, 2),
        "culprit_ranks": ",".join(map(str, f["ranks"])), "culprit_pods": ",".join(f["pods"]), "culprit_nodes": ",".join(f["nodes"]),
        "culprit_node_unknown": f.get("node_unknown"), "culprit_confidence": f.get("confidence"), "culprit_gpus": ",".join(f["gpus"]),
        "recommendation": f.get("recommendation"),
    })
    common = {**base, "finding_id": fid, "rule": f["rule"], "cause": f.get("cause"), "severity": f["severity"], "namespace": ns,
              "incident_at": at, "incident_epoch_s": epoch_s(at)}
    for uuid in f["gpus"]:
        g = by_uuid.get(uuid, {})
        node = g.get("node") or (f["nodes"][0] if len(f["nodes"]) == 1 else None)
        out["culprits"].append({**common, "culprit_kind": "gpu", "node": node, "node_key": nkey(node) if node else None,
                                "gpu_uuid": uuid, "gpu_serial": g.get("serial")})
    for node in f["nodes"]:
        out["culprits"].append({**common, "culprit_kind": "node", "node": node, "node_key": nkey(node), "gpu_uuid": None, "gpu_serial": None})
    if f["rule"] == "gpu-health" and f.get("cause") in _HEALTH_CAUSES:
        for uuid in f["gpus"] or [None]:
            g = by_uuid.get(uuid, {})
            node = g.get("node") or (f["nodes"][0] if f["nodes"] else None)
            out["health_events"].append(_event(base, at, _HEALTH_CAUSES[f["cause"]], None, node, nkey(node) if node else None, uuid,
                                               g.get("serial"), f.get("title"), "drain-node" if f["cause"] == "node-not-ready" else "check-cooling-power",
                                               f["cause"] == "node-not-ready"))


__all__ = ["extract", "epoch_s", "month_of"]
