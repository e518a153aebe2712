"""Real formats degrade, never vanish: dmesg --decode layouts keep their own time; nvidia-smi CSV without uuid keeps its rows."""

from __future__ import annotations

import datetime as dt

from k10s_forensics.parsers.dmesg import parse_dmesg
from k10s_forensics.parsers.nvidia_smi_csv import parse_nvidia_smi_csv

CAPTURED = dt.datetime(2026, 11, 22, 8, 0, tzinfo=dt.timezone.utc)


def test_dmesg_decode_iso_layout_keeps_its_own_time() -> None:
    text = (
        "kern  :info  : 2026-11-21T10:00:00,000001+00:00 Linux version 6.8.0\n"
        "kern  :warn  : 2026-11-21T10:01:02,123456+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
        "kern  :err   : 2026-11-21T10:02:03,000000+00:00 Out of memory: Killed process 77 (python) total-vm:1kB\n"
        "kern  :warn  : [Sat Nov 21 10:03:04 2026] NVRM: Xid (PCI:0000:5e:00): 48, pid=9, DBE\n"
    )
    rows, untimed = parse_dmesg(text, CAPTURED)
    assert untimed == 0
    assert [(r["kind"], r["ts"]) for r in rows] == [
        ("xid", dt.datetime(2026, 11, 21, 10, 1, 2, 123456, tzinfo=dt.timezone.utc)),
        ("host_oom", dt.datetime(2026, 11, 21, 10, 2, 3, tzinfo=dt.timezone.utc)),
        ("xid", dt.datetime(2026, 11, 21, 10, 3, 4, tzinfo=dt.timezone.utc)),
    ]
    assert rows[0]["xid"] == 79 and rows[0]["line"].startswith("NVRM: Xid")


def test_dmesg_without_a_time_still_keeps_the_row_and_counts_it() -> None:
    rows, untimed = parse_dmesg("kern  :warn  : NVRM: Xid (PCI:0000:3b:00): 79, pid=1, off the bus\n", CAPTURED)
    assert len(rows) == 1 and rows[0]["ts"] == CAPTURED and untimed == 1


def test_nvidia_smi_csv_without_uuid_or_index_keeps_rows_with_weak_identity() -> None:
    text = "name, temperature.gpu, utilization.gpu [%], power.draw [W]\nNVIDIA H100 80GB HBM3, 61, 97 %, 512.30 W\nNVIDIA H100 80GB HBM3, 90, 12 %, 150.00 W\n"
    gpus, samples, issues = parse_nvidia_smi_csv(text, None, CAPTURED, node="gpu-node-7")
    assert [s["gpu_uuid"] for s in samples] == ["weak:gpu-node-7:row-0:NVIDIA H100 80GB HBM3", "weak:gpu-node-7:row-1:NVIDIA H100 80GB HBM3"]
    assert [s["temp_c"] for s in samples] == [61.0, 90.0] and samples[1]["util_pct"] == 12.0
    assert len(gpus) == 2
    assert sum(1 for reason, _ in issues if reason.startswith("weak GPU identity")) == 2


def test_nvidia_smi_csv_weak_identity_prefers_pci_then_index() -> None:
    text = "index, pci.bus_id, name, temperature.gpu\n0, 00000000:3B:00.0, NVIDIA A100, 50\n1, , NVIDIA A100, 51\n"
    _gpus, samples, _issues = parse_nvidia_smi_csv(text, None, CAPTURED, node="n1")
    assert samples[0]["gpu_uuid"] == "weak:n1:pci-0000:3b:00.0:NVIDIA A100"
    assert samples[1]["gpu_uuid"] == "weak:n1:index-1:NVIDIA A100"


def test_damage_is_named_in_analyze_sql_and_verify(tmp_path) -> None:
    """A raw file edited in place (same size) and one truncated: named, not reported as absent."""
    import json

    from integrity_helpers import evidence_copy, run

    bundle = evidence_copy("nccl-hang", tmp_path / "b")
    logs = bundle / "raw" / "logs.parquet"
    logs.write_bytes(logs.read_bytes()[: logs.stat().st_size // 2])
    exec_file = bundle / "raw" / "exec.parquet"
    data = bytearray(exec_file.read_bytes())
    data[len(data) // 2] ^= 0x20  # same size, different content
    exec_file.write_bytes(bytes(data))
    cache = tmp_path / "cache"
    result = run("analyze", str(bundle), "--format", "json", cache=cache)
    assert result.returncode == 0, result.stderr
    damage = json.loads(result.stdout)["damage"]
    assert any(d.startswith("raw/logs.parquet is damaged:") and "every row of it lost (container logs)" in d for d in damage), damage
    assert any(d.startswith("raw/exec.parquet is damaged:") and "SHA-256 disagrees with the manifest" in d for d in damage), damage
    skipped = {s["rule"]: s["reason"] for s in json.loads(result.stdout)["skipped"]}
    assert any(r.startswith("raw/logs.parquet is damaged") for r in skipped.values()), skipped
    assert not any("container logs absent" in r for r in skipped.values())
    text = run("analyze", str(bundle), cache=cache)
    assert "DAMAGED EVIDENCE: raw/logs.parquet is damaged" in text.stdout
    sql = run("sql", str(bundle), "SELECT count(*) FROM pods", cache=cache)
    assert sql.returncode == 0 and "k10s: warning: raw/logs.parquet is damaged" in sql.stderr
    verify = run("verify", str(bundle), cache=cache)
    assert verify.returncode == 1 and "PROBLEM raw/logs.parquet" in verify.stdout and "PROBLEM raw/exec.parquet" in verify.stdout


def test_a_bad_row_group_costs_only_its_rows(tmp_path) -> None:
    import json

    import pyarrow.parquet as pq

    from integrity_helpers import evidence_copy, run

    bundle = evidence_copy("nccl-hang", tmp_path / "b")
    logs = bundle / "raw" / "logs.parquet"
    table = pq.read_table(logs)
    pq.write_table(table, logs, row_group_size=max(1, table.num_rows // 4), compression="zstd")
    meta = pq.ParquetFile(logs).metadata
    assert meta.num_row_groups >= 3
    col = meta.row_group(1).column(meta.schema.names.index("body"))
    start = col.dictionary_page_offset or col.data_page_offset
    data = bytearray(logs.read_bytes())
    for i in range(start + 40, start + col.total_compressed_size - 10):  # the compressed pages, not their headers
        data[i] ^= 0xFF
    logs.write_bytes(bytes(data))
    result = run("analyze", str(bundle), "--format", "json", cache=tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    damage = json.loads(result.stdout)["damage"]
    assert any("row group(s) unreadable (row group 1 (1 rows)" in d and "the rest kept" in d for d in damage), damage
    rows = run("sql", str(bundle), "SELECT count(*) AS n FROM log_events", "--format", "csv", cache=tmp_path / "cache")
    assert int(rows.stdout.splitlines()[1]) > 0, "the other row groups' logs are still parsed"
