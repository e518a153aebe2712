"""A GPU container runtime's refusal to start a container, pasted (parsers/log_container_start.py, queries/gpu_startup.sql
``pasted``).

Before session 56 a pasted ``kubectl describe pod`` whose events hold the NVIDIA container toolkit's hook failing
(``nvidia-container-cli: initialization error: nvml error: driver/library version mismatch``), a node without the nvidia
runtime, Docker's ``could not select device driver "" with capabilities: [[gpu]]`` or the kubelet's ``Allocate failed due
to … nvidia.com/gpu`` gave "Nothing found": gpu-startup read start failures only from a capture's pods, containers and
events. Now the words are the job's start failure (warning, no pod, no rank: the node's, nothing ran), the cause and
its fix as gpu-startup names them.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted
from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 5, 18, 0, tzinfo=dt.timezone.utc)
HOOK = ("  Warning  Failed     12s (x3 over 40s)  kubelet  Error: failed to create containerd task: failed to create shim task: "
        "OCI runtime create failed: runc create failed: unable to start container process: error during container init: error "
        "running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'")
MISMATCH = "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown"
DESCRIBE = ["Events:", "  Type     Reason     Age                From     Message", HOOK, MISMATCH,
            "  Warning  BackOff    2s (x4 over 35s)   kubelet  Back-off restarting failed container pytorch in pod llama-worker-0"]


@pytest.mark.parametrize(
    ("line", "cause", "who"),
    [(MISMATCH, "toolkit-driver-mismatch", "nvidia-container-cli"),
     ("stderr: nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object "
      "file: no such file or directory: unknown", "toolkit-load-library", "nvidia-container-cli"),
     ("nvidia-container-cli: device error: 3: unknown device: unknown", "toolkit-device-error", "nvidia-container-cli"),
     ("nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver to a newer "
      "version, or use an earlier cuda container: unknown", "cuda-driver-too-old", "nvidia-container-cli"),
     ("  Warning  FailedCreatePodSandBox  2m  kubelet  Failed to create pod sandbox: rpc error: code = Unknown desc = failed "
      "to get sandbox runtime: no runtime for \"nvidia\" is configured", "no-nvidia-runtime", "container runtime"),
     ('docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
      "no-nvidia-runtime", "docker"),
     ("  Warning  UnexpectedAdmissionError  30s  kubelet  Allocate failed due to requested number of devices unavailable "
      "for nvidia.com/gpu. Requested: 8, Available: 7, which is unexpected", "device-plugin-unhealthy", "kubelet")],
    ids=["driver-mismatch", "load-library", "device-error", "cuda-too-old", "no-runtime", "docker-no-gpu-driver", "allocate"],
)
def test_a_runtimes_refusal_is_the_jobs_start_failure(line, cause, who):
    (ev,) = [e for e in classify(line) if e["kind"] == "container_start"]
    assert (ev["subkind"], ev["error_type"], ev.get("rank")) == (cause, who, None)


@pytest.mark.parametrize(
    "line",
    [HOOK, "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
     "[rank0]: using runtime nvidia, driver 550.54", "Allocate failed due to no memory for the page cache"],
    ids=["hook-alone", "cuda-runtime", "prose", "allocate-other"],
)
def test_other_lines_are_no_start_failure(line):
    assert [e for e in classify(line) if e["kind"] == "container_start"] == []


def _startup(result: dict) -> list[tuple]:
    return [(f["severity"], f["cause"], f["ranks"], f["pods"]) for f in result["findings"] if f["rule"] == "gpu-startup"]


def test_a_pasted_describe_names_the_toolkits_driver_mismatch(tmp_path):
    result = analyze(pasted(DESCRIBE, tmp_path, None, NOW))
    assert _startup(result) == [("warning", "toolkit-driver-mismatch", [], [])]
    assert naming_findings(result["findings"]) == []
    (f,) = [f for f in result["findings"] if f["rule"] == "gpu-startup"]
    assert "driver/library version mismatch" in f["summary"] and f["recommendation"].startswith("Reboot")
    assert result["incidents"][0]["root"]["rule"] == "gpu-startup"


def test_the_first_refusal_in_the_log_gives_the_cause(tmp_path):
    lines = ['docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].', MISMATCH]
    assert _startup(analyze(pasted(lines, tmp_path, None, NOW))) == [("warning", "no-nvidia-runtime", [], [])]


def test_a_rank_that_failed_once_started_stays_the_root(tmp_path):
    """The container failed to start, then (the node rebooted) ran and rank 1 failed: that failure is the root."""
    lines = DESCRIBE + ["[rank1]: Traceback (most recent call last):", '[rank1]:   File "train.py", line 9, in <module>',
                        "[rank1]: KeyError: 'labels'"]
    result = analyze(pasted(lines, tmp_path, 2, NOW))
    assert [(f["rule"], f["ranks"]) for f in naming_findings(result["findings"])] == [("rank-failure", [1])]
    assert result["incidents"][0]["root"]["rule"] == "rank-failure"
    assert _startup(result) == [("warning", "toolkit-driver-mismatch", [], [])]
