"""Ray's memory-monitor kill is a NODE's host memory, not a rank's exception (session 66; docs/rules.md, "Session 66:
Ray's memory monitor names a node").

Ray's memory monitor (Ray >= 2.2, in the raylet) kills a task or actor when its node's memory passes
``RAY_memory_usage_threshold`` (0.95); the caller that awaited it raises ``ray.exceptions.OutOfMemoryError``: ``Task was
killed due to the node running low on memory.`` (older Ray) or ``N worker(s) were killed due to the node running low on
memory.`` (newer), then ``Memory on the node (IP: …) was …``, its lines maybe broken by a terminal or by the exception
itself (parsers/log_cut_wordings.py joins the pieces: host-oom-kill). The notice names a node by IP, not a rank, and is
printed by the driver: an untagged one is no rank's (not the rank of the one-process pod whose log holds it). A line
naming the killed worker names its rank: a verl ``WorkerDict_0:<rank>`` actor, Ray Train's ``RayTrainWorker`` by the
pid its worker group gives a rank (``where the task (… name=RayTrainWorker…, pid=N …)``, newer Ray's ``Selected to
kill: (Task: … task name=…, pid=N, actual memory used=…)``), or a ``[rankN]:`` tag.

The control: MiaAI-Lab/GLM-5.3-Flash-NVFP4-Dual-DGX-Spark#2 (node 10.99.0.2's worker killed at 95% of its unified
memory), both corpus layouts and pasted; contrasts through the real importer and analysis.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import analyze_incident, corpus_lines, load_corpus, misses, naming_findings, REAL_INCIDENTS_DIR
from k10s_forensics.parsers.log_cut_wordings import rejoin_cut_wordings

NOW = dt.datetime(2026, 12, 7, 4, 0, tzinfo=dt.timezone.utc)
CONTROL = "glm53-dual-dgx-spark-2-ray-oom-one-node-unified-memory-control"
SPARKS = corpus_lines("glm53-dual-dgx-spark-2-")  # the wrapped newer wording, three pieces

#: newer Ray's own line breaks (its message: `…memory.` / `Memory on the node (IP: …, ID: …) was` / `109.73GB / …`)
NEWER_OWN_BREAKS = [
    "ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node running low on memory.",
    "Memory on the node (IP: 10.10.10.1, ID: d47bda435b751d12bfe0a3f4509bd80e) was",
    "109.73GB / 121.63GB (0.902205), which exceeds the memory usage threshold of 0.900000.",
]
OLDER_ONE_LINE = ["ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory."]
OLDER_WRAPPED = ["ray.exceptions.OutOfMemoryError: Task was killed due to the node", "running low on memory."]
RAYLET_WRAPPED = [
    "(raylet) [2025-05-01 09:08:51,941 E 2639241 2639241] (raylet) node_manager.cc:3069: 1 Workers (tasks / actors)",
    "killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 2d9bce06f72c1de4, IP: "
    "10.99.0.2) over the last time period.",
]
#: Ray Train's worker group as its trainer prints it: world rank 0 on 10.99.0.1 (pid 4241), rank 1 on 10.99.0.2 (4242)
GROUP = ["(TorchTrainer pid=5000) Started distributed worker processes:"] + [
    f"(TorchTrainer pid=5000) - (ip=10.99.0.{r + 1}, pid={4241 + r}) world_rank={r}, local_rank=0, node_rank={r}" for r in (0, 1)]


def _notice(pid: int, ip: str = "10.99.0.2") -> list[str]:
    """The older wording and its notice on the Ray Train worker (pid) it killed."""
    return OLDER_ONE_LINE + [
        f"Memory on the node (IP: {ip}, ID: 7e2c1f) where the task (actor ID: 0123abcd, name=RayTrainWorker.__init__, "
        f"pid={pid}, memory used=90.12GB) was running was 113.76GB / 119.70GB (0.950345), which exceeds the memory usage "
        "threshold of 0.95. Ray killed this worker (ID: 9f1e) because it was the most recently scheduled task."]


POLICY_RANK1 = SPARKS + [
    "Ray killed 1 worker(s) based on the killing policy:",
    "Selected to kill: (Task: job ID=01000000, lease ID=0600000001000000ff, task name=RayTrainWorker._RayTrainWorker__execute, "
    "required resources={CPU: 1, GPU: 1}, pid=4242, actual memory used=90.12GB, worker ID=3e3d8f80b70d48b6)"]
CUDA_OOM_RANK1 = ("[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                  "of 79.11 GiB of which 1.06 GiB is free.")

#: key: (lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # no rank: the notice names a node (by IP), printed by the driver
    "sparks-pasted": (SPARKS, None, None, None, None),
    "sparks-two-nodes": (SPARKS, 1, 2, None, None),
    "sparks-one-line-two-nodes": ([" ".join(SPARKS)], 1, 2, None, None),
    "newer-own-breaks-two-nodes": (NEWER_OWN_BREAKS, 1, 2, None, None),
    "older-one-line-two-nodes": (OLDER_ONE_LINE, 1, 2, None, None),
    "older-one-line-four-per-node": (OLDER_ONE_LINE, 4, 4, None, None),
    "older-wrapped-two-nodes": (OLDER_WRAPPED, 1, 2, None, None),
    "raylet-wrapped-two-nodes": (RAYLET_WRAPPED, 1, 2, None, None),
    "main-task-notice-two-nodes": ([line.replace("RayTrainWorker.__init__", "main_task") for line in _notice(4242)], 1, 2, None, None),
    "every-worker-killed-alike": (GROUP + _notice(4241, "10.99.0.1") + _notice(4242), 1, 2, None, None),
    # a line naming the killed worker: its rank
    "ray-train-notice-names-rank1": (GROUP + _notice(4242), 1, 2, 1, "host-oom-kill"),
    "kill-policy-names-rank1": (GROUP + POLICY_RANK1, 1, 2, 1, "host-oom-kill"),
    "rank1-tagged-names-rank1": (["[rank1]: " + line for line in SPARKS], 1, 2, 1, "host-oom-kill"),
    # a rank's own CUDA OOM beside the node's notice stays that rank's cuda-oom
    "cuda-oom-beside-names-rank1": (SPARKS + [CUDA_OOM_RANK1], 1, 2, 1, "cuda-oom"),
}
BATCHED = Batched("raymm", list(CASES))


def _make(key: str, folder):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_ray_memory_monitor_names_a_rank_only_where_a_line_names_the_worker(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    assert_one_rank(naming_findings(findings), CASES[key][3], CASES[key][4])
    if CASES[key][3] is None and key != "every-worker-killed-alike":  # the node's kill is read, host-oom-kill of no rank
        assert [(f["rule"], f["cause"], f["ranks"]) for f in findings] == [("rank-failure", "host-oom-kill", [])], findings


@pytest.mark.parametrize("how", [{}, {"api_timestamps": True, "one_log": True}], ids=["routed", "one-pod-api-timestamps"])
def test_the_dual_spark_control_names_no_rank_both_ways(tmp_path, how):
    (case,) = [c for c in load_corpus(REAL_INCIDENTS_DIR) if c.incident == CONTROL]
    findings = analyze_incident(tmp_path, case, **how)
    assert misses(case, findings) is None, misses(case, findings)
    assert [(f["rule"], f["cause"], f["ranks"]) for f in findings] == [("rank-failure", "host-oom-kill", [])]


def test_the_finding_names_the_node_by_its_ip(tmp_path):
    (finding,) = pasted_findings(SPARKS, tmp_path, 1, 2, NOW)
    assert "Ray's memory monitor killed a worker on node 10.99.0.2" in finding["summary"]
    assert "which worker (rank) it does not say" in finding["summary"]


def test_every_worker_killed_alike_is_no_single_culprit(tmp_path):
    (finding,) = pasted_findings(GROUP + _notice(4241, "10.99.0.1") + _notice(4242), tmp_path, 1, 2, NOW)
    assert (finding["cause"], finding["ranks"]) == ("host-oom-kill", []) and "no single culprit" in finding["summary"]


@pytest.mark.parametrize(("pieces", "joined"), [
    (SPARKS, [" ".join(SPARKS)]),
    # the error's first line is whole; the node's usage broken off its `Memory on the node (IP: …) was` is joined to it
    (NEWER_OWN_BREAKS, [NEWER_OWN_BREAKS[0], " ".join(NEWER_OWN_BREAKS[1:])]),
    (OLDER_WRAPPED, [" ".join(OLDER_WRAPPED)]),
    (RAYLET_WRAPPED, [" ".join(RAYLET_WRAPPED)]),
], ids=["sparks", "newer-own-breaks", "older", "raylet"])
def test_the_wrapped_pieces_are_joined(pieces, joined):
    assert rejoin_cut_wordings(list(pieces))[0] == joined


@pytest.mark.parametrize("lines", [
    OLDER_ONE_LINE + ["Memory on the node (IP: 10.1.17.3, ID: c157) where the task (task ID: 5c9c, name=main_task, pid=10040, "
                      "memory used=10.74GB) was running was 478.86GB / 503.75GB (0.950585)"],
    [SPARKS[0], "    at train.py line 12"],  # an indented piece is a traceback's, never a cut's tail
], ids=["whole-lines", "indented-next"])
def test_whole_or_indented_lines_stay_apart(lines):
    assert rejoin_cut_wordings(list(lines)) == (list(lines), None)
