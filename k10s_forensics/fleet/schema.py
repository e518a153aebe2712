"""The fleet tables: names, columns, types and meaning (the layout other engines read).

A FLEET folder holds one Hive-partitioned Parquet dataset per table::

    FLEET/<table>/cluster=<slug>/month=<YYYY-MM>/part-<batch>.parquet

Partition values are slugs (see ``identity.partition_slug``); every file also carries
the verbatim ``cluster_name`` and the times, so queries never depend on the folder names
(DuckDB, Spark, Trino, Athena and BigQuery all read the files alike). Times are UTC
microseconds; every time also has an ``*_epoch_s`` BIGINT twin so period arithmetic is
plain integer SQL on every engine. docs/fleet.md is checked against this module.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

TS = pa.timestamp("us", tz="UTC")
STR = pa.string()
I64 = pa.int64()
F64 = pa.float64()
BOOL = pa.bool_()

#: Columns every fleet table starts with.
_KEY = (
    ("bundle_id", STR, "sha256 over the bundle's raw file checksums (the incremental key)"),
    ("cluster_name", STR, "manifest cluster.context (else server, else 'unknown'), verbatim"),
)


@dataclass(frozen=True)
class FleetTable:
    name: str
    grain: str
    columns: tuple[tuple[str, pa.DataType, str], ...]

    @property
    def schema(self) -> pa.Schema:
        return pa.schema([(n, t) for n, t, _ in self.columns])

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(n for n, _, _ in self.columns)


def _t(name: str, grain: str, *cols: tuple[str, pa.DataType, str]) -> FleetTable:
    return FleetTable(name, grain, _KEY + tuple(cols))


FLEET_TABLES: tuple[FleetTable, ...] = (
    _t(
        "bundles", "indexed bundle",
        ("window_month", STR, "YYYY-MM of the window start (the partition month)"),
        ("window_start", TS, "capture window start"),
        ("window_end", TS, "capture window end"),
        ("window_start_epoch_s", I64, "window start, seconds since 1970"),
        ("created_at", TS, "manifest created_at"),
        ("cluster_server", STR, "API server URL (may be pseudonymised)"),
        ("kubernetes_version", STR, "manifest cluster.kubernetes_version"),
        ("scope_namespaces", STR, "comma-separated scope namespaces"),
        ("scope_jobs", STR, "comma-separated scope jobs"),
        ("tool_version", STR, "k10s version that captured the bundle"),
        ("parser_version", STR, "parser version of its tables (manifest), else the indexer's"),
        ("redaction_level", STR, "none, standard or strict"),
        ("redaction_key_id", STR, "id of the pseudonym key (strict bundles: same key, same pseudonyms)"),
        ("complete", BOOL, "capture finished"),
        ("source_path", STR, "where the bundle (folder or archive) was indexed from"),
        ("raw_bytes", I64, "bytes of raw/*.parquet"),
        ("findings", I64, "findings of the bundle analysis"),
        ("gpus_seen", I64, "GPUs in its inventory"),
        ("nodes_seen", I64, "nodes in its inventory"),
        ("indexed_at", TS, "when it was indexed"),
    ),
    _t(
        "findings", "finding of a bundle (k10s analyze)",
        ("finding_id", STR, "bundle_id:ordinal"),
        ("rule", STR, "bundle rule id"),
        ("severity", STR, "critical, warning or info"),
        ("cause", STR, "rule cause"),
        ("title", STR, "finding title"),
        ("job", STR, "namespace/name of the job"),
        ("namespace", STR, "team: the job's namespace, else the culprit pod's"),
        ("incident_at", TS, "finding started_at, else the window start"),
        ("incident_epoch_s", I64, "incident_at in seconds since 1970"),
        ("incident_month", STR, "YYYY-MM of incident_at"),
        ("gpu_hours_lost", F64, "GPU-hours the rule counts as lost"),
        ("usd_per_gpu_hour", F64, "price of the culprit GPU model (packaged price table)"),
        ("cost_usd", F64, "gpu_hours_lost x usd_per_gpu_hour"),
        ("culprit_ranks", STR, "comma-separated ranks"),
        ("culprit_pods", STR, "comma-separated namespace/pod"),
        ("culprit_nodes", STR, "comma-separated nodes"),
        ("culprit_node_unknown", STR, "why the culprit has no node (analyze's node_unknown); null when known or none named"),
        ("culprit_confidence", STR, "how sure analyze is of the culprit it names: high, medium or low; null when none named or ungraded"),
        ("culprit_gpus", STR, "comma-separated GPU UUIDs"),
        ("recommendation", STR, "the bundle rule's advice"),
        ("source_path", STR, "the bundle's link: where it was indexed from (open it with k10s report)"),
    ),
    _t(
        "incidents", "incident of a bundle (k10s analyze: the findings of one failure, one root cause, one cost)",
        ("incident_id", STR, "bundle_id:incident id (inc-1, ...)"),
        ("rule", STR, "the root finding's rule"),
        ("severity", STR, "most severe of its findings"),
        ("cause", STR, "the root finding's cause"),
        ("title", STR, "the root finding's title"),
        ("job", STR, "namespace/name of the job"),
        ("namespace", STR, "team: the job's namespace, else the culprit pod's"),
        ("incident_at", TS, "earliest start of its findings, else the window start"),
        ("incident_epoch_s", I64, "incident_at in seconds since 1970"),
        ("incident_month", STR, "YYYY-MM of incident_at"),
        ("gpu_hours_lost", F64, "GPU-hours the incident lost, counted once (the largest of its findings', never their sum)"),
        ("usd_per_gpu_hour", F64, "price of the culprit GPU model (the analysis' price table)"),
        ("cost_usd", F64, "cost of those GPU-hours"),
        ("findings", I64, "findings in the incident (root and symptoms)"),
        ("finding_ids", STR, "comma-separated finding_id of its findings, root first"),
        ("symptom_rules", STR, "comma-separated rule:cause of its symptoms"),
        ("culprit_ranks", STR, "comma-separated ranks of the root finding"),
        ("culprit_pods", STR, "comma-separated namespace/pod"),
        ("culprit_nodes", STR, "comma-separated nodes"),
        ("culprit_node_unknown", STR, "why the culprit has no node (analyze's node_unknown); null when known or none named"),
        ("culprit_confidence", STR, "how sure analyze is of the culprit it names: high, medium or low; null when none named or ungraded"),
        ("culprit_gpus", STR, "comma-separated GPU UUIDs"),
        ("source_path", STR, "the bundle's link: where it was indexed from"),
    ),
    _t(
        "culprits", "finding x culprit GPU or node",
        ("finding_id", STR, "finding this culprit belongs to"),
        ("rule", STR, "bundle rule id"),
        ("cause", STR, "rule cause"),
        ("severity", STR, "finding severity"),
        ("namespace", STR, "team"),
        ("incident_at", TS, "finding time"),
        ("incident_epoch_s", I64, "finding time, seconds since 1970"),
        ("culprit_kind", STR, "gpu or node"),
        ("node", STR, "node name in that bundle"),
        ("node_key", STR, "node identity: system UUID, else machine ID, else name"),
        ("gpu_uuid", STR, "GPU UUID (gpu rows)"),
        ("gpu_serial", STR, "board serial when the bundle had it"),
    ),
    _t(
        "gpus", "GPU seen in a bundle",
        ("seen_at", TS, "first sample of the GPU in the bundle, else window start"),
        ("seen_epoch_s", I64, "seen_at in seconds since 1970"),
        ("node", STR, "node name"),
        ("node_key", STR, "node identity (system UUID > machine ID > name)"),
        ("gpu_uuid", STR, "GPU UUID"),
        ("gpu_serial", STR, "board serial (nvidia-smi); null when unknown"),
        ("pci_bus_id", STR, "PCI bus id"),
        ("product", STR, "GPU model"),
        ("driver_version", STR, "driver version"),
        ("vbios_version", STR, "VBIOS version (nvidia-smi -q -x)"),
        ("ecc_dbe_volatile", I64, "volatile uncorrectable ECC errors"),
        ("remapped_rows_uncorrectable", I64, "uncorrectable remapped rows"),
    ),
    _t(
        "nodes", "node seen in a bundle",
        ("node", STR, "node name"),
        ("node_key", STR, "system UUID > machine ID > name"),
        ("system_uuid", STR, "status.nodeInfo.systemUUID"),
        ("machine_id", STR, "status.nodeInfo.machineID"),
        ("instance_type", STR, "node.kubernetes.io/instance-type"),
        ("gpu_product", STR, "GPU model label"),
        ("kubelet_version", STR, "kubelet version"),
        ("ready", BOOL, "Ready at the last listing"),
    ),
    _t(
        "health_events", "hardware health event seen in a bundle",
        ("event_at", TS, "when"),
        ("event_epoch_s", I64, "event_at in seconds since 1970"),
        ("kind", STR, "xid, ecc-uncorrectable, row-remap-pending, row-remap-failure, thermal-throttle, power-brake, node-not-ready"),
        ("xid", I64, "Xid code (kind xid)"),
        ("node", STR, "node name"),
        ("node_key", STR, "node identity"),
        ("gpu_uuid", STR, "GPU UUID, when the event names one"),
        ("gpu_serial", STR, "its serial, when known"),
        ("meaning", STR, "what the event means"),
        ("action", STR, "NVIDIA-recommended action (Xid catalog)"),
        ("fatal", BOOL, "the event stops the GPU's work"),
    ),
)

TABLES_BY_NAME: dict[str, FleetTable] = {t.name: t for t in FLEET_TABLES}
TABLE_NAMES: tuple[str, ...] = tuple(TABLES_BY_NAME)

__all__ = ["FLEET_TABLES", "TABLES_BY_NAME", "TABLE_NAMES", "FleetTable", "TS"]
