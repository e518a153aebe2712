"""GPU parsers on hostile, broken and variant input: counted issues, never exceptions."""

from __future__ import annotations

import datetime as dt
import json

import pyarrow as pa
import pytest

from k10s_forensics.parsers.dcgm import parse_dcgm_text
from k10s_forensics.parsers.dmesg import parse_dmesg
from k10s_forensics.parsers.gpu_common import capture_failure
from k10s_forensics.parsers.nvidia_smi_csv import parse_nvidia_smi_csv
from k10s_forensics.parsers.nvidia_smi_xml import parse_nvidia_smi_xml
from k10s_forensics.parsers.prometheus import node_of, parse_prometheus_query
from k10s_forensics.parsers.promtext import parse_labels, split_exposition

T0 = dt.datetime(2026, 11, 21, 10, 5, tzinfo=dt.timezone.utc)
GPU_XML = """<?xml version="1.0" ?>
<nvidia_smi_log><driver_version>550.1</driver_version>
<gpu id="00000000:3B:00.0"><product_name>NVIDIA H100 80GB HBM3</product_name><uuid>GPU-aaaa</uuid>
<fb_memory_usage><total>81559 MiB</total><used>100 MiB</used></fb_memory_usage>
<gpu_power_readings><power_draw>[N/A]</power_draw><average_power_draw>250.5 W</average_power_draw></gpu_power_readings>
</gpu></nvidia_smi_log>"""

BAD_TEXTS = {
    "truncated": GPU_XML[: len(GPU_XML) // 2],
    "binary": "\x00\x01\x02\xff\xfe garbage \x00 <<<>>>",
    "replacement chars": b"<nvidia_smi_log>\xff\xfe</nvidia_smi_log".decode("utf-8", errors="replace"),
    "huge line": "x" * (10 << 20),
    "empty": "",
    "html error page": "<html><body>503 Service Unavailable</body></html>",
}


@pytest.mark.parametrize("case", sorted(BAD_TEXTS))
def test_bad_input_never_raises(case: str) -> None:
    text = BAD_TEXTS[case]
    gpus, samples, issues = parse_nvidia_smi_xml(text)
    assert (gpus, samples) == ([], []) and len(issues) == 1 and issues[0][0]
    gpus, samples, issues = parse_nvidia_smi_csv(text, None, T0)
    assert samples == [] and issues
    rows, stats = parse_dcgm_text(text, node="n")
    assert rows == []
    rows, issues = parse_prometheus_query(text)
    assert rows == [] and issues
    rows, _ = parse_dmesg(text, T0)
    assert rows == []


def test_xml_reasons_are_precise() -> None:
    assert parse_nvidia_smi_xml(BAD_TEXTS["truncated"])[2][0][0] == "malformed XML"
    assert parse_nvidia_smi_xml("")[2][0][0] == "empty output"
    assert parse_nvidia_smi_xml(BAD_TEXTS["html error page"])[2][0][0] == "not an nvidia-smi XML document"


def test_xml_entity_bomb_rejected_fast() -> None:
    bomb = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{"&lol%s;" % (i - 1 if i else "") * 10}">' for i in range(1, 10)
    ) + "]><nvidia_smi_log>&lol9;</nvidia_smi_log>"
    gpus, samples, issues = parse_nvidia_smi_xml(bomb)
    assert (gpus, samples) == ([], []) and issues[0][0] == "XML with entity declarations rejected"


def test_xml_power_fallback_and_leading_noise() -> None:
    gpus, samples, issues = parse_nvidia_smi_xml("WARNING: infoROM is corrupted\n" + GPU_XML)
    assert issues == []
    assert samples[0]["power_w"] == 250.5  # [N/A] power_draw skipped, average_power_draw used
    assert gpus[0]["pci_bus_id"] == "0000:3b:00.0" and gpus[0]["memory_total_mib"] == 81559


def test_csv_noheader_named_by_command_only() -> None:
    text = "0, GPU-a, 00000000:3B:00.0, 45, 300.5, 0x0000000000000044\n1, GPU-b, 00000000:3C:00.0, 99, 700, 0x0000000000000000\n"
    cmd = "nvidia-smi --query-gpu=index,uuid,pci.bus_id,utilization.gpu,power.draw,clocks_throttle_reasons.active --format=csv,noheader,nounits"
    _, samples, issues = parse_nvidia_smi_csv(text, cmd, T0)
    assert issues == []
    assert [(s["gpu_uuid"], s["gpu_index"], s["util_pct"], s["power_w"], s["throttle_reasons"]) for s in samples] == [
        ("GPU-a", 0, 45, 300.5, 0x44),
        ("GPU-b", 1, 99, 700, 0),
    ]
    assert parse_nvidia_smi_csv(text, "nvidia-smi", T0)[2][0][0] == "csv without header"


