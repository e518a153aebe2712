"""disruption: a rank's pod that Kubernetes itself stopped (queries/disruption.sql).

The API server's words are the pod's DisruptionTarget condition (reason PreemptionByScheduler, TerminationByKubelet,
EvictionByEvictionAPI, DeletionByTaintManager, DeletionByPodGC), its status reason (Evicted; Terminated with the
graceful node shutdown's message; Shutdown before Kubernetes 1.22) and the Preempted / Evicted / TaintManagerEviction
events, which outlive a deleted pod. The simulator's ``pod-disrupted`` scenario checks the reading end to end over seeds
and shapes (tests/test_rules_scenarios.py, and the incident root below); these pin the parser on real-shaped pod
bodies and the rule's edges on hand-built tables.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

from _analyze_kit import analyze_tables, at, gang, rule_findings
from k8s_builders import context, iso, make_bundle, obj_row, pod, running_status
from k10s_forensics.parsers import k8s_pods

DATA = Path(__file__).parent / "data" / "k8s-disruption"
SHUTDOWN = "Pod was terminated in response to imminent node shutdown."
PREEMPT = "default-scheduler: preempting to accommodate a higher priority pod"
LOW_MEMORY = ("The node was low on resource: memory. Threshold quantity: 100Mi, available: 51200Ki. Container pytorch was "
              "using 61Gi, request is 48Gi, has larger consumption of memory. ")


def _stopped_pod_body(cond: dict | None, reason: str | None = None, message: str | None = None) -> dict:
    status = running_status(["pytorch"], at(-600))
    if cond is not None:
        status["conditions"].append({"type": "DisruptionTarget", "lastTransitionTime": iso(at(120)), **cond})
    if reason is not None:
        status.update(phase="Failed", reason=reason, message=message)
    return pod("llama-worker-2", status=status)


@pytest.mark.parametrize(
    ("cond", "want"),
    [
        ({"status": "True", "reason": "PreemptionByScheduler", "message": PREEMPT}, ("PreemptionByScheduler", PREEMPT, at(120))),
        ({"status": "True", "reason": "TerminationByKubelet", "message": SHUTDOWN}, ("TerminationByKubelet", SHUTDOWN, at(120))),
        # the disruption controller resets a disruption that never went ahead: False is no disruption
        ({"status": "False", "reason": "PreemptionByScheduler", "message": PREEMPT}, (None, None, None)),
        (None, (None, None, None)),
    ],
    ids=["preempted", "node-shutdown", "reset", "absent"],
)
def test_pods_table_keeps_a_true_disruption_target_condition(tmp_path, cond, want):
    ctx = context(make_bundle(tmp_path / "b", [obj_row(_stopped_pod_body(cond))]), tmp_path / "out")
    k8s_pods.derive(ctx)
    (row,) = ctx.table("pods").to_pylist()
    assert (row["disruption_reason"], row["disruption_message"], row["disrupted_at"]) == want


def _gang_with_stop(pod_index: int = 2, **pod_fields) -> dict:
    """A 4-pod job (two ranks per pod) whose pod ``pod_index`` Kubernetes stopped at 120 s; the others ran to 480 s."""
    g = gang(pods=4, per_pod=2, start=-600)
    for i, p in enumerate(g["pods"]):
        if i != pod_index:
            p.update(phase="Failed", finished_at=at(480))
    for r in g["ranks"]:
        if r["node_rank"] != pod_index:
            r["finished_at"] = at(480)
    stopped = g["pods"][pod_index]
    stopped.update(phase="Failed", finished_at=at(122), **pod_fields)
    return g


def _disruptions(tmp_path, g) -> list[dict]:
    return rule_findings(analyze_tables(tmp_path, g, only=["disruption"]), "disruption")


@pytest.mark.parametrize(
    ("fields", "cause"),
    [
        ({"disruption_reason": "PreemptionByScheduler", "disruption_message": PREEMPT, "disrupted_at": at(120)}, "preempted"),
        ({"disruption_reason": "TerminationByKubelet", "disruption_message": LOW_MEMORY, "disrupted_at": at(120),
          "reason": "Evicted", "message": LOW_MEMORY}, "evicted"),
        ({"reason": "Evicted", "message": LOW_MEMORY}, "evicted"),  # before Kubernetes 1.26: the status reason alone
        ({"disruption_reason": "TerminationByKubelet", "disruption_message": SHUTDOWN, "disrupted_at": at(120),
          "reason": "Terminated", "message": SHUTDOWN}, "node-shutdown"),
        ({"reason": "Shutdown", "message": "Node is shutting, evicting pods"}, "node-shutdown"),  # Kubernetes 1.21
        ({"disruption_reason": "EvictionByEvictionAPI", "disruption_message": "Eviction API: evicting", "disrupted_at": at(120)}, "drained"),
        ({"disruption_reason": "DeletionByTaintManager", "disruption_message": "Taint manager: deleting due to NoExecute taint",
          "disrupted_at": at(120)}, "taint-eviction"),
        ({"disruption_reason": "DeletionByPodGC", "disruption_message": "PodGC: node no longer exists", "disrupted_at": at(120)}, "pod-gc"),
    ],
    ids=["preempted", "evicted", "evicted-status-only", "node-shutdown", "shutdown-1.21", "drained", "taint-manager", "pod-gc"],
)
@pytest.mark.parametrize("pod_index", [0, 2])
def test_a_pod_kubernetes_stopped_names_its_ranks_and_the_cause(tmp_path, fields, cause, pod_index):
    (f,) = _disruptions(tmp_path, _gang_with_stop(pod_index, **fields))
    assert (f["cause"], f["ranks"], f["pods"], f["severity"], f["confidence"], f["job"]) == (
        cause, [2 * pod_index, 2 * pod_index + 1], [f"team-a/llama-worker-{pod_index}"], "critical", "high", "team-a/llama")
    # the six GPUs of the other three pods, held waiting from the stop (120 s, or the container's end) to 480 s
    start = 120 if "disrupted_at" in fields else 122
    assert f["gpu_hours_lost"] == round(6 * (480 - start) / 3600, 3)
    assert f"llama-worker-{pod_index}" in f["summary"] and "3 other pod(s)" in f["summary"]


def _event(reason: str, message: str, name: str, uid: str | None, t: float, kind: str = "Pod") -> dict:
    return {"ts": at(t), "first_ts": at(t), "namespace": "team-a", "object_namespace": "team-a", "object_kind": kind, "object_name": name,
            "object_uid": uid, "reason": reason, "type": "Normal", "message": message, "count": 1, "source_component": "default-scheduler"}


def test_a_preempted_pod_gone_from_the_api_is_named_by_its_event_and_its_replacement(tmp_path):
    """The scheduler deletes the preempted pod; its event outlives it by an hour and the operator's replacement (the same
    name, a new uid, Pending: the preemptor holds the GPUs) carries the ranks."""
    g = gang(pods=4, per_pod=2, start=-600)
    new = g["pods"][1]
    new.update(pod_uid="uid-new", phase="Pending", node=None, started_at=None, created_at=at(125), scheduled=False)
    for r in g["ranks"]:
        if r["node_rank"] == 1:
            r.update(pod_uid="uid-new", node=None, gpu_uuid=None, started_at=None)
    g["events"] = [_event("Preempted", "Preempted by pod 5f0d3a1e-9c1b-4c53-a0b1-1d2f3e4a5b6c on node gpu-node-1", "llama-worker-1", "uid-old", 120)]
    (f,) = _disruptions(tmp_path, g)
    assert (f["cause"], f["ranks"], f["pods"], f["nodes"], f["started_at"]) == (
        "preempted", [2, 3], ["team-a/llama-worker-1"], ["gpu-node-1"], iso(at(120)))


@pytest.mark.parametrize(
    ("message", "cause"),
    [("Pod is evicted, because of preempt", "preempted"), ("Pod is evicted, because of reclaim", "reclaimed"),
     ("Pod is evicted, because of shuffle", "disrupted")],
    ids=["volcano-preempt", "volcano-reclaim", "volcano-other"],
)
def test_volcanos_eviction_event_names_the_pods_ranks(tmp_path, message, cause):
    """Volcano's evictor deletes the pod with a Warning ``Evict`` event on it (its preempt and reclaim actions)."""
    g = gang(pods=4, per_pod=2, start=-600)
    g["events"] = [_event("Evict", message, "llama-worker-3", "uid-llama-worker-3", 120)]
    (f,) = _disruptions(tmp_path, g)
    assert (f["severity"], f["cause"], f["ranks"], f["pods"]) == ("critical", cause, [6, 7], ["team-a/llama-worker-3"])


