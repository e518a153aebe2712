"""Real kubectl against ``k10s serve``: get (tables), describe, logs, exec, delete, paging."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from k10s_forensics.serve import start_server
from serve_helpers import WORKER1_CURRENT, WORKER1_PREVIOUS, build_bundle, nvidia_xml

KUBECTL = shutil.which("kubectl") or ("/usr/bin/kubectl" if Path("/usr/bin/kubectl").exists() else None)
pytestmark = [pytest.mark.kubectl, pytest.mark.skipif(KUBECTL is None, reason="kubectl binary not installed")]


@pytest.fixture(scope="module")
def kube(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve-kubectl")
    bundle = build_bundle(root / "bundle")
    server = start_server(bundle)
    kubeconfig = server.write_kubeconfig(root / "kubeconfig")
    home = root / "home"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "KUBECONFIG": str(kubeconfig)}

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([KUBECTL, "--kubeconfig", str(kubeconfig), *args], env=env, capture_output=True,
                              text=True, timeout=60)
        if check and proc.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
        return proc

    run.server = server  # type: ignore[attr-defined]
    yield run
    server.stop()


def table(text: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of kubectl's column output (columns split on 2+ spaces)."""
    import re

    lines = [line for line in text.splitlines() if line.strip()]
    split = [re.split(r"\s{2,}", line.strip()) for line in lines]
    return split[0], split[1:]


def test_get_pods_all_namespaces_prints_pod_columns(kube):
    header, rows = table(kube("get", "pods", "-A").stdout)
    assert header == ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    by_name = {r[1]: r for r in rows}
    assert set(by_name) == {"nvidia-dcgm-exporter-x7k2p", "llama-ft-launcher", "llama-ft-worker-0", "llama-ft-worker-1",
                            "bert-pretrain-0"}  # warmup-0 only existed in the first listing
    assert by_name["llama-ft-worker-1"][2:5] == ["0/1", "CrashLoopBackOff", "3 (2m ago)"]
    assert by_name["llama-ft-worker-0"][2:4] == ["2/2", "Running"]
    assert by_name["bert-pretrain-0"][3] == "Pending"
    assert by_name["llama-ft-worker-0"][5] == "10m"  # age relative to the bundle's window end


def test_short_name_and_wide_columns(kube):
    header, rows = table(kube("get", "po", "-n", "team-a", "-o", "wide").stdout)
    assert header[:7] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"]
    row = next(r for r in rows if r[0] == "llama-ft-worker-1")
    assert row[5:7] == ["10.244.2.7", "gpu-node-2"]


def test_get_nodes_wide(kube):
    header, rows = table(kube("get", "nodes", "-o", "wide").stdout)
    assert header[:6] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP"]
    assert "KERNEL-VERSION" in header and "CONTAINER-RUNTIME" in header
    by_name = {r[0]: r for r in rows}
    assert by_name["gpu-node-2"][1] == "Ready,SchedulingDisabled"
    assert by_name["gpu-node-1"][1:6] == ["Ready", "gpu", "3d", "v1.31.2", "10.0.1.11"]


def test_label_and_field_selectors(kube):
    _, rows = table(kube("get", "pods", "-n", "team-a", "-l", "app=llama,role in (worker)").stdout)
    assert sorted(r[0] for r in rows) == ["llama-ft-worker-0", "llama-ft-worker-1"]
    _, rows = table(kube("get", "pods", "-A", "--field-selector", "spec.nodeName=gpu-node-1").stdout)
    assert sorted(r[1] for r in rows) == ["llama-ft-launcher", "llama-ft-worker-0", "nvidia-dcgm-exporter-x7k2p"]
    _, rows = table(kube("get", "pods", "-A", "--field-selector", "status.phase!=Running").stdout)
    assert [r[1] for r in rows] == ["bert-pretrain-0"]
    proc = kube("get", "pods", "-A", "-l", "app=nothing-like-this")
    assert "No resources found" in proc.stderr


def test_get_pytorchjobs_and_jobs(kube):
    header, rows = table(kube("get", "pytorchjobs", "-n", "team-a").stdout)
    assert header == ["NAME", "STATE", "AGE"]
    assert rows == [["llama-ft", "Running", "11m"]]
    header, rows = table(kube("get", "jobs", "-n", "team-a").stdout)
    assert header == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    assert rows[0][:4] == ["nccl-test", "Complete", "1/1", "2m"]