def test_csv_units_na_and_timestamp_timezone() -> None:
    text = (
        "timestamp, uuid, memory.used [MiB], memory.total [MiB], power.draw [W], power.draw.instant [W], temperature.gpu\n"
        "2026/11/21 12:04:59.500, GPU-a, 1024 MiB, 81559 MiB, 300.00 W, [N/A], [Not Supported]\n"
        "2026/11/21 12:05:00.500, GPU-a, 2048 MiB, 81559 MiB, 310.00 W, [N/A], 55\n"
    )
    _, samples, issues = parse_nvidia_smi_csv(text, None, T0)  # host clock is UTC+2
    assert issues == []
    assert [s["ts"] for s in samples] == [T0 - dt.timedelta(milliseconds=500), T0 + dt.timedelta(milliseconds=500)]
    assert [s["power_w"] for s in samples] == [300.0, 310.0] and samples[0]["temp_c"] is None and samples[1]["fb_used_mib"] == 2048


def test_csv_ragged_row_counted() -> None:
    _, samples, issues = parse_nvidia_smi_csv("uuid, power.draw [W]\nGPU-a, 10 W\nGPU-b\n", None, T0)
    assert len(samples) == 1 and issues[0][0].startswith("csv row with a different number of fields")


DCGM_TEXT = """# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-a",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",hostname="dcgm-exporter-x7",DCGM_FI_DRIVER_VERSION="550.54.15",container="trainer",namespace="team-a",pod="llama-worker-0"} 1000
DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-a",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",hostname="dcgm-exporter-x7",DCGM_FI_DRIVER_VERSION="550.54.15",container="trainer",namespace="team-a",pod="llama-worker-0"} 79000
DCGM_FI_DEV_FB_RESERVED{gpu="0",UUID="GPU-a",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",hostname="dcgm-exporter-x7",DCGM_FI_DRIVER_VERSION="550.54.15",container="trainer",namespace="team-a",pod="llama-worker-0"} 559
DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{gpu="0",UUID="GPU-a",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",hostname="dcgm-exporter-x7",DCGM_FI_DRIVER_VERSION="550.54.15",container="trainer",namespace="team-a",pod="llama-worker-0"} 96
DCGM_FI_DEV_XID_ERRORS{pod="llama-worker-0",namespace="team-a",container="trainer",UUID="GPU-a",gpu="0",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",hostname="dcgm-exporter-x7",DCGM_FI_DRIVER_VERSION="550.54.15",err_code="79",err_msg="GPU has fallen {off} the bus"} 79
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-b",pod="",namespace="",container=""} NaN
DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-b",pod="",namespace="",container=""} 41 1763719500000
DCGM_FI_DEV_GPU_UTIL{gpu="2"} 5
go_goroutines 42
DCGM_FI_DEV_SM_CLOCK{gpu="1",UUID="GPU-b" 1
this is not a metric line
"""


def test_dcgm_variants_pivot_and_counts() -> None:
    rows, stats = parse_dcgm_text(DCGM_TEXT, node="gpu-node-7", captured_at=T0)
    by = {r["gpu_uuid"]: r for r in rows}
    a, b = by["GPU-a"], by["GPU-b"]
    assert a["node"] == "gpu-node-7"  # the scrape's node, not the hostname label
    assert (a["fb_used_mib"], a["fb_total_mib"]) == (1000, 1000 + 79000 + 559)
    assert a["throttle_reasons"] == 96 and a["xid"] == 79  # label order and extra labels do not split the row
    assert (a["pod"], a["namespace"], a["container"], a["pci_bus_id"]) == ("llama-worker-0", "team-a", "trainer", "0000:1a:00.0")
    assert b["power_w"] is None and b["temp_c"] == 41 and b["pod"] is None
    assert b["ts"] == dt.datetime.fromtimestamp(1763719500, dt.timezone.utc)  # explicit sample timestamp
    assert a["ts"] == T0
    assert stats["no_uuid"] == 1 and stats["malformed"] == 2