@pytest.mark.parametrize(
    "event",
    [
        _event("Evict", "Evicting pod for a reason of its own", "llama-worker-1", "uid-llama-worker-1", 120),  # not Volcano's words
        _event("Preempted", "Preempted to accommodate a workload (UID: 1a2b) due to prioritization in the ClusterQueue", "llama-7f3c", None, 120,
               kind="Workload"),  # Kueue's word on a workload: pending.sql's, no pod of it named
        _event("TaintManagerEviction", "Cancelling deletion of Pod team-a/llama-worker-1", "llama-worker-1", "uid-llama-worker-1", 120),
        _event("Killing", "Stopping container pytorch", "llama-worker-1", "uid-llama-worker-1", 120),
        _event("Preempted", "Preempted by pod 5f0d on node gpu-node-9", "inference-6d9f-x2k4q", "uid-inf", 120),  # a pod of no job
    ],
    ids=["other-evict", "kueue-workload", "taint-cancelled", "killing", "not-a-training-pod"],
)
def test_what_is_no_disruption_of_a_training_pod(tmp_path, event):
    g = gang(pods=4, per_pod=2, start=-600)
    g["events"] = [event]
    assert _disruptions(tmp_path, g) == []


def test_every_pod_stopped_together_is_the_jobs_stop_with_no_rank_named(tmp_path):
    g = gang(pods=3, per_pod=2, start=-600)
    for i, p in enumerate(g["pods"]):
        p.update(phase="Failed", finished_at=at(125 + i), reason="Terminated", message=SHUTDOWN,
                 disruption_reason="TerminationByKubelet", disruption_message=SHUTDOWN, disrupted_at=at(120 + i * 20))
    (f,) = _disruptions(tmp_path, g)
    assert (f["cause"], f["ranks"], f["severity"], f["confidence"], f["gpu_hours_lost"], len(f["pods"])) == (
        "node-shutdown", [], "warning", None, None, 3)