def test_get_events_and_yaml(kube):
    _, rows = table(kube("get", "events", "-n", "team-a").stdout)
    reasons = {r[2]: r for r in rows}
    assert reasons["BackOff"][1] == "Warning" and reasons["BackOff"][3] == "pod/llama-ft-worker-1"
    out = kube("get", "pod", "-n", "team-a", "llama-ft-worker-0", "-o", "jsonpath={.status.podIP} {.spec.nodeName}").stdout
    assert out == "10.244.1.5 gpu-node-1"


def test_describe_pod_shows_its_events(kube):
    out = kube("describe", "pod", "-n", "team-a", "llama-ft-worker-1").stdout
    assert "Node:" in out and "gpu-node-2" in out
    assert "CrashLoopBackOff" in out and "OOMKilled" in out
    assert "Back-off restarting failed container pytorch" in out  # events found by fieldSelector
    assert "Successfully assigned" not in out  # that event belongs to worker-0


def test_logs_current_and_previous(kube):
    out = kube("logs", "-n", "team-a", "llama-ft-worker-1").stdout
    assert out.splitlines() == [text for _, text in WORKER1_CURRENT]
    out = kube("logs", "-n", "team-a", "llama-ft-worker-1", "--previous", "--tail", "1", "--timestamps").stdout
    assert out.startswith("2026-01-10T10:07:54.123456789Z ")
    assert out.rstrip("\n").endswith(WORKER1_PREVIOUS[-1][1])
    proc = kube("logs", "-n", "team-a", "llama-ft-launcher", check=False)
    assert proc.returncode != 0 and "not captured" in proc.stderr


def test_exec_replays_recorded_output_in_rounds(kube):
    kube.server.reset()
    first = kube("exec", "-n", "team-a", "llama-ft-worker-0", "-c", "pytorch", "--", "nvidia-smi", "-q", "-x").stdout
    assert first == nvidia_xml()
    second = kube("exec", "-n", "team-a", "llama-ft-worker-0", "-c", "pytorch", "--", "nvidia-smi", "-q", "-x").stdout
    assert second == nvidia_xml().replace("</nvidia_smi_log>", "<!-- round 2 --></nvidia_smi_log>")
    third = kube("exec", "-n", "team-a", "llama-ft-worker-0", "--", "nvidia-smi", "-q", "-x").stdout  # default container
    assert third == second


def test_exec_exit_codes(kube):
    proc = kube("exec", "-n", "team-a", "llama-ft-worker-0", "--", "printenv", "NVIDIA_VISIBLE_DEVICES", check=False)
    assert proc.returncode == 1
    proc = kube("exec", "-n", "team-a", "llama-ft-worker-0", "--", "ls", "/", check=False)
    assert proc.returncode == 126 and "command not captured in this bundle" in proc.stderr
    proc = kube("exec", "-n", "team-a", "llama-ft-worker-0", "--", "dmesg", "-T", check=False)
    assert proc.returncode != 0 and "binary missing" in proc.stderr


def test_writes_are_refused(kube):
    proc = kube("delete", "pod", "-n", "team-a", "llama-ft-worker-0", check=False)
    assert proc.returncode != 0 and "MethodNotAllowed" in proc.stderr
    proc = kube("label", "node", "gpu-node-1", "x=y", check=False)
    assert proc.returncode != 0 and "does not allow this method" in proc.stderr
    _, rows = table(kube("get", "pods", "-n", "team-a").stdout)
    assert "llama-ft-worker-0" in [r[0] for r in rows]


def test_chunked_listing_returns_everything(kube):
    before = kube.server.stats()["counts"].get("list", 0)
    _, rows = table(kube("get", "pods", "-A", "--chunk-size", "2").stdout)
    assert len(rows) == 5
    assert kube.server.stats()["counts"]["list"] - before == 3  # 2 + 2 + 1


def test_raw_proxy_scrape(kube):
    kube.server.reset()
    path = "/api/v1/namespaces/gpu-operator/pods/nvidia-dcgm-exporter-x7k2p:9400/proxy/metrics"
    assert kube("get", "--raw", path).stdout.rstrip().endswith("} 97")
    assert kube("get", "--raw", path).stdout.rstrip().endswith("} 12")
