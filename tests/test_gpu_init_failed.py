"""gpu-health ``gpu-init-failed``: the NVIDIA driver could not initialise a GPU (queries/gpu_health.sql ``init_failed``).

The kernel's words, as node logs and pastes show them: recent drivers give the GPU's address (``NVRM: GPU
0000:d8:00.0: RmInitAdapter failed! (0x26:0xffff:1227)``, ``NVRM: GPU 0000:d8:00.0: rm_init_adapter failed, device
minor number 3``), older ones none (``NVRM: RmInitAdapter failed! (0x26:0xffff:1127)``, ``NVRM: rm_init_adapter failed
for device bearing minor number 0``: microsoft/pai#4344, blind batch 317, read as nothing before session 54). Such a GPU
is gone from nvidia-smi and the node's allocatable: the finding names the node and the GPU's address, no rank. Read from a
node's dmesg (capture) and from a pasted log alike.
"""

from __future__ import annotations

import datetime as dt

import pytest

from _analyze_kit import analyze_tables, at, gang, rule_findings
from bundle_batch import pasted_findings
from k10s_forensics.parsers.dmesg import parse_dmesg
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 5, 14, 0, tzinfo=dt.timezone.utc)
NEW_DRIVER = ["Apr 17 10:23:33 compute-X-Y kernel: NVRM: GPU 0000:d8:00.0: RmInitAdapter failed! (0x26:0xffff:1227)",
              "Apr 17 10:23:33 compute-X-Y kernel: NVRM: GPU 0000:d8:00.0: rm_init_adapter failed, device minor number 3"]
OLD_DRIVER = ["[   38.773115] NVRM: RmInitAdapter failed! (0x26:0xffff:1127)",
              "[   38.773764] NVRM: rm_init_adapter failed for device bearing minor number 0"]


@pytest.mark.parametrize(
    ("line", "bus_id", "message"),
    [
        (NEW_DRIVER[0], "0000:d8:00.0", "RmInitAdapter failed (0x26:0xffff:1227)"),
        (NEW_DRIVER[1], "0000:d8:00.0", "rm_init_adapter failed, minor number 3"),
        ("[   13.732645] NVRM: GPU 0000:0b:00.0: RmInitAdapter failed! (0x26:0x56:1474)", "0000:0b:00.0", "RmInitAdapter failed (0x26:0x56:1474)"),
        (OLD_DRIVER[0], None, "RmInitAdapter failed (0x26:0xffff:1127)"),
        (OLD_DRIVER[1], None, "rm_init_adapter failed, minor number 0"),
        ("NVRM: RmInitAdapter: osInitNvMapping failed, bailing out of RmInitAdapter", None, None),  # its cause's line, no failure verdict
        ("NVRM: GPU 0000:d8:00.0: RmInitAdapter succeeded", None, None),
    ],
    ids=["new-code", "new-minor", "new-boot-time", "old-code", "old-minor", "bailing-out", "not-a-failure"],
)
def test_the_drivers_init_failure_is_an_event_of_the_gpu(line, bus_id, message):
    events = [e for e in classify(line) if e["kind"] == "gpu_init_failed"]
    assert [(e["bus_id"], e["error_message"]) for e in events] == ([(bus_id, message)] if message else [])
    assert all(e.get("rank") is None for e in events)


def test_dmesg_lines_give_the_same_events():
    rows, _ = parse_dmesg("\n".join(["[Fri Dec  4 10:00:01 2026] " + line.split("kernel: ")[1] for line in NEW_DRIVER]) + "\n")
    assert [(r["kind"], r["bus_id"], r["ts"]) for r in rows] == [("gpu_init_failed", "0000:d8:00.0", dt.datetime(2026, 12, 4, 10, 0, 1, tzinfo=dt.timezone.utc))] * 2


def _gang_with_dead_gpu(listed: bool) -> dict:
    """A 4-pod job on gpu-node-0..3; gpu-node-2's dmesg says its GPU at 0000:d8:00.0 failed to initialise (``listed``:
    the GPU inventory still knows it, as an earlier nvidia-smi run listed it)."""
    g = gang(pods=4, per_pod=1, start=-600)
    if listed:
        g["gpus"].append({"node": "gpu-node-2", "gpu_uuid": "GPU-dead-0000", "gpu_index": 7, "pci_bus_id": "0000:d8:00.0",
                          "product": "NVIDIA H100 80GB HBM3", "memory_total_mib": 81559})
    g["log_events"] = [{"ts": at(30 + i), "node": "gpu-node-2", "kind": "gpu_init_failed", "subkind": "rm_init_adapter",
                        "bus_id": "0000:d8:00.0", "error_message": msg, "line": line, "source": "dmesg", "line_no": i + 1}
                       for i, (msg, line) in enumerate([("RmInitAdapter failed (0x26:0xffff:1227)", NEW_DRIVER[0].split("kernel: ")[1]),
                                                        ("rm_init_adapter failed, minor number 3", NEW_DRIVER[1].split("kernel: ")[1])])]
    return g


@pytest.mark.parametrize("listed", [True, False], ids=["gpu-listed", "gpu-gone"])
def test_a_nodes_dmesg_names_the_node_and_the_gpu_no_rank(tmp_path, listed):
    (f,) = [f for f in rule_findings(analyze_tables(tmp_path, _gang_with_dead_gpu(listed), only=["gpu-health"]), "gpu-health")
            if f["cause"] == "gpu-init-failed"]
    assert (f["severity"], f["ranks"], f["nodes"], f["gpus"], f["job"]) == (
        "critical", [], ["gpu-node-2"], ["GPU-dead-0000"] if listed else [], None)
    assert "0000:d8:00.0" in f["title"] and "2 line(s)" in f["summary"]


@pytest.mark.parametrize(("lines", "title"), [(OLD_DRIVER * 4, "A GPU failed to initialise"), (NEW_DRIVER, "GPU 0000:d8:00.0 failed")],
                         ids=["old-driver-repeated", "new-driver"])
def test_a_paste_reads_a_gpu_health_finding_of_no_rank(tmp_path, lines, title):
    findings = pasted_findings(lines, tmp_path, None, None, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [("gpu-health", "critical", "gpu-init-failed", [])]
    assert findings[0]["title"].startswith(title)