def test_stops_minutes_apart_are_two_disruptions(tmp_path):
    g = gang(pods=4, per_pod=1, start=-600)
    g["pods"][1].update(phase="Failed", finished_at=at(100), reason="Evicted", message=LOW_MEMORY)
    g["pods"][3].update(phase="Failed", finished_at=at(400), reason="Evicted", message=LOW_MEMORY)
    assert [(f["ranks"], f["started_at"]) for f in _disruptions(tmp_path, g)] == [([1], iso(at(100))), ([3], iso(at(400)))]


@pytest.mark.parametrize(("container_reason", "host_oom"), [("Error", False), ("OOMKilled", True)], ids=["sigkill", "oom-killed"])
def test_the_sigkill_of_an_evicted_pod_is_no_host_oom(tmp_path, container_reason, host_oom):
    """A hard eviction SIGKILLs the container (exit 137, reason Error): the kubelet's stop, not the OOM killer's; a
    container the kernel's OOM killer ended (OOMKilled) before its pod's eviction is still the host OOM."""
    g = _gang_with_stop(1, reason="Evicted", message=LOW_MEMORY)
    g["containers"] = [{"namespace": "team-a", "pod": "llama-worker-1", "pod_uid": "uid-llama-worker-1", "container": "pytorch",
                        "state": "terminated", "reason": container_reason, "exit_code": 137, "finished_at": at(121), "restart_count": 0}]
    result = analyze_tables(tmp_path, g, only=["oom-cascade", "disruption"])
    assert [f["cause"] for f in rule_findings(result, "oom-cascade")] == (["host-oom"] if host_oom else [])
    assert [f["cause"] for f in rule_findings(result, "disruption")] == ["evicted"]


