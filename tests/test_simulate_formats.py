"""The simulator's text looks like the real thing: XML, exposition, ss, logs, dmesg, objects."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pyarrow.parquet as pq
import pytest

from k10s_forensics.simulate import constants as C
from k10s_forensics.simulate import simulate
from simulate_helpers import check_ss, parse_exposition

LABELS = {"gpu", "UUID", "pci_bus_id", "device", "modelName", "DCGM_FI_DRIVER_VERSION", "container", "namespace", "pod"}
METRICS = {"DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_MEMORY_TEMP",
           "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL",
           "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
           "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "DCGM_FI_PROF_DRAM_ACTIVE"}
TS_PREFIX = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z ")


@pytest.fixture(scope="module")
def sims(tmp_path_factory):
    root = tmp_path_factory.mktemp("fmt")
    out = {}
    for scenario, seed, nodes, gpn in (("straggler-network", 21, 3, 4), ("oom-crashloop", 22, 2, 4), ("xid-79", 23, 2, 4),
                                       ("pending-capacity", 24, 4, 4), ("pending-quota", 25, 2, 4), ("pending-taint", 26, 2, 2),
                                       ("straggler-compute", 27, 2, 4)):
        path = root / scenario
        truth = simulate(scenario, path, seed=seed, nodes=nodes, gpus_per_node=gpn, minutes=8, interval_s=30, nproc_per_node=gpn)
        out[scenario] = (path, truth)
    return out


def rows(path, name):
    return pq.read_table(path / "raw" / f"{name}.parquet").to_pylist()


def test_dcgm_bodies_are_valid_exposition_with_the_real_label_set(sims):
    for scenario, (path, truth) in sims.items():
        scrapes = rows(path, "scrapes")
        for r in scrapes[:6] + scrapes[-6:]:
            assert r["source"] == C.SOURCE_DCGM and r["url"].startswith("/api/v1/namespaces/gpu-operator/pods/nvidia-dcgm-exporter-")
            assert r["url"].endswith(":9400/proxy/metrics")
            if r["status"] != 200:
                assert r["error"] and r["body"] == ""
                continue
            samples = parse_exposition(r["body"])
            names = {n for n, _, _ in samples}
            assert METRICS <= names | {"DCGM_FI_DEV_FB_RESERVED"}, METRICS - names
            for _, labels, _ in samples:
                assert LABELS <= set(labels) and ({"Hostname", "hostname"} & set(labels))
                assert labels["UUID"].startswith("GPU-") and re.fullmatch(r"00000000:[0-9A-F]{2}:00\.0", labels["pci_bus_id"])
                assert (labels["pod"] == "") == (labels["namespace"] == "")


def test_unallocated_gpus_have_empty_pod_labels_and_allocated_ones_name_the_pod(sims):
    path, truth = sims["pending-capacity"]
    bodies = [r["body"] for r in rows(path, "scrapes")[:8] if r["status"] == 200]
    pods = {labels["pod"] for body in bodies for _, labels, _ in parse_exposition(body)}
    assert "" in pods and len(pods) > 2
    assert any(p.startswith("triton-embed-") for p in pods)


def test_nvidia_smi_xml_parses_and_matches_dcgm(sims):
    path, _ = sims["straggler-compute"]
    xml_rows = [r for r in rows(path, "exec") if r["source"] == C.SOURCE_NVIDIA_SMI_XML]
    assert xml_rows
    uuids = set()
    for r in xml_rows:
        assert r["command"] == C.NVIDIA_SMI_XML_CMD and r["container"] == C.DRIVER_CONTAINER and r["namespace"] == "gpu-operator"
        root = ET.fromstring(r["stdout"].split("\n", 2)[2])
        assert root.tag == "nvidia_smi_log"
        for gpu in root.findall("gpu"):
            uuids.add(gpu.findtext("uuid"))
            assert gpu.find("clocks_event_reasons") is not None and gpu.find("gpu_power_readings") is not None
            assert gpu.findtext("fb_memory_usage/total").endswith(" MiB")
            assert gpu.findtext("temperature/gpu_temp").endswith(" C")
            draw = gpu.findtext("gpu_power_readings/power_draw") or gpu.findtext("gpu_power_readings/instant_power_draw")
            assert draw.endswith(" W")
    scrape = next(r["body"] for r in rows(path, "scrapes") if r["status"] == 200)
    assert uuids == {labels["UUID"] for _, labels, _ in parse_exposition(scrape)} | (uuids - {None})


def test_throttled_culprit_runs_hot_with_thermal_bits(sims):
    path, truth = sims["straggler-compute"]
    culprit = truth["expected"][0]["gpus"][0]
    last = [r for r in rows(path, "scrapes") if r["status"] == 200][-12:]
    vals = {}
    for r in last:
        for name, labels, v in parse_exposition(r["body"]):
            vals.setdefault((name, labels["UUID"]), v)
    reasons = "DCGM_FI_DEV_CLOCKS_EVENT_REASONS" if any(k[0] == "DCGM_FI_DEV_CLOCKS_EVENT_REASONS" for k in vals) else "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS"
    assert int(vals[(reasons, culprit)]) & 0x60 == 0x60
    peers = [u for (n, u) in vals if n == "DCGM_FI_DEV_POWER_USAGE" and u != culprit]
    assert all(vals[("DCGM_FI_DEV_POWER_USAGE", culprit)] > vals[("DCGM_FI_DEV_POWER_USAGE", u)] for u in peers)
    assert all(vals[("DCGM_FI_DEV_GPU_UTIL", u)] >= 95 for u in peers)


def test_ss_output_layout_and_degraded_pod(sims):
    path, truth = sims["straggler-network"]
    ss = [r for r in rows(path, "exec") if r["source"] == C.SOURCE_SS]
    assert ss and all(r["command"] == C.SS_CMD for r in ss)
    total = sum(check_ss(r["stdout"]) for r in ss if r["exit_code"] == 0)
    assert total > 0
    culprit = truth["expected"][0]["pods"][0].split("/")[1]
    last = next(r["stdout"] for r in reversed(ss) if r["pod"] == culprit and r["exit_code"] == 0)
    rtts = [float(m) for m in re.findall(r" rtt:([0-9.]+)/", last)]
    assert max(rtts) > 5 and "retrans:0/" in last and "bytes_retrans:" in last
    assert f":{C.MASTER_PORT[truth['job_kind']]}" in "".join(r["stdout"] for r in ss)


def test_logs_have_timestamp_prefixes_and_incident_lines(sims):
    for scenario, (path, truth) in sims.items():
        for r in rows(path, "logs"):
            for line in r["body"].splitlines():
                assert TS_PREFIX.match(line), (scenario, line)
    path, truth = sims["oom-crashloop"]
    logs = rows(path, "logs")
    text = "\n".join(r["body"] for r in logs)
    assert "CUDA out of memory" in text and "attempts left; will restart worker group" in text
    assert any(r["previous"] for r in logs)
    assert "ChildFailedError" in text
    culprit_pod = truth["expected"][0]["pods"][0].split("/")[1]
    assert any("CUDA out of memory" in r["body"] for r in logs if r["pod"] == culprit_pod)
    assert not any("CUDA out of memory" in r["body"] for r in logs if r["pod"] != culprit_pod)


def test_visible_devices_and_dmesg(sims):
    path, truth = sims["xid-79"]
    execs = rows(path, "exec")
    vis = [r for r in execs if r["source"] == C.SOURCE_VISIBLE_DEVICES]
    assert vis and all(r["command"] == C.VISIBLE_DEVICES_CMD and re.fullmatch(r"(GPU-[0-9a-f-]+,?)+\n", r["stdout"]) for r in vis)
    dm = [r for r in execs if r["source"] == C.SOURCE_DMESG]
    assert len(dm) == 2 and all(r["command"] == C.DMESG_CMD for r in dm)
    for r in dm:
        for line in r["stdout"].splitlines():
            assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d,\d{6}\+00:00 ", line), line
    xid = [l for r in dm for l in r["stdout"].splitlines() if "NVRM: Xid" in l]
    assert len(xid) == 1 and ": 79, pid=" in xid[0] and "GPU has fallen off the bus." in xid[0]
    node = truth["expected"][0]["nodes"][0]
    nodes = [json.loads(o["body"]) for o in rows(path, "objects") if o["kind"] == "Node" and o["name"] == node]
    alloc = [int(n["status"]["allocatable"]["nvidia.com/gpu"]) for n in nodes]
    assert alloc[0] - alloc[-1] == 1


def test_objects_look_like_the_api(sims):
    path, truth = sims["pending-taint"]
    objects = rows(path, "objects")
    kinds = {o["kind"] for o in objects}
    assert {"Node", "Namespace", "Pod", "Event"} <= kinds
    times = sorted({o["captured_at"] for o in objects})
    assert len(times) == 2
    for o in objects:
        body = json.loads(o["body"])
        md = body["metadata"]
        assert md["uid"] == o["uid"] and md["name"] == o["name"] and md["resourceVersion"] and md["creationTimestamp"]
    node = json.loads(next(o["body"] for o in objects if o["kind"] == "Node"))
    labels = node["metadata"]["labels"]
    assert {"nvidia.com/gpu.product", "nvidia.com/gpu.memory", "nvidia.com/gpu.count"} <= set(labels)
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"} in node["spec"]["taints"]
    ops = [json.loads(o["body"]) for o in objects if o["namespace"] == "gpu-operator" and o["kind"] == "Pod"]
    assert {p["metadata"]["labels"]["app"] for p in ops} == {"nvidia-dcgm-exporter", "nvidia-driver-daemonset"}
    events = [json.loads(o["body"]) for o in objects if o["kind"] == "Event"]
    grammar = re.compile(r"^0/(\d+) nodes are available: \1 node\(s\) had untolerated taint \{nvidia\.com/gpu: present\}\. preemption: ")
    assert events and all(grammar.match(e["message"]) for e in events)


def test_pending_capacity_and_quota_messages(sims):
    path, truth = sims["pending-capacity"]
    objects = rows(path, "objects")
    msgs = [json.loads(o["body"])["message"] for o in objects if o["kind"] == "Event"]
    assert msgs and all(re.match(r"^0/4 nodes are available: 4 Insufficient nvidia\.com/gpu\. preemption: ", m) for m in msgs)
    pods = [json.loads(o["body"]) for o in objects if o["kind"] == "Pod" and o["namespace"] not in ("gpu-operator",)]
    phases = {p["status"]["phase"] for p in pods}
    assert {"Running", "Pending"} <= phases
    path, truth = sims["pending-quota"]
    objects = rows(path, "objects")
    assert {"ResourceFlavor", "ClusterQueue", "LocalQueue", "Workload"} <= {o["kind"] for o in objects}
    wl = json.loads(next(o["body"] for o in objects if o["kind"] == "Workload"))
    cond = wl["status"]["conditions"][0]
    assert cond["type"] == "QuotaReserved" and cond["status"] == "False"
    assert re.fullmatch(r"couldn't assign flavors to pod set \w+: insufficient unused quota for nvidia\.com/gpu in flavor [\w-]+, \d+ more needed", cond["message"])
    assert not any(o["kind"] == "Pod" and o["namespace"] != "gpu-operator" for o in objects)