def test_prometheus_matrix_and_errors() -> None:
    body = json.dumps(
        {
            "status": "success",
            "data": {
                "resultType": "matrix",
                "result": [
                    {"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "UUID": "GPU-a", "gpu": "0", "instance": "10.0.0.5:9400", "Hostname": "gpu-node-3", "pod": "w-0", "namespace": "ns"}, "values": [[1763719500, "97"], [1763719515, "98"]]},
                    {"metric": {"__name__": "DCGM_FI_DEV_POWER_USAGE", "UUID": "GPU-a", "gpu": "0", "instance": "10.0.0.5:9400", "Hostname": "gpu-node-3", "pod": "w-0", "namespace": "ns"}, "values": [[1763719500, "650.5"], [1763719515, "NaN"]]},
                    {"metric": {"UUID": "GPU-c", "node": "gpu-node-9"}, "values": [[1763719500, "3"]]},
                ],
            },
        }
    )
    rows, issues = parse_prometheus_query(body, "/api/v1/query_range?query=DCGM_FI_DEV_SM_CLOCK&start=1")
    by = {(r["gpu_uuid"], r["ts"].timestamp()): r for r in rows}
    first = by[("GPU-a", 1763719500)]
    assert (first["util_pct"], first["power_w"], first["node"], first["source"]) == (97, 650.5, "gpu-node-3", "prometheus-query")
    assert by[("GPU-a", 1763719515)].get("power_w") is None and by[("GPU-a", 1763719515)]["util_pct"] == 98
    assert by[("GPU-c", 1763719500)]["sm_clock_mhz"] == 3 and by[("GPU-c", 1763719500)]["node"] == "gpu-node-9"  # name from query=
    assert issues == []
    error = json.dumps({"status": "error", "errorType": "bad_data", "error": "parse error"})
    assert parse_prometheus_query(error)[1][0][0] == "query error: bad_data"
    assert node_of({"instance": "gpu-node-1:9400"}) == "gpu-node-1" and node_of({"instance": "10.1.2.3:9400"}) is None


def test_dmesg_timestamps_xid_and_oom() -> None:
    text = (
        "2026-11-21T10:01:02,123456+00:00 NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.\n"
        "[Sat Nov 21 10:02:03 2026] NVRM: Xid (PCI:0000:8A:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error\n"
        "[12345.678901] NVRM: Xid (PCI:0000:10:1c): 63, Row Remapper: New row marked for remapping\n"
        "[ 100.2] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task_memcg=/kubepods.slice/kubepods-burstable.slice/"
        "kubepods-burstable-pod1a2b3c4d_1111_2222_3333_444455556666.slice/cri-containerd-abc.scope,task=python,pid=4321,uid=0\n"
        "[ 100.3] Out of memory: Killed process 4321 (python) total-vm:1000kB\n"
        "[ 100.4] Memory cgroup out of memory: Killed process 999 (torchrun) total-vm:1kB\n"
        "an unrelated line\n"
    )
    rows, untimed = parse_dmesg(text, T0)
    got = [(r["kind"], r.get("xid"), r.get("bus_id"), r["ts"], r.get("pid")) for r in rows]
    assert got == [
        ("xid", 79, "0000:3b:00.0", dt.datetime(2026, 11, 21, 10, 1, 2, 123456, tzinfo=dt.timezone.utc), 1234),
        ("xid", 48, "0000:8a:00.0", dt.datetime(2026, 11, 21, 10, 2, 3, tzinfo=dt.timezone.utc), None),
        ("xid", 63, "0000:10:1c.0", T0, None),
        ("host_oom", None, None, T0, 4321),
        ("cgroup_oom", None, None, T0, 999),
    ]
    assert rows[3]["pod_uid"] == "1a2b3c4d-1111-2222-3333-444455556666" and untimed == 4


def test_capture_failure_reasons() -> None:
    assert capture_failure({"error": "timeout after 30s\nmore", "exit_code": None}) == "command failed: timeout after 30s"
    assert capture_failure({"error": None, "exit_code": 9}) == "command failed: exit code 9"
    assert capture_failure({"error": None, "status": 503}) == "fetch failed: HTTP 503"
    assert capture_failure({"error": None, "exit_code": 0, "status": None}) is None


def test_promtext_split_and_labels() -> None:
    s = split_exposition(pa.array(['a{x="1"} 1\r\nb 2 17\n# c\n\nc{y="} "} +Inf\n', None]))
    got = sorted(zip(s.body_index.tolist(), [s.names[i] for i in s.series_id], [s.label_blocks[i] for i in s.series_id], s.value.tolist(), s.timestamp_ms.tolist()))
    assert [g[:4] for g in got] == [(0, "a", 'x="1"', 1.0), (0, "b", "", 2.0), (0, "c", 'y="} "', float("inf"))]
    assert [g[4] for g in got][1] == 17 and s.malformed_count == 0 and s.lines_total == 3
    assert parse_labels('a="x\\"y",b=""') == {"a": 'x"y', "b": ""} and parse_labels("a=1", strict=True) is None
