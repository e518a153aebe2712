"""GPU parsers against every real sample in tests/data/real-samples (hand-checked values)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from k10s_forensics.parsers.dcgm import parse_dcgm_text
from k10s_forensics.parsers.nvidia_smi_csv import parse_nvidia_smi_csv
from k10s_forensics.parsers.nvidia_smi_xml import parse_nvidia_smi_xml

SAMPLES = Path(__file__).resolve().parent / "data" / "real-samples"
CAPTURED = dt.datetime(2026, 7, 14, 8, 13, 0, tzinfo=dt.timezone.utc)


def _files(folder: str) -> list[str]:
    path = SAMPLES / folder
    return sorted(p.name for p in path.iterdir())


# file -> (uuids of physical GPUs in order, power_w of GPU 0, sm_clock of GPU 0, throttle mask of GPU 0,
#          fb_total_mib of GPU 0, number of MIG devices)
XML_EXPECTED = {
    "2x-rtx-a5000_driver-590.44.01_v13.xml": (["GPU-12345678-aaaa-bbbb-cccc-0123456789ab", "GPU-12345678-aaaa-bbbb-cccc-0123456789cd"], 6.52, 210, 0x1, 24564, 0),
    "a100-sxm4-40gb_driver-510.47.03_v11_mig.xml": (["GPU-27b94a00-ed54-5c24-b1fd-1054085de32a"], 66.92, 1410, 0, 40960, 2),
    "a100-sxm4-80gb_driver-535.54.03_v12_mig.xml": (["GPU-513536b6-7d19-9063-b049-1e69664bb298"], 67.03, 1275, 0, 81920, 4),
    "a10g_driver-515.105.01_v11.xml": (["GPU-9a9a6c50-2a47-2f51-a902-b82c3b127e94"], 25.58, 210, 0x1, 23028, 0),
    "gtx-1660-ti_driver-418.43_no-doctype.xml": (["GPU-304a277d-3545-63b8-3a36-dfde3c992989"], 8.93, 300, 0x1, 5912, 0),
    "quadro-p2000_driver-525.125.06_v12_power_readings.xml": (["GPU-396caaed-39ca-3199-2e68-717cdb786ec6"], 4.61, 139, 0x1, 5120, 0),
    "rtx-2080_driver-516.59-windows_v11_processes.xml": (["GPU-fbd55ed4-1eec-4423-0a47-ad594b4333e3"], 14.5, 193, 0x1, 8192, 0),
    "rtx-3060_driver-570.124.04_v12.xml": (["GPU-d6889ff6-2523-9142-ca3c-1ca3f396a625"], 11.63, 210, 0x1, 12288, 0),
    "rtx-3080_driver-595.58.03_v13.xml": (["GPU-19d6d965-2acc-f646-00f8-4c76979aabb4"], 142.33, 1950, 0, 10240, 0),
    "rtx-4000-sff-ada_driver-595.84_v13.xml": (["GPU-37037c3f-65c8-ec4d-24a9-420204ad8026"], 8.44, 210, 0x1, 20475, 0),
    "rtx-4090_driver-535.86.05_v12.xml": (["GPU-71d1acc2-662d-2166-bf9f-65272d2fc437"], 26.84, 210, 0x1, 24564, 0),
    "rtx-pro-6000-blackwell-maxq_driver-590.44.01_v13.xml": (["GPU-12345678-aaaa-bbbb-cccc-0123456789ab"], 3.99, 180, 0, 97887, 0),
    "tesla-p100-pcie-16gb_driver-510.47.03_v11.xml": (["GPU-d3da8716-eaab-75db-efc1-60e88e1cd55e"], 26.16, 405, 0x1, 16384, 0),
    "tesla-t4_driver-515.105.01_v11.xml": (["GPU-d37e67a5-91dd-3774-a5cb-99096249601a"], 26.78, 585, 0, 15360, 0),
}


@pytest.mark.parametrize("name", _files("nvidia-smi-xml"))
def test_every_nvidia_smi_xml_sample(name: str) -> None:
    assert name in XML_EXPECTED, f"new sample {name}: add hand-checked values to XML_EXPECTED"
    uuids, power, sm_clock, throttle, fb_total, n_mig = XML_EXPECTED[name]
    gpus, samples, issues = parse_nvidia_smi_xml((SAMPLES / "nvidia-smi-xml" / name).read_text(encoding="utf-8", errors="replace"))
    assert issues == []
    physical = [g for g in gpus if not g["is_mig"]]
    assert [g["gpu_uuid"] for g in physical] == uuids
    assert [g["gpu_index"] for g in physical] == list(range(len(uuids)))
    first = next(s for s in samples if s["gpu_uuid"] == uuids[0])
    assert first["power_w"] == pytest.approx(power)
    assert first["sm_clock_mhz"] == sm_clock
    assert first["throttle_reasons"] == throttle
    assert first["fb_total_mib"] == fb_total
    migs = [g for g in gpus if g["is_mig"]]
    assert len(migs) == n_mig
    for g in migs:
        assert g["parent_gpu_uuid"] == uuids[0]
        assert g["gpu_uuid"] == f"MIG-{uuids[0]}/{g['gpu_instance_id']}"
        assert g["memory_total_mib"] == 19968


def test_xml_details_ecc_retired_remapped_power_limit() -> None:
    p100 = (SAMPLES / "nvidia-smi-xml" / "tesla-p100-pcie-16gb_driver-510.47.03_v11.xml").read_text()
    gpus, samples, _ = parse_nvidia_smi_xml(p100)
    # old single_bit/double_bit form: aggregate single_bit total is 3 in this capture
    assert (gpus[0]["ecc_sbe_aggregate"], gpus[0]["ecc_dbe_aggregate"], gpus[0]["retired_pages"]) == (3, 0, 0)
    a10g, _, _ = parse_nvidia_smi_xml((SAMPLES / "nvidia-smi-xml" / "a10g_driver-515.105.01_v11.xml").read_text())
    assert (a10g[0]["remapped_rows_uncorrectable"], a10g[0]["remapped_rows_pending"], a10g[0]["remapped_rows_failure"]) == (0, False, False)
    a100, a100_samples, _ = parse_nvidia_smi_xml((SAMPLES / "nvidia-smi-xml" / "a100-sxm4-80gb_driver-535.54.03_v12_mig.xml").read_text())
    assert a100[0]["power_limit_w"] == 500.0 and a100[0]["mig_mode"] == "Enabled" and a100[0]["driver_version"] == "535.54.03"
    assert a100_samples[0]["util_pct"] is None  # N/A while MIG is enabled
    gtx, _, _ = parse_nvidia_smi_xml((SAMPLES / "nvidia-smi-xml" / "gtx-1660-ti_driver-418.43_no-doctype.xml").read_text())
    assert gtx[0]["serial"] is None and gtx[0]["power_limit_w"] == 130.0  # N/A serial, power_readings/enforced_power_limit


def test_xml_throttle_bitmask_from_active_children() -> None:
    text = (SAMPLES / "nvidia-smi-xml" / "rtx-3080_driver-595.58.03_v13.xml").read_text()
    for reason in ("sw_thermal_slowdown", "hw_slowdown", "sw_power_cap"):
        tag = f"clocks_event_reason_{reason}"
        text = text.replace(f"<{tag}>Not Active</{tag}>", f"<{tag}>Active</{tag}>")
    _, samples, _ = parse_nvidia_smi_xml(text)
    assert samples[0]["throttle_reasons"] == 0x20 | 0x8 | 0x4


# file -> (uuid, power_w, sm_clock, throttle, fb_used, util) ; None marks an expected issue
CSV_EXPECTED = {
    "h100-80gb-hbm3_driver-590.48.01_query-gpu-allfields_load.csv": ("GPU-00000000-0000-0000-0000-000000000000", 625.68, 1980, 0, 19818, 100),
    "h100-mig_driver-590.48.01_query-compute-apps_load.csv": None,
    "h100-mig_driver-590.48.01_query-gpu-allfields_load.csv": ("GPU-00000000-0000-0000-0000-000000000000", 447.35, 1980, 0, 11125, None),
    "h200_driver-590.48.01_query-gpu-allfields_load.csv": ("GPU-00000000-0000-0000-0000-000000000000", 626.26, 1980, 0, 32362, 100),
    "l40s_driver-595.80_query-gpu-allfields_load.csv": ("GPU-00000000-0000-0000-0000-000000000000", 112.38, 2520, 0, 1235, 9),
    "rtx-2080-super_driver-591.86-windows_query-gpu-allfields_load.csv": ("GPU-00000000-0000-0000-0000-000000000000", 97.43, 2055, 0x1, 1296, 7),
    "rtx-2080-super_driver-610.57.04_query-gpu-allfields_load.csv": ("GPU-00000000-0000-0000-0000-000000000000", 98.14, 2070, 0, 815, 8),
    "tesla-p100-pcie-16gb_driver-510.47.03_query-gpu.csv": ("GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6", 28.16, 405, None, 0, 0),
}


@pytest.mark.parametrize("name", _files("nvidia-smi-csv"))
def test_every_nvidia_smi_csv_sample(name: str) -> None:
    assert name in CSV_EXPECTED, f"new sample {name}: add hand-checked values to CSV_EXPECTED"
    gpus, samples, issues = parse_nvidia_smi_csv((SAMPLES / "nvidia-smi-csv" / name).read_text(), None, CAPTURED)
    expected = CSV_EXPECTED[name]
    if expected is None:
        assert (gpus, samples) == ([], [])
        assert [r for r, _ in issues] == ["not a GPU query (--query-compute-apps output)"]
        return
    uuid, power, sm_clock, throttle, fb_used, util = expected
    assert issues == [] and len(samples) == 1 and len(gpus) == 1
    s = samples[0]
    assert (s["gpu_uuid"], s["sm_clock_mhz"], s["throttle_reasons"], s["fb_used_mib"], s["util_pct"]) == (uuid, sm_clock, throttle, fb_used, util)
    assert s["power_w"] == pytest.approx(power)  # power.draw.instant preferred over power.draw
    assert abs(s["ts"] - CAPTURED) < dt.timedelta(minutes=8)  # time-zone shift applied, clock kept


def test_csv_p100_total_from_used_free_reserved() -> None:
    _, samples, _ = parse_nvidia_smi_csv((SAMPLES / "nvidia-smi-csv" / "tesla-p100-pcie-16gb_driver-510.47.03_query-gpu.csv").read_text(), None, CAPTURED)
    assert samples[0]["fb_total_mib"] == 0 + 16280 + 103
    assert samples[0]["ts"] == CAPTURED  # no timestamp column


# file -> {gpu_uuid: {column: value}} for a few hand-checked rows, and the number of rows
DCGM_EXPECTED = {
    "a100-80gb-pcie-mig_compat-lowercase-names_dcgm-exporter-issue272_excerpt.prom": (3, {"MIG-GPU-ed1353d6-52ba-8793-7230-4d5d3eb68167/2": {"mig_profile": "4g.40gb", "gr_engine_active": 0.0, "pod": None}}),
    "a100-80gb-pcie-mig_dra-driver-issue166_excerpt.prom": (3, {"MIG-GPU-2c2f45e8-0886-e3cc-02be-a4181a13fc9b/9": {"gr_engine_active": 0.033893, "pci_bus_id": "0001:00:00.0", "gpu_instance_id": 9}}),
    "a30-mig_empty-pod-labels_dcgm-exporter-issue68_excerpt.prom": (1, {"MIG-GPU-603a8873-0edd-c157-ce48-2078e8b1a935/1": {"gr_engine_active": 0.381124, "tensor_active": 0.022137, "namespace": None}}),
    "dcgm-1x-compat-names_dcgm-exporter-issue188_excerpt.prom": (1, {"GPU-c1f38265-5e7c-0a81-14a0-240a35ea8160": {"sm_clock_mhz": 585, "mem_clock_mhz": 5000, "temp_c": 54, "power_w": 30.982, "util_pct": 0}}),
    "dcgm-exporter-2.0_no-modelname_gpu-monitoring-tools-issue138_excerpt.prom": (1, {"GPU-6bf47ca9-ad3e-15db-beed-1079a7d74116": {"util_pct": 44, "power_w": 302.206, "mem_temp_c": 54, "model_name": None}}),
    "h100-80gb-hbm3_pod-labels-populated_dcgm-exporter-issue272-comment_excerpt.prom": (3, {"GPU-0c1372db-bb1d-8346-2259-0d3a03ba7e24": {"pod": "functional-0", "namespace": "kbf-i354164", "container": "functional"}, "GPU-45e15172-50a7-7489-52c1-f796d686a89b": {"mem_copy_util_pct": 31, "pod": "test-h100-0"}}),
    "h100-mig_pod-labels_dcgm-exporter-issue512_excerpt.prom": (3, {"MIG-GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77/8": {"pod": None}, "MIG-GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77/9": {"pod": "tts-predictor-00011-deployment-5554f75554-8j8pl", "pci_bus_id": "0000:1a:00.0"}}),
    "legacy-pod-gpu-metrics-exporter_pod-labels_gpu-monitoring-tools-readme.prom": (2, {"GPU-9567a9e7-341e-bb7e-fcf5-788d8caa50f9": {"temp_c": 34, "mem_clock_mhz": 810, "pod": "pod1", "namespace": "default", "container": "pod1-ctr", "gpu_index": 1}}),
    "titan-v-8gpu_empty-pod-labels_dcgm-exporter-issue58_excerpt.prom": (5, {"GPU-58fae45b-e5a5-0c62-d478-8ff7c485e74e": {"sm_clock_mhz": 1335, "model_name": "NVIDIA TITAN V", "gpu_index": 4}}),
}


@pytest.mark.parametrize("name", _files("dcgm-exporter"))
def test_every_dcgm_exporter_sample(name: str) -> None:
    assert name in DCGM_EXPECTED, f"new sample {name}: add hand-checked values to DCGM_EXPECTED"
    n_rows, checks = DCGM_EXPECTED[name]
    rows, stats = parse_dcgm_text((SAMPLES / "dcgm-exporter" / name).read_text(), node="gpu-node-1", captured_at=CAPTURED)
    assert (stats["malformed"], stats["bad_values"], stats["bad_labels"], stats["no_uuid"]) == (0, 0, 0, 0)
    assert len(rows) == n_rows
    by_uuid = {r["gpu_uuid"]: r for r in rows}
    for uuid, expected in checks.items():
        row = by_uuid[uuid]
        for column, value in expected.items():
            assert row[column] == (pytest.approx(value) if isinstance(value, float) else value), (uuid, column)
    assert all(r["node"] == "gpu-node-1" and r["ts"] == CAPTURED and r["source"] == "dcgm-exporter" for r in rows)
