"""Ctrl-C and the global deadline leave a valid bundle with ``complete: false`` (capture as a subprocess)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from k10s_forensics.store.bundle import Bundle, sha256_file
from k10s_forensics.serve import Faults, start_server
from k10s_forensics.simulate import simulate

from capture_helpers import rows


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("sim-int")
    simulate("healthy", root / "b", seed=2, nodes=3, gpus_per_node=2, minutes=1, interval_s=30)
    srv = start_server(root / "b", faults=Faults(latency_ms=80))
    kubeconfig = srv.write_kubeconfig(root / "kc.yaml")
    yield kubeconfig
    srv.stop()


def _start(kubeconfig, out, *extra):
    cmd = [sys.executable, "-m", "k10s_forensics", "capture", "--kubeconfig", str(kubeconfig), "-A", "-o", str(out),
           "--quiet", *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _assert_valid_incomplete(out, reason_part):
    bundle = Bundle.open(out)
    m = bundle.manifest
    assert m["complete"] is False
    assert reason_part in m["capture"]["stopped"]
    for rel, info in m["files"].items():
        assert sha256_file(out / rel) == info["sha256"], rel
    statuses = {c["name"]: c for c in m["collectors"]}
    assert set(statuses) >= {"pods", "nodes", "logs", "ss"}
    return bundle, statuses


def test_ctrl_c_midway_leaves_a_valid_incomplete_bundle(served, tmp_path):
    out = tmp_path / "interrupted"
    proc = _start(served, out, "--duration", "60s", "--interval", "0.5s")
    started = time.monotonic()
    # Wait until the start phase is checkpointed and a sampling round has begun.
    while time.monotonic() - started < 30:
        manifest = out / "manifest.json"
        if manifest.exists():
            m = json.loads(manifest.read_text())
            if any(c["name"] == "pods" for c in m.get("collectors", [])) and ((out / "raw" / "scrapes.parquet").exists() or (out / "raw" / "scrapes.parquet.partial").exists()):
                break
        if proc.poll() is not None:
            pytest.fail(f"capture ended early: {proc.communicate()}")
        time.sleep(0.1)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 130, stderr
    _bundle, statuses = _assert_valid_incomplete(out, "interrupted")
    objects = rows(out, "objects")
    assert any(r["kind"] == "Pod" for r in objects) and any(r["kind"] == "Node" for r in objects)
    assert any(r["source"] == "dcgm-exporter" for r in rows(out, "scrapes"))
    assert statuses["pods"]["rows"] > 0
    assert statuses["logs"]["status"] == "skipped" and "interrupted" in statuses["logs"]["errors"][0]


def test_global_deadline_leaves_a_valid_incomplete_bundle(served, tmp_path):
    out = tmp_path / "deadline"
    proc = _start(served, out, "--duration", "60s", "--interval", "0.5s", "--deadline", "2s")
    started = time.monotonic()
    stdout, stderr = proc.communicate(timeout=40)
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, stderr
    assert elapsed < 12, f"the 2s deadline took {elapsed:.1f}s"
    assert stdout.strip() == str(out)
    _bundle, statuses = _assert_valid_incomplete(out, "deadline reached")
    assert any(r["kind"] == "Pod" for r in rows(out, "objects"))
    assert statuses["nvidia-smi"]["rows"] > 0
