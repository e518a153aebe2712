"""``k10s watch`` parts without a cluster: config, triggers, alert matching, retention,
one incident per job (cooldown, limits, concurrency, disk), crash leftovers, /metrics."""

from __future__ import annotations

import io
import os
import threading
import time

import pytest

from k10s_forensics.cli import main
from k10s_forensics.errors import InputError
from k10s_forensics.watch import alerts, incidents as incmod, runner, store
from k10s_forensics.watch.config import load, parse_bytes
from k10s_forensics.watch.incidents import Incidents
from k10s_forensics.watch.metrics import Metrics
from k10s_forensics.watch.triggers import Trigger, job_triggers, log_reason, pod_triggers, workload_triggers


# ---- config -------------------------------------------------------------------------------
def test_config_file_keys_and_flags_win(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("namespaces: [a, b]\ncooldown_s: 30\nretention: {max_bundles: 3, max_bytes: 2GiB}\n"
                    "capture: {duration_s: 5}\nout: /x\nkinds: [PyTorchJob]\n")
    cfg = load(str(path), {"out": str(tmp_path / "o"), "namespaces": ("c",)})
    assert cfg.namespaces == ("c",) and cfg.cooldown_s == 30 and cfg.kinds == ("PyTorchJob",)
    assert cfg.retention.max_bundles == 3 and cfg.retention.max_bytes == 2 << 30 and cfg.capture.duration_s == 5
    assert str(cfg.out) == str(tmp_path / "o")
    assert parse_bytes("20GiB") == 20 << 30 and parse_bytes("500Mi") == 500 << 20 and parse_bytes(1048576) == 1 << 20


@pytest.mark.parametrize("text", ["colldown_s: 3\n", "retention: {max_bundle: 3}\n", "kinds: [FooJob]\n",
                                  "cooldown_s: soon\n", "- a list\n"])
def test_bad_config_is_one_line_exit_2(tmp_path, capsys, text):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(InputError):
        load(str(path), {})
    with pytest.raises(SystemExit) as exc:
        main(["watch", "--config", str(path), "--kubeconfig", str(tmp_path / "none")])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("k10s: error:") and "\n" not in err and "Traceback" not in err


# ---- triggers -----------------------------------------------------------------------------
def _pod(state=None, restarts=0, last=None, labels=None):
    cs = {"name": "pytorch", "restartCount": restarts, "state": state or {"running": {}}, "lastState": last or {}}
    return {"metadata": {"name": "j-worker-1", "namespace": "ns", "labels": labels if labels is not None else
                         {"training.kubeflow.org/job-name": "j"}}, "status": {"containerStatuses": [cs]}}


def test_pod_triggers_on_exit_signal_oom_and_restart():
    running = _pod()
    segv = _pod({"terminated": {"exitCode": 139, "finishedAt": "t1"}})
    [t] = pod_triggers(running, segv)
    assert (t.job, t.reason) == ("ns/j", "container-failed") and "SIGSEGV" in t.detail
    [t] = pod_triggers(running, _pod({"terminated": {"exitCode": 137, "reason": "OOMKilled", "finishedAt": "t"}}))
    assert t.reason == "oom-killed"
    [t] = pod_triggers(running, _pod(restarts=1, last={"terminated": {"exitCode": 1, "reason": "Error"}}))
    assert t.reason == "container-restarted" and "exit 1" in t.detail
    assert pod_triggers(segv, segv) == []  # the same termination seen again (a re-list)
    assert pod_triggers(None, segv) == []  # first seen (the initial list) is the baseline
    assert pod_triggers(running, _pod({"terminated": {"exitCode": 0, "finishedAt": "t"}})) == []
    assert pod_triggers(_pod(labels={}), _pod({"terminated": {"exitCode": 1}}, labels={})) == []  # not a training pod


def _conds(pod, probe=False, node="gpu-node-3", **status):
    """``pod`` with conditions ``status`` (type -> "True"/"False" or (status, reason, message)) on node ``node``."""
    conds = []
    for ctype, value in status.items():
        st, reason, message = (value, None, None) if isinstance(value, str) else value
        conds.append({"type": ctype, "status": st, **({"reason": reason} if reason else {}), **({"message": message} if message else {})})
    pod["status"]["conditions"] = conds
    pod["spec"] = {"nodeName": node, "containers": [{"name": "pytorch", **({"readinessProbe": {"exec": {}}} if probe else {})}]}
    return pod


def test_pod_triggers_on_a_lost_node_and_a_disruption():
    ready = _conds(_pod(), Ready="True")
    [t] = pod_triggers(ready, _conds(_pod(), Ready="False"))
    assert (t.job, t.reason, t.pod) == ("ns/j", "pod-not-ready", "ns/j-worker-1") and "gpu-node-3 unreachable" in t.detail
    assert pod_triggers(_conds(_pod(), Ready="False"), _conds(_pod(), Ready="False")) == []  # seen again
    assert pod_triggers(_conds(_pod(), probe=True, Ready="True"), _conds(_pod(), probe=True, Ready="False")) == []  # its probe
    done = _conds(_pod({"terminated": {"exitCode": 0, "finishedAt": "t"}}), Ready="False")
    assert pod_triggers(ready, done) == []  # a container that ended: not the node's mark (its exit triggers if failed)
    gone = _conds(_pod(), Ready="True", DisruptionTarget=("True", "PreemptionByScheduler", "default-scheduler: preempting"))
    [t] = pod_triggers(ready, gone)
    assert t.reason == "pod-disrupted" and "PreemptionByScheduler: default-scheduler: preempting" in t.detail
    assert pod_triggers(gone, gone) == []
    assert pod_triggers(_conds(_pod(labels={}), Ready="True"), _conds(_pod(labels={}), Ready="False")) == []  # not training


def test_job_and_workload_triggers():
    def job(*conds, kind="PyTorchJob"):
        return {"kind": kind, "metadata": {"name": "j", "namespace": "ns"},
                "status": {"conditions": [{"type": c, "status": "True"} for c in conds]}}
    assert [t.reason for t in job_triggers(job("Running"), job("Running", "Restarting"))] == ["job-restarting"]
    assert [t.reason for t in job_triggers(job("Running"), job("Failed", kind="JobSet"))] == ["job-failed"]
    assert job_triggers(job("Failed"), job("Failed")) == []
    ray_old = {"kind": "RayJob", "metadata": {"name": "r", "namespace": "ns"}, "status": {"jobStatus": "RUNNING"}}
    ray_new = {"kind": "RayJob", "metadata": {"name": "r", "namespace": "ns"}, "status": {"jobStatus": "FAILED"}}
    assert [t.reason for t in job_triggers(ray_old, ray_new)] == ["job-failed"]
    wl = {"metadata": {"name": "pytorchjob-j-1", "namespace": "ns", "ownerReferences": [{"kind": "PyTorchJob", "name": "j"}]},
          "status": {"conditions": []}}
    evicted = {**wl, "status": {"conditions": [{"type": "Evicted", "status": "True"}]}}
    [t] = workload_triggers(wl, evicted)
    assert (t.job, t.reason, t.kind) == ("ns/j", "kueue-evicted", "PyTorchJob")


@pytest.mark.parametrize("line,reason", [
    ("[rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=182, "
     "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600018 milliseconds before timing out.", "nccl-watchdog-timeout"),
    ("[rank0]: [7] finished collective #182, but didn't join collective #183", "nccl-desync-report"),
    ("RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: "
     "CollectiveFingerPrint(SequenceNumber=12, OpType=ALLREDUCE", "collective-mismatch"),
    ("RuntimeError: CUDA error: an illegal memory access was encountered", "cuda-error"),
    ("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.", "xid"),
    ("step 100 loss 2.31", None),
])
def test_log_lines_use_the_parsers_patterns(line, reason):
    assert log_reason(line) == reason


# ---- alerts -------------------------------------------------------------------------------
def test_alert_matching_by_job_pod_node():
    pod_job = {("ns", "j-worker-1"): "ns/j"}
    node_jobs = {"gpu-3": ["ns/j", "ns/k", "ns/j"]}
    m = lambda labels: alerts.match(labels, lambda n, p: pod_job.get((n, p)), lambda n: node_jobs.get(n, []))  # noqa: E731
    assert m({"namespace": "ns", "job_name": "j"}) == ["ns/j"]
    assert m({"exported_namespace": "ns", "exported_pod": "j-worker-1", "pod": "dcgm-exporter-x"}) == ["ns/j"]
    assert m({"Hostname": "gpu-3", "UUID": "GPU-1"}) == ["ns/j", "ns/k"]
    assert m({"instance": "gpu-3:9400"}) == ["ns/j", "ns/k"]
    assert m({"namespace": "..", "job_name": "../x"}) == [] and m({"UUID": "GPU-1"}) == []
    doc = {"version": "4", "status": "firing", "alerts": [{"status": "firing", "labels": {"alertname": "A"}},
                                                          {"status": "resolved", "labels": {"alertname": "B"}}]}
    assert alerts.firing_alerts(doc) == [{"alertname": "A"}]


# ---- incidents ----------------------------------------------------------------------------
class FakeRunner:
    """Stands in for capture: writes a folder of ``size`` bytes, takes ``seconds``."""

    def __init__(self, size=1000, seconds=0.0):
        self.size, self.seconds, self.calls = size, seconds, []

    def __call__(self, connection, out, incident, cfg, on_started):
        on_started()
        self.calls.append(incident.id)
        work = out / (incident.id + store.PARTIAL)
        work.mkdir(parents=True)
        (work / "blob").write_bytes(b"x" * self.size)
        time.sleep(self.seconds)
        store.write_json(work / store.INCIDENT_JSON, {"id": incident.id, "job": incident.job, "state": "captured",
                                                      "triggers": [t.as_dict() for t in incident.triggers]})
        os.replace(work, out / incident.id)
        return {"state": "captured", "capture": {"ok": True, "seconds": self.seconds}, "y": "stub"}


def _incidents(tmp_path, monkeypatch, fake, **cfg_values):
    monkeypatch.setattr(runner, "run_first", fake)
    cfg = load(None, {"out": str(tmp_path / "out")})
    cfg.capture.second_round_after_s = 0
    for key, value in cfg_values.items():
        setattr(cfg, key, value)
    return Incidents(cfg, None, Metrics(), log=io.StringIO())


def _wait_idle(inc):
    end = time.time() + 10
    while not inc.idle() and time.time() < end:
        time.sleep(0.02)


def test_cooldown_joins_rate_limits_and_concurrency(tmp_path, monkeypatch):
    fake = FakeRunner(seconds=0.3)
    inc = _incidents(tmp_path, monkeypatch, fake, max_concurrent=1, rate_per_job_per_h=2, rate_cluster_per_h=3, cooldown_s=0.5)
    assert inc.submit(Trigger("ns/a", "manual")) == "started"
    assert inc.submit(Trigger("ns/a", "log-xid")) == "joined"
    assert inc.submit(Trigger("ns/b", "manual")) == "queued"  # one capture at a time
    _wait_idle(inc)
    time.sleep(0.5)
    assert inc.submit(Trigger("ns/a", "manual")) == "started"   # cooldown over: a new incident
    _wait_idle(inc)
    time.sleep(0.5)
    assert inc.submit(Trigger("ns/a", "manual")) == "rate-limited"  # 2 per job per hour
    assert inc.submit(Trigger("ns/c", "manual")) == "rate-limited"  # 3 in the cluster per hour
    assert len(fake.calls) == 3 and inc.metrics.get("k10s_watch_skipped_total", reason="rate-limit") == 2
    assert "rate limit" in inc.log.getvalue()


def test_full_disk_retention_makes_room_oldest_first_or_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(incmod, "CAPTURE_ESTIMATE_BYTES", 1000)
    out = tmp_path / "out"
    for i in range(3):
        (out / f"2026010{i}T000000Z-ns-old{i}").mkdir(parents=True)
        (out / f"2026010{i}T000000Z-ns-old{i}" / "blob").write_bytes(b"x" * 1000)
    (out / "20250101T000000Z-ns-crashed.partial").mkdir()  # a crash left it
    inc = _incidents(tmp_path, monkeypatch, FakeRunner(size=1000), cooldown_s=0)
    inc.cfg.retention.max_bytes = 3500
    inc.submit(Trigger("ns/new", "manual"))
    _wait_idle(inc)
    names = sorted(p.name for p in store.entries(out))
    assert [n[:8] for n in names[:2]] == ["20260101", "20260102"] and len(names) == 3 and names[2].endswith("ns-new")
    assert not (out / "20250101T000000Z-ns-crashed.partial").exists()  # the crash's leftover and the oldest went first
    inc.cfg.retention.max_bytes = 500  # less than one capture needs
    inc.submit(Trigger("ns/other", "manual"))
    _wait_idle(inc)
    assert inc.metrics.get("k10s_watch_skipped_total", reason="disk") == 1 and "no room" in inc.log.getvalue()


def test_retention_never_removes_one_being_written(tmp_path):
    out = tmp_path / "out"
    for name in ("20260101T000000Z-a.partial", "20260102T000000Z-b", "20260103T000000Z-c"):
        (out / name).mkdir(parents=True)
    removed = store.prune(out, max_bundles=0, max_age_h=1e9, max_bytes=1 << 40, busy={"20260101T000000Z-a"})
    assert removed == ["20260102T000000Z-b", "20260103T000000Z-c"]
    rows = store.listing(out)
    assert rows[0]["state"].startswith("incomplete")  # a .partial never looks complete


def test_metrics_text_and_concurrent_counts():
    m = Metrics()
    threads = [threading.Thread(target=lambda: [m.inc("k10s_watch_triggers_total", reason="x") for _ in range(1000)])
               for _ in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    m.observe("k10s_watch_capture_seconds", 2.5)
    text = m.render()
    assert 'k10s_watch_triggers_total{reason="x"} 4000' in text
    assert "# TYPE k10s_watch_capture_seconds summary" in text and "k10s_watch_capture_seconds_count 1" in text


def test_play_times_and_a_bundle_with_nothing_to_play(tmp_path):
    from k10s_forensics.serve.play import Play, PlayTimes
    from k10s_forensics.serve.store import Store
    from k10s_forensics.simulate import simulate

    assert PlayTimes.parse("fail=1,hang=2").restart_s == 60.0
    for bad in ("fail=9,hang=2", "boom=1"):
        with pytest.raises(ValueError):
            PlayTimes.parse(bad)
    simulate("healthy", tmp_path / "h", seed=1, nodes=1, gpus_per_node=2, minutes=1, truth_path=tmp_path / "t.json")
    with pytest.raises(ValueError, match="nothing to play"):
        Play(Store.load(tmp_path / "h"))


def test_notification_line_is_the_top_incident_once():
    from k10s_forensics.watch.runner import one_line

    findings = [{"rule": "oom-cascade", "severity": "critical", "title": "Rank 5 ran out of GPU memory", "ranks": [5]},
                {"rule": "nccl-hang", "severity": "critical", "title": "15 ranks hit the watchdog", "ranks": [5]}]
    incident = {"severity": "critical", "job": "team-a/llama", "title": "Rank 5 ran out of GPU memory",
                "root": {"finding": 0, "rule": "oom-cascade", "cause": "cuda-oom"}, "cause": "cuda-oom",
                "ranks": [5], "nodes": ["gpu-node-2"], "gpu_hours_lost": 0.54, "cost_usd": 1.35,
                "symptoms": [{"finding": 1, "rule": "nccl-hang", "cause": None}]}
    line = one_line(findings, [incident])
    assert line.startswith("[CRITICAL] job team-a/llama · oom-cascade (cuda-oom): Rank 5 ran out of GPU memory")
    assert "0.54 GPU-hours lost ($1.35)" in line and "symptoms: nccl-hang" in line and "more" not in line
    assert one_line(findings, [incident, dict(incident, job="team-b/x")]).endswith("(+1 more)")
    assert one_line(findings).startswith("[CRITICAL] Rank 5 ran out of GPU memory (ranks 5")
    assert one_line([]).startswith("no finding")


def test_notification_line_leaves_preventive_notes_out():
    from k10s_forensics.watch.runner import one_line

    note = {"rule": "gpu-startup", "severity": "info", "title": "/dev/shm is the 64 MiB default", "ranks": []}
    advice = {"severity": "info", "job": "a/j", "title": note["title"], "advice": True,
              "root": {"finding": 0, "rule": "gpu-startup", "cause": "shm-default"}, "symptoms": []}
    assert one_line([note], [advice]) == "no finding: nothing the rules recognise in this capture (1 preventive note)"