@pytest.mark.parametrize("seed", [4, 9, 11])  # preempted, evicted, node-shutdown (the scenario draws one per seed)
def test_the_disruption_is_the_incidents_root_over_the_hang_it_caused(tmp_path, seed):
    out = tmp_path / "b"
    subprocess.run([sys.executable, "-m", "k10s_forensics", "simulate", "pod-disrupted", "-o", str(out), "--seed", str(seed),
                    "--nodes", "3", "--gpus-per-node", "4", "--minutes", "12", "--interval", "30"], check=True, capture_output=True)
    result = json.loads(subprocess.run([sys.executable, "-m", "k10s_forensics", "analyze", str(out), "--format", "json"],
                                       check=True, capture_output=True, text=True).stdout)
    truth = json.loads(out.with_name("b.truth.json").read_text())["expected"][0]
    (incident,) = [i for i in result["incidents"] if i["root"]["rule"] == "disruption"]
    root = result["findings"][incident["root"]["finding"]]
    assert (root["cause"], root["ranks"], root["pods"]) == (truth["cause"], truth["ranks"], truth["pods"])
    symptoms = {m["finding"] for m in incident["symptoms"]}
    loose = [f["rule"] for n, f in enumerate(result["findings"])
             if f["rule"] in ("nccl-hang", "rank-failure", "oom-cascade", "crashloop") and n not in symptoms]
    assert loose == []


def test_a_real_eviction_record_without_a_status_reason_names_the_evicted_rank_from_raw_objects(tmp_path):
    """kubernetes#105467's pod, evicted for ephemeral storage: no ``status.reason``, only the DisruptionTarget condition
    (TerminationByKubelet) says so. Put on worker 1 of a 3-pod PyTorchJob (raw objects, parsed by the real parsers)."""
    import yaml

    from k8s_builders import container, pytorch_labels, pytorchjob
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.store.bundle import Bundle

    real = yaml.safe_load((DATA / "pod-status-disruptiontarget-ephemeral-storage_k8s-issue105467.yaml").read_text())
    when = real["status"]["conditions"][0]["lastTransitionTime"]
    started = dt.datetime.fromisoformat(when.replace("Z", "+00:00")) - dt.timedelta(hours=1)
    pods = []
    for i, (rtype, idx) in enumerate([("master", 0), ("worker", 0), ("worker", 1)]):
        status = running_status(["pytorch"], started, pod_ip=f"10.1.0.{i + 5}")
        body = pod(f"llama-{rtype}-{idx}", labels=pytorch_labels("llama", rtype, idx), containers=[container(gpus=8)],
                   node=f"gpu-node-{i}", status=status, owner=("PyTorchJob", "llama"))
        pods.append(body)
    stopped = pods[2]["status"]
    stopped["conditions"] = [*stopped["conditions"], *real["status"]["conditions"]]
    stopped["phase"] = "Failed"
    stopped["containerStatuses"][0]["state"] = {"terminated": {"exitCode": 137, "reason": "Error", "startedAt": iso(started),
                                                               "finishedAt": when}}
    for p in pods:
        p["metadata"]["creationTimestamp"] = iso(started - dt.timedelta(minutes=5))
    bundle = make_bundle(tmp_path / "b", [obj_row(pytorchjob("llama", workers=2, gpus=8, nproc=8)), *[obj_row(p) for p in pods]])
    result = analyze(Bundle.open(bundle.path))
    (f,) = rule_findings(result, "disruption")
    assert (f["cause"], f["ranks"], f["pods"], f["severity"], f["confidence"]) == (
        "evicted", list(range(16, 24)), ["team-a/llama-worker-1"], "critical", "high")
    assert "ephemeral-storage" in f["summary"]
    assert rule_findings(result, "oom-cascade") == []  # the eviction's SIGKILL (exit 137, Error) is no host OOM
