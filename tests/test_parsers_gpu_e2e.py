"""End to end: raw exec/scrapes rows built from the real samples -> rebuild -> DuckDB queries."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from k10s_forensics.store.bundle import Bundle, new_manifest, write_json_atomic, write_raw_table
from k10s_forensics.engine import connect, run_sql
from k10s_forensics.parsers import dcgm
from k10s_forensics.rebuild.run import rebuild

SAMPLES = Path(__file__).resolve().parent / "data" / "real-samples"
T0 = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.timezone.utc)
A100_XML = "a100-sxm4-80gb_driver-535.54.03_v12_mig.xml"
MIG_PROM = "h100-mig_pod-labels_dcgm-exporter-issue512_excerpt.prom"
POD_PROM = "h100-80gb-hbm3_pod-labels-populated_dcgm-exporter-issue272-comment_excerpt.prom"


def _exec(source: str, stdout: str | None, node: str = "gpu-node-1", minutes: int = 0, **extra) -> dict:
    row = {"captured_at": T0 + dt.timedelta(minutes=minutes), "duration_ms": 120, "source": source, "node": node, "namespace": "k10s",
           "pod": "k10s-probe", "container": "probe", "command": "nvidia-smi", "exit_code": 0, "stdout": stdout, "stderr": "", "error": None}
    row.update(extra)
    return row


def _scrape(source: str, body: str | None, node: str | None, minutes: int = 0, **extra) -> dict:
    row = {"captured_at": T0 + dt.timedelta(minutes=minutes), "source": source, "node": node, "url": "/api/v1/namespaces/gpu-operator/pods/x:9400/proxy/metrics",
           "status": 200, "body": body, "error": None}
    row.update(extra)
    return row


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Bundle:
    root = tmp_path_factory.mktemp("gpu-bundle")
    xml = (SAMPLES / "nvidia-smi-xml" / A100_XML).read_text()
    csv_text = (SAMPLES / "nvidia-smi-csv" / "tesla-p100-pcie-16gb_driver-510.47.03_query-gpu.csv").read_text()
    apps = (SAMPLES / "nvidia-smi-csv" / "h100-mig_driver-590.48.01_query-compute-apps_load.csv").read_text()
    dmesg = "[Sat Nov 21 09:58:00 2026] NVRM: Xid (PCI:0000:01:00): 79, pid=77, name=python, GPU has fallen off the bus.\n"
    exec_rows = [
        _exec("nvidia-smi-xml", xml, minutes=0),
        _exec("nvidia-smi-xml", xml, minutes=5),
        _exec("nvidia-smi-xml", xml[: len(xml) // 3], minutes=6),  # truncated
        _exec("nvidia-smi-xml", None, minutes=7, exit_code=None, error="pod gone"),
        _exec("nvidia-smi-csv", csv_text, node="gpu-node-2"),
        _exec("nvidia-smi-csv", apps, node="gpu-node-2"),
        _exec("dmesg", dmesg),
        _exec("ss", "State Recv-Q\n"),
    ]
    mig = (SAMPLES / "dcgm-exporter" / MIG_PROM).read_text()
    pods = (SAMPLES / "dcgm-exporter" / POD_PROM).read_text()
    prom = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "UUID": "GPU-45e15172-50a7-7489-52c1-f796d686a89b", "kubernetes_node": "gpu-node-3"},
         "values": [[T0.timestamp(), "88"]]}]}})
    scrape_rows = [
        _scrape("dcgm-exporter", mig, "gpu-node-1", minutes=0),
        _scrape("dcgm-exporter", mig, "gpu-node-1", minutes=1),
        _scrape("dcgm-exporter", pods, "gpu-node-3", minutes=1),
        _scrape("dcgm-exporter", "Service Unavailable", "gpu-node-4", status=503),
        _scrape("dcgm-exporter", "\x00\x01 junk \xff line\n", "gpu-node-4"),
        _scrape("prometheus-query", prom, None),
        _scrape("prometheus-query", json.dumps({"status": "error", "errorType": "bad_data", "error": "x"}), None),
    ]
    write_raw_table(root, "exec", exec_rows)
    write_raw_table(root, "scrapes", scrape_rows)
    write_json_atomic(root / "manifest.json", new_manifest(window_start=T0, window_end=T0 + dt.timedelta(minutes=10)))
    b = Bundle.open(root)
    with pytest.MonkeyPatch.context() as mp:  # one scrape per batch: exercises the cross-batch merge
        mp.setattr(dcgm, "BATCH_BYTES", 1)
        rebuild(b)
    return b


def _q(bundle: Bundle, sql: str) -> list[dict]:
    return run_sql(connect(bundle, rebuild_if_needed=False), sql).to_pylist()


def test_gpus_merged_one_row_per_device(bundle: Bundle) -> None:
    rows = _q(bundle, "SELECT node, gpu_uuid, source, is_mig, parent_gpu_uuid, memory_total_mib, first_seen_at, last_seen_at FROM gpus ORDER BY node, gpu_uuid")
    keys = [(r["node"], r["gpu_uuid"]) for r in rows]
    assert len(keys) == len(set(keys))
    a100 = next(r for r in rows if r["gpu_uuid"] == "GPU-513536b6-7d19-9063-b049-1e69664bb298")
    assert (a100["node"], a100["source"], a100["is_mig"], a100["memory_total_mib"]) == ("gpu-node-1", "nvidia-smi-xml", False, 81920)
    assert (a100["first_seen_at"], a100["last_seen_at"]) == (T0, T0 + dt.timedelta(minutes=5))
    migs = [r for r in rows if r["parent_gpu_uuid"] == "GPU-513536b6-7d19-9063-b049-1e69664bb298"]
    assert len(migs) == 4 and all(r["is_mig"] for r in migs)
    dcgm_mig = [r for r in rows if r["gpu_uuid"].startswith("MIG-GPU-58e8f5ea")]
    assert len(dcgm_mig) == 3 and {r["source"] for r in dcgm_mig} == {"dcgm-exporter"}
    assert all((r["first_seen_at"], r["last_seen_at"]) == (T0, T0 + dt.timedelta(minutes=1)) for r in dcgm_mig)
    p100 = next(r for r in rows if r["gpu_uuid"] == "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6")
    assert (p100["node"], p100["source"], p100["memory_total_mib"]) == ("gpu-node-2", "nvidia-smi-csv", 16383)


def test_gpu_samples_from_every_source(bundle: Bundle) -> None:
    rows = _q(bundle, "SELECT source, count(*) AS n FROM gpu_samples GROUP BY source ORDER BY source")
    assert {r["source"]: r["n"] for r in rows} == {"dcgm-exporter": 3 * 2 + 3, "nvidia-smi-csv": 1, "nvidia-smi-xml": 5 * 2, "prometheus-query": 1}
    pod = _q(bundle, "SELECT pod, namespace, node FROM gpu_samples WHERE gpu_uuid = 'GPU-0c1372db-bb1d-8346-2259-0d3a03ba7e24'")
    assert pod == [{"pod": "functional-0", "namespace": "kbf-i354164", "node": "gpu-node-3"}]
    prom = _q(bundle, "SELECT util_pct, node FROM gpu_samples WHERE source = 'prometheus-query'")
    assert prom == [{"util_pct": 88.0, "node": "gpu-node-3"}]


def test_xid_log_event(bundle: Bundle) -> None:
    rows = _q(bundle, "SELECT kind, xid, bus_id, node, ts FROM log_events WHERE kind = 'xid'")
    assert rows == [{"kind": "xid", "xid": 79, "bus_id": "0000:01:00.0", "node": "gpu-node-1", "ts": dt.datetime(2026, 11, 21, 9, 58, tzinfo=dt.timezone.utc)}]
    joined = _q(bundle, "SELECT g.gpu_uuid FROM log_events e JOIN gpus g ON g.node = e.node AND g.pci_bus_id = e.bus_id AND NOT g.is_mig WHERE e.kind = 'xid'")
    assert joined == [{"gpu_uuid": "GPU-513536b6-7d19-9063-b049-1e69664bb298"}]


def test_parse_errors_are_precise(bundle: Bundle) -> None:
    rows = _q(bundle, "SELECT source, reason, count, first_raw_row FROM parse_errors WHERE source IN ('exec:nvidia-smi-xml', 'exec:nvidia-smi-csv', 'exec:dmesg', 'scrapes:dcgm-exporter', "
             "'scrapes:prometheus-query', 'parser:gpus', 'parser:dcgm', 'parser:nvidia_smi_xml', 'parser:nvidia_smi_csv', "
             "'parser:prometheus', 'parser:dmesg') ORDER BY source, reason")
    got = {(r["source"], r["reason"]): (r["count"], r["first_raw_row"]) for r in rows}
    assert got == {
        ("exec:nvidia-smi-csv", "not a GPU query (--query-compute-apps output)"): (1, 5),
        ("exec:nvidia-smi-xml", "command failed: pod gone"): (1, 3),
        ("exec:nvidia-smi-xml", "malformed XML"): (1, 2),
        ("scrapes:dcgm-exporter", "fetch failed: HTTP 503"): (1, 3),
        ("scrapes:dcgm-exporter", "malformed exposition line"): (1, 4),
        ("scrapes:prometheus-query", "query error: bad_data"): (1, 6),
    }
