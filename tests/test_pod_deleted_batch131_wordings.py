"""A pod killed from outside in a paste (real incidents batch 131, kubernetes-sigs/jobset#574: the author types
``k delete pod max-restarts-worker-0-1-2bn2v`` and the listing after it shows that pod ``Terminating``). One pod
deleted at the shell and then seen ``Terminating`` is that pod's end with no status (exit-unknown), its rank by the
names the paste shows: the operators' ``master``/``worker`` layout as for a failed row, a JobSet's or TrainJob's
``<jobset>-<replicated job>-<job index>-<pod index>-<suffix>`` by its pod index when every such pod is in one Job (by
its job index when every one is its Job's pod 0). Two pods deleted, a listing before the command, a pod still
Running, a whole job deleted, a layout the paste does not show: no one. A listing row wrapped at the terminal's
width inside the padding before RESTARTS or AGE is the row still (k10s_forensics/parsers/log_pods.py;
docs/rules.md, "Session 31: batch 131"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_pods import deleted_pods

NOW = dt.datetime(2026, 12, 1, 19, 0, tzinfo=dt.timezone.utc)
HEAD = "NAME                            READY   STATUS        RESTARTS   AGE"


def _rows(*pods: tuple[str, str]) -> list[str]:
    return [HEAD] + [f"{pod:<32}{'0/1' if st == 'Error' else '1/1'}     {st:<13} 0          74s" for pod, st in pods]


#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # jobset-574's shape: one Job of three indexed pods, pod index 1 deleted (the paste's trailing space kept)
    "jobset-one-job-pod1": (["> k apply -f jobset.yaml", "jobset.jobset.x-k8s.io/max-restarts created",
                             "> k delete pod max-restarts-worker-0-1-2bn2v", "> k get pods | grep max",
                             "max-restarts-worker-0-0-w8pjj                                       1/1     Running       0"
                             "              74s",
                             "max-restarts-worker-0-1-2bn2v                                       1/1     Terminating   0"
                             "              74s "], 1),
    # the same listing wrapped at the terminal's width inside the padding before AGE (the age on a line of its own) ...
    "jobset-one-job-pod1-wrapped-before-age": (["> k delete pod max-restarts-worker-0-1-2bn2v", "> k get pods | grep max",
                                               "max-restarts-worker-0-0-w8pjj                                       1/1"
                                               "     Running       0       ", "       74s",
                                               "max-restarts-worker-0-1-2bn2v                                       1/1"
                                               "     Terminating   0       ", "       74s"], 1),
    # ... and before RESTARTS
    "jobset-one-job-pod1-wrapped-before-restarts": (["> k delete pod max-restarts-worker-0-1-2bn2v",
                                                    "max-restarts-worker-0-0-w8pjj      1/1     Running",
                                                    "  0              74s",
                                                    "max-restarts-worker-0-1-2bn2v      1/1     Terminating",
                                                    "  0              74s"], 1),
    # a PyTorchJob's worker-1 (master shown: rank 2), the namespace after the name, a `$` prompt
    "pytorchjob-worker1-dollar": (["$ kubectl delete pod bert-worker-1 -n team-a", 'pod "bert-worker-1" deleted',
                                   "$ kubectl get pods -n team-a"]
                                  + _rows(("bert-master-0", "Running"), ("bert-worker-0", "Running"),
                                          ("bert-worker-1", "Terminating")), 2),
    # the namespace first, `pod/<name>`, a `#` prompt
    "pytorchjob-pod-slash": (["# kubectl -n kubeflow delete pod/llama-worker-0"]
                             + _rows(("llama-master-0", "Running"), ("llama-worker-0", "Terminating")), 1),
    # a TrainJob's pods (one Job `node`, four pods), OpenShift's client, forced
    "trainjob-oc-forced": (["oc delete pods torch-ft-node-0-2-k8x2p --grace-period=0 --force"]
                           + _rows(("torch-ft-node-0-0-a1b2c", "Running"), ("torch-ft-node-0-1-d3e4f", "Running"),
                                   ("torch-ft-node-0-2-k8x2p", "Terminating"), ("torch-ft-node-0-3-g5h6j", "Running")), 2),
    # a JobSet of one-pod Jobs: the job index is the rank
    "jobset-one-pod-jobs": (["kubectl delete pod llm-workers-3-0-x9k2p"]
                            + _rows(("llm-workers-0-0-q1w2e", "Running"), ("llm-workers-1-0-r3t4y", "Running"),
                                    ("llm-workers-2-0-u5i6o", "Running"), ("llm-workers-3-0-x9k2p", "Terminating")), 3),
    # contrasts: a job torn down (every pod Terminating, nothing deleted by name) ...
    "teardown-all-terminating": (_rows(("bert-master-0", "Terminating"), ("bert-worker-0", "Terminating"),
                                       ("bert-worker-1", "Terminating")), None),
    # ... two pods deleted ...
    "two-pods-deleted": (["kubectl delete pod bert-worker-0 bert-worker-1"]
                         + _rows(("bert-master-0", "Running"), ("bert-worker-0", "Terminating"),
                                 ("bert-worker-1", "Terminating")), None),
    # ... the whole job deleted ...
    "job-deleted": (["kubectl delete pytorchjob bert"]
                    + _rows(("bert-master-0", "Terminating"), ("bert-worker-0", "Terminating")), None),
    # ... the deleted pod not (yet) Terminating in the listing ...
    "deleted-still-running": (["kubectl delete pod bert-worker-1"]
                              + _rows(("bert-master-0", "Running"), ("bert-worker-0", "Running"),
                                      ("bert-worker-1", "Running")), None),
    # ... the listing before the command ...
    "listing-before-delete": (_rows(("bert-master-0", "Running"), ("bert-worker-1", "Terminating"))
                              + ["kubectl delete pod bert-worker-1"], None),
    # ... workers only (no master, no launcher): the layout is not in the paste ...
    "workers-only-layout-unknown": (["kubectl delete pod bert-worker-1"]
                                    + _rows(("bert-worker-0", "Running"), ("bert-worker-1", "Terminating")), None),
    # ... a JobSet's pods in several Jobs of several pods: the parallelism is not in the paste ...
    "jobset-mixed-indexes": (["kubectl delete pod llm-workers-1-1-x9k2p"]
                             + _rows(("llm-workers-0-0-q1w2e", "Running"), ("llm-workers-0-1-r3t4y", "Running"),
                                     ("llm-workers-1-0-u5i6o", "Running"), ("llm-workers-1-1-x9k2p", "Terminating")), None),
    # ... and a sentence about deleting a pod, no command
    "prose-no-command": (["After I delete pod bert-worker-1 the others restart:"]
                         + _rows(("bert-master-0", "Running"), ("bert-worker-1", "Terminating")), None),
}
BATCHED = Batched("b131", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_one_pod_deleted_and_terminating_names_its_rank(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    want = CASES[key][1]
    assert_one_rank(named, want, None if want is None else "exit-unknown")


@pytest.mark.parametrize(("line", "pods"), [
    ("> k delete pod max-restarts-worker-0-1-2bn2v", ["max-restarts-worker-0-1-2bn2v"]),
    ("kubectl delete pods a-worker-0 a-worker-1 --wait=false", ["a-worker-0", "a-worker-1"]),
    ("kubectl --context prod -n ml delete po/a-worker-3", ["a-worker-3"]),
    ("kubectl delete pod -l app=bert", []),
    ("kubectl delete pod a-worker-2 # the bad node", ["a-worker-2"]),
    ("kubectl delete pytorchjob bert", None),
    ("kubectl get pods", None),
])
def test_deleted_pods_reads_the_command(line, pods):
    assert deleted_pods(line) == pods
