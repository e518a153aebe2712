"""``k10s watch`` under faults, against ``k10s serve`` playing an incident: the API server
going away (and its watch history compacted) while the rank fails, a storm of 100 failing
pods, hostile webhook bodies. Analysis is stubbed here (test_watch_incident.py runs it)."""

from __future__ import annotations

import copy
import http.client
import json
import os
import subprocess
import time

import pytest

from k10s_forensics.serve.live import outage
from k10s_forensics.serve.play import PODS

from watch_helpers import incident_dirs, make_bundle, non_get_requests, serve, stub_analysis, wait_for, watcher


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    return make_bundle(tmp_path_factory.mktemp("watch-faults"))[0]


def _incident(out):
    dirs = [d for d in incident_dirs(out) if (d / "incident.json").is_file() and not d.name.endswith(".partial")]
    return json.loads((dirs[0] / "incident.json").read_text()) if dirs else None


def test_api_server_away_while_the_rank_fails_no_incident_missed_no_duplicate(bundle, tmp_path, monkeypatch):
    stub_analysis(monkeypatch)
    srv, play, log = serve(bundle, None, clock=False)
    w = watcher(srv, tmp_path)
    try:
        outage(srv, 1.5, compact=True)
        play.advance("fail")  # while the API server is away: no watch stream sees it
        play.advance("hang")
        wait_for(lambda: _incident(tmp_path / "out"), timeout_s=30)
        wait_for(lambda: w.metrics.get("k10s_watch_triggers_total", reason="container-failed") == 1, timeout_s=15)
        pods = w.informers["pods"][0]
        assert pods.stats["gone"] >= 1 and pods.stats["lists"] >= 2, (pods.stats, [l for l in log.lines() if "/pods?" in l][:12])  # 410 Gone -> re-list -> diff
        outage(srv, 1.0, compact=True)  # away again after the capture: the re-list must not re-trigger
        play.advance("restart")
        wait_for(lambda: pods.stats["lists"] >= 3, timeout_s=15)
        time.sleep(1.0)
        assert w.incidents.idle()
        assert len(incident_dirs(tmp_path / "out")) == 1
        assert non_get_requests(log) == []
    finally:
        w.stop(5)
        srv.stop()


def test_a_storm_of_100_failing_pods_makes_one_bundle_and_one_event(bundle, tmp_path, monkeypatch):
    stub_analysis(monkeypatch)
    srv, play, log = serve(bundle, None, clock=False)
    template = play.originals[play.culprit]  # as recorded: its container failed
    for i in range(100):
        pod = copy.deepcopy(template)
        pod["metadata"]["name"] = f"storm-{i:03d}"
        play.log.put(PODS, _running(pod))
    w = watcher(srv, tmp_path, events=True)
    try:
        wait_for(lambda: len(w.informers["pods"][0].objects) >= 100, timeout_s=10)
        for i in range(100):
            play.log.put(PODS, _failed(copy.deepcopy(template), f"storm-{i:03d}"))
        doc = wait_for(lambda: _incident(tmp_path / "out"), timeout_s=30)
        wait_for(lambda: srv.counts.get("event-create", 0) >= 1, timeout_s=10)
        assert len(incident_dirs(tmp_path / "out")) == 1
        assert w.metrics.get("k10s_watch_triggers_total", reason="container-failed") == 100
        assert w.metrics.get("k10s_watch_captures_total") == 1 and len(doc["triggers"]) == 100
        writes = non_get_requests(log)
        assert len(writes) == 1 and "POST /api/v1/namespaces/ml-research/events" in writes[0]  # --events: the only write
    finally:
        w.stop(5)
        srv.stop()


def _running(pod):
    from k10s_forensics.serve.play import running_version

    return running_version(pod, "2026-05-15T12:00:00Z")


def _failed(pod, name):
    pod["metadata"]["name"] = name
    return pod


