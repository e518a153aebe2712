"""A real Alertmanager (Debian's ``prometheus-alertmanager``) posts to the watcher's
webhook receiver; the alert is matched to the job by its pod label and captured once."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

from watch_helpers import incident_dirs, make_bundle, serve, stub_analysis, wait_for, watcher

AM = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
pytestmark = pytest.mark.skipif(AM is None, reason="prometheus-alertmanager not installed (./dev.sh setup installs it)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alertmanager(tmp_path, webhook: str):
    config = tmp_path / "alertmanager.yml"
    config.write_text(
        "route:\n  receiver: k10s\n  group_by: [alertname, namespace, pod]\n  group_wait: 0s\n  group_interval: 1s\n"
        "  repeat_interval: 1h\nreceivers:\n  - name: k10s\n    webhook_configs:\n"
        f"      - url: {webhook}\n        send_resolved: false\n")
    port = _free_port()
    proc = subprocess.Popen([AM, f"--config.file={config}", f"--storage.path={tmp_path / 'am-data'}",
                             f"--web.listen-address=127.0.0.1:{port}", "--cluster.listen-address=", "--log.level=warn"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"

    def ready():
        try:
            return urllib.request.urlopen(f"{url}/-/ready", timeout=1).status == 200
        except OSError:
            return False

    wait_for(ready, timeout_s=20, step_s=0.2)
    return proc, url


def test_a_real_alertmanager_alert_starts_one_capture(tmp_path, monkeypatch):
    stub_analysis(monkeypatch)
    bundle, truth = make_bundle(tmp_path)
    srv, play, _log = serve(bundle, None, clock=False)
    w = watcher(srv, tmp_path)
    proc, am_url = _alertmanager(tmp_path, f"{w.url}/alertmanager")
    try:
        ns, job = truth["job"].split("/")
        worker = next(n for n in play.originals if n != play.culprit)
        alerts = [{"labels": {"alertname": "DCGMXidErrors", "severity": "critical", "namespace": ns, "pod": worker,
                              "UUID": "GPU-0000", "Hostname": "node-x"},
                   "annotations": {"summary": "Xid 79 on a GPU of the job"}}]
        for _ in range(2):  # the same alert twice: still one incident
            req = urllib.request.Request(f"{am_url}/api/v2/alerts", data=json.dumps(alerts).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
            assert urllib.request.urlopen(req, timeout=5).status == 200
            time.sleep(0.2)
        wait_for(lambda: [d for d in incident_dirs(tmp_path / "out") if (d / "incident.json").is_file()
                          and not d.name.endswith(".partial")], timeout_s=30)
        doc = json.loads((incident_dirs(tmp_path / "out")[0] / "incident.json").read_text())
        assert doc["job"] == truth["job"] and doc["triggers"][0]["reason"] == "alert-DCGMXidErrors"
        assert len(incident_dirs(tmp_path / "out")) == 1
    finally:
        proc.terminate()
        proc.wait(10)
        w.stop(5)
        srv.stop()
