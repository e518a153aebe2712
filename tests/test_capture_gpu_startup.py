"""simulate startup-* → real ``k10s serve`` → capture: RuntimeClasses, operand pods and their
logs are collected, and the captured bundle names the same blocked pod and cause."""

from __future__ import annotations

import pytest

from k10s_forensics.analyze import analyze
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.capture import CaptureOptions, capture
from k10s_forensics.serve import Faults, start_server
from k10s_forensics.simulate import simulate

from capture_helpers import rows


def _capture(bundle, out):
    srv = start_server(bundle, faults=Faults())
    try:
        kubeconfig = srv.write_kubeconfig(out.parent / f"{out.name}.kubeconfig")
        return capture(out, kubeconfig=str(kubeconfig), options=CaptureOptions(duration_s=0, interval_s=0.15, timeout_s=10),
                       all_namespaces=True)
    finally:
        srv.stop()


@pytest.mark.parametrize("scenario", ["startup-no-runtime", "startup-device-plugin"])
def test_capture_collects_what_gpu_startup_reads(tmp_path, scenario):
    truth = simulate(scenario, tmp_path / "sim", seed=4, nodes=2, gpus_per_node=2, minutes=2, interval_s=30)
    out = tmp_path / "cap"
    _capture(tmp_path / "sim", out)
    kinds = {r["kind"] for r in rows(out, "objects")}
    statuses = {c["name"]: c["status"] for c in Bundle.open(out).manifest["collectors"]}
    assert "runtime-classes" in statuses and "gpu-operator-logs" in statuses
    if scenario == "startup-no-runtime":
        assert "RuntimeClass" in kinds and statuses["runtime-classes"] == "ok"
    else:  # the crash-looping device plugin's previous log, bounded, from the operand pod on the culprit's node
        logs = [r for r in rows(out, "logs") if r["pod"].startswith("nvidia-device-plugin-daemonset-")]
        assert statuses["gpu-operator-logs"] == "ok" and any("nvml init failed" in (r["body"] or "") and r["previous"] for r in logs)
        assert {r["node"] for r in logs} == set(truth["expected"][0]["nodes"])
    findings = [f for f in analyze(Bundle.open(out))["findings"] if f["rule"] == "gpu-startup" and f["severity"] != "info"]
    want = truth["expected"][0]
    assert [(f["cause"], f["pods"], f["nodes"]) for f in findings] == [(want["cause"], want["pods"], want["nodes"])]