def _post(url, path, body, headers=None):
    host, port = url.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("POST", path, body=body, headers=headers or {"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, resp.read().decode()
    finally:
        conn.close()


HOSTILE = [
    ("/alertmanager", b"x" * 10, 400),
    ("/alertmanager", b"[1,2,3]", 400),
    ("/alertmanager", json.dumps({"version": "3", "alerts": []}).encode(), 400),
    ("/alertmanager", json.dumps({"version": "4", "alerts": [{"labels": {"a": 1}}]}).encode(), 400),
    ("/alertmanager", json.dumps({"version": "4", "alerts": [{"labels": {"bad name!": "x"}}]}).encode(), 400),
    ("/alertmanager", json.dumps({"version": "4", "alerts": "nope"}).encode(), 400),
    ("/alertmanager", b"[" * 100_000 + b"]" * 100_000, 400),
    ("/trigger", json.dumps({"job": "../../etc/passwd"}).encode(), 400),
    ("/trigger", json.dumps({"job": "ns/$(touch /tmp/k10s-pwned)"}).encode(), 400),
    ("/trigger", json.dumps({"job": ["a"]}).encode(), 400),
    ("/trigger", json.dumps({"job": "ns/not-a-job-it-sees"}).encode(), 400),
]


def test_hostile_webhook_bodies_are_refused_and_reach_no_path_or_shell(bundle, tmp_path, monkeypatch):
    stub_analysis(monkeypatch)
    srv, play, log = serve(bundle, None, clock=False)
    w = watcher(srv, tmp_path)
    try:
        for path, body, code in HOSTILE:
            status, text = _post(w.url, path, body)
            assert status == code, (path, body[:60], status, text)
        status, _ = _post(w.url, "/alertmanager", b"{}", {"Content-Length": str(2 << 20)})
        assert status == 413  # refused from the header, before reading
        evil = {"version": "4", "status": "firing", "alerts": [{"status": "firing", "labels": {
            "alertname": "$(touch /tmp/k10s-pwned);`id`", "namespace": "../..", "pod": "../../etc", "job_name": "x/../y",
            "node": "a;rm -rf /"}}]}
        status, text = _post(w.url, "/alertmanager", json.dumps(evil).encode())
        assert status == 200 and json.loads(text)["matched"] == []
        assert w.metrics.get("k10s_watch_webhook_rejected_total", endpoint="alertmanager") >= 7
        assert not os.path.exists("/tmp/k10s-pwned")
        assert incident_dirs(tmp_path / "out") == []
        assert sorted(os.listdir(tmp_path / "out")) == ["index.html"]
    finally:
        w.stop(5)
        srv.stop()


@pytest.fixture
def tiny_disk(tmp_path):
    """A 16 MiB tmpfs (root only; skipped elsewhere)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_a_full_disk_retention_makes_room_or_the_watcher_says_why(bundle, tiny_disk, tmp_path, monkeypatch):
    from k10s_forensics.watch import incidents as incmod

    stub_analysis(monkeypatch)
    monkeypatch.setattr(incmod, "CAPTURE_ESTIMATE_BYTES", 6 << 20)
    out = tiny_disk / "out"
    for i in range(2):  # two old incidents fill 12 of the 16 MiB
        (out / f"2026010{i}T000000Z-ns-old{i}").mkdir(parents=True)
        (out / f"2026010{i}T000000Z-ns-old{i}" / "blob").write_bytes(b"x" * (6 << 20))
    srv, _play, _log = serve(bundle, None, clock=False)
    w = watcher(srv, tmp_path, out=out, cooldown_s=0)
    try:
        job = next(iter(_play.originals.values()))["metadata"]["labels"]["training.kubeflow.org/job-name"]
        ns = next(iter(_play.originals.values()))["metadata"]["namespace"]
        w.on_manual({"job": f"{ns}/{job}"})
        wait_for(w.incidents.idle, timeout_s=30)
        names = sorted(p.name for p in incident_dirs(out))
        assert names[0] == "20260101T000000Z-ns-old1" and len(names) == 2 and not names[1].endswith(".partial")
        monkeypatch.setattr(incmod, "CAPTURE_ESTIMATE_BYTES", 64 << 20)  # more than the whole disk
        w.on_manual({"job": f"{ns}/{job}"})
        wait_for(lambda: w.metrics.get("k10s_watch_skipped_total", reason="disk") == 1, timeout_s=30)
        assert "disk full" in w.incidents.log.getvalue()
        assert [p.name for p in incident_dirs(out)] == names  # nothing removed for a capture that could not fit
    finally:
        w.stop(5)
        srv.stop()


def test_a_kueue_eviction_event_on_a_workload_triggers_its_job(bundle, tmp_path, monkeypatch):
    stub_analysis(monkeypatch)
    srv, play, _log = serve(bundle, None, clock=False)
    ns = play.namespace
    wl_key = ("kueue.x-k8s.io", "v1beta1", "workloads")
    events_key = ("", "v1", "events")
    play.log.put(wl_key, {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
                          "metadata": {"name": f"pytorchjob-{play.job}-1", "namespace": ns,
                                       "ownerReferences": [{"kind": "PyTorchJob", "name": play.job}]}, "status": {}})
    w = watcher(srv, tmp_path)
    try:
        play.log.put(events_key, {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "ev-1", "namespace": ns},
                                  "involvedObject": {"kind": "Workload", "name": f"pytorchjob-{play.job}-1", "namespace": ns},
                                  "reason": "Preempted", "message": "Preempted to accommodate a higher priority Workload"})
        play.log.put(events_key, {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "ev-2", "namespace": ns},
                                  "involvedObject": {"kind": "Pod", "name": "x", "namespace": ns}, "reason": "Preempted"})
        doc = wait_for(lambda: _incident(tmp_path / "out"), timeout_s=30)
        assert doc["job"] == f"{ns}/{play.job}" and doc["triggers"][0]["reason"] == "kueue-preempted"
        assert len(w.informers["events"][0].objects) == 1  # only Workload events are kept
    finally:
        w.stop(5)
        srv.stop()


def test_a_resource_rbac_denies_is_left_out_and_said(bundle, tmp_path, monkeypatch):
    from k10s_forensics.serve.faults import Faults

    srv, _play, _log = serve(bundle, None, clock=False)
    srv.faults = Faults(forbid=("events",))
    srv.fault_state.faults = srv.faults
    w = watcher(srv, tmp_path)
    try:
        ok, text = w.health()
        assert ok and "forbidden, not watched: events" in text
    finally:
        w.stop(5)
        srv.stop()
