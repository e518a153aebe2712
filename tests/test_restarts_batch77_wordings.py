"""Batch 77's restart, elasticity and preemption shapes (tests/data/real-incidents, ``"batch": 77``, family
``restarts``), each with its wording variants, as one pasted log through ``k10s import-logs`` (docs/rules.md,
"Session 26: batch 77"):

* controls: torch elastic's ``Worker group FAILED. N/3 attempts left; will restart worker group`` with the
  rendezvous result and the new attempt's reply files but no worker reported failing (Doc2EDAG-24, and
  mmdetection-8521's paste without its failure line); one agent of two, one worker each, whose worker exits 1 after
  the peer agent left and whose re-rendezvous fails (pytorch-147064: the job's two agents known); Slurm ending the
  step or job at its limit or by preemption while Lightning's ``[rank: R] Received SIGTERM: 15`` / ``Bypassing
  SIGTERM: 15`` is printed (lightning-20542); an agent failing to shut down a rendezvous whose store went away with
  another job (``RuntimeError: Broken pipe``, wespeaker-171); Ray marking a terminated node dead and reporting its
  actor died (ray-22349); a restarted attempt's store-based barrier whose ``worker_count`` counts the earlier
  attempts' arrivals too, one rank timing out and the agent reporting another local rank's exit 1
  (mmdetection-6779) — none names a rank;
* contrast: the launcher's report of one worker's exit right before the restart names that worker with the exit's
  cause (mmdetection-8521: ``failed (exitcode: -9) local_rank: 1`` then ``Worker group FAILED. 3/3 attempts left``).

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 2, 0, tzinfo=dt.timezone.utc)

PEER = corpus_log("pytorch-147064-elastic-peer-agent-ctrl-c-local-rank0-exit1-restart-control")
LIMIT = corpus_log("pytorch-lightning-20542-slurm-time-limit-rank0-sigterm-bypassed-control")
RESTART = corpus_log("Doc2EDAG-24-worker-group-failed-restart-no-rank-named-control")
STORE_GONE = corpus_log("wespeaker-171-other-job-ends-rendezvous-store-broken-pipe-control")
RAY = corpus_log("ray-22349-train-node-terminated-actor-died-control")
RESIDUE = corpus_log("mmdetection-6779-restart-store-barrier-worker-count-4-of-2-control")
SIGKILLED = corpus_log("mmdetection-8521-sigkill-rank1-restart")


def _lists(text: str, nproc: int) -> str:
    """The rendezvous result's rank and size lists for ``nproc`` local workers."""
    ranks, sizes = ", ".join(map(str, range(nproc))), ", ".join([str(nproc)] * nproc)
    text = re.sub(r"(local_ranks|role_ranks|global_ranks)=\[[0-9, ]*\]", lambda m: f"{m.group(1)}=[{ranks}]", text)
    return re.sub(r"(role_world_sizes|global_world_sizes)=\[[0-9, ]*\]", lambda m: f"{m.group(1)}=[{sizes}]", text)


def _restart_only(nproc: int, left: int) -> str:
    """The group FAILED and restarted: the rendezvous result and one reply file per new worker, nobody named."""
    lines = RESTART.splitlines()
    head = [line.replace("3/3 attempts left", f"{left}/3 attempts left") for line in lines if "reply file" not in line]
    reply = next(line for line in lines if "reply file" in line)
    files = [reply.replace("worker0", f"worker{i}").replace("attempt_1/0/", f"attempt_1/{i}/") for i in range(nproc)]
    return _lists("\n".join(head + files), nproc) + "\n"


def _restart_after(local_rank: int, nproc: int, code: int) -> str:
    """The agent's report of one worker's exit, then the group's restart."""
    text = SIGKILLED.replace("(exitcode: -9) local_rank: 1", f"(exitcode: {code}) local_rank: {local_rank}")
    return _lists(text, nproc)


def _restart_no_report(nproc: int) -> str:
    """The same paste without the report of the worker's exit: the restart alone."""
    return _lists("\n".join(line for line in SIGKILLED.splitlines() if "(exitcode:" not in line) + "\n", nproc)


def _peer_left(left: int, traceback: bool) -> str:
    lines = PEER.replace("3/3 attempts left", f"{left}/3 attempts left").splitlines()
    return "\n".join(lines if traceback else lines[:4]) + "\n"


def _limit(rank: int, unit: str, reason: str) -> str:
    text = LIMIT.replace("[rank: 0]", f"[rank: {rank}]").replace("*** STEP 55595933.0 ON", f"*** {unit} ON")
    return text.replace("DUE TO TIME LIMIT", f"DUE TO {reason}")


def _store_gone(node: str) -> str:
    return STORE_GONE.replace("node04.localdomain_3882442_0", node)


def _ray(swap: bool) -> str:
    """Ray's two workers; with ``swap`` the other one's node is the one marked dead."""
    if not swap:
        return RAY
    a, b = "pid=5172, ip=10.128.0.32", "pid=5137, ip=10.128.0.103"
    text = RAY.replace(a, "@").replace(b, a).replace("@", b)
    return (text.replace("ip: 10.128.0.103 has been", "ip: 10.128.0.32 has been")
            .replace("\tpid: 5137", "\tpid: 5172").replace("\tip: 10.128.0.103", "\tip: 10.128.0.32"))


def _residue(timed_out: int, failed: int, world: int, count: int) -> str:
    text = RESIDUE.replace("on rank: 1, for key", f"on rank: {timed_out}, for key")
    text = text.replace("world_size=2, worker_count=4", f"world_size={world}, worker_count={count}")
    return _lists(text.replace("(exitcode: 1) local_rank: 0", f"(exitcode: 1) local_rank: {failed}"), world)


BUILD = {"restart_only": _restart_only, "restart_after": _restart_after, "restart_no_report": _restart_no_report,
         "peer_left": _peer_left, "limit": _limit, "store_gone": _store_gone, "ray": _ray, "residue": _residue}
#: (processes per node, world size) the thread states for each shape (None: not known)
SIZES = {"restart_only": lambda key: (key[1], key[1]), "restart_after": lambda key: (key[2], key[2]),
         "restart_no_report": lambda key: (key[1], key[1]), "peer_left": lambda key: (1, 2),
         "limit": lambda key: (2, None), "store_gone": lambda key: (None, None), "ray": lambda key: (None, None),
         "residue": lambda key: (key[3], key[3])}

# key: (shape, parameters …); the expected (culprit, cause), None for a control
CULPRITS = {("restart_after", 1, 2, -9): (1, "host-oom-kill"), ("restart_after", 0, 2, -9): (0, "host-oom-kill"),
            ("restart_after", 3, 4, -9): (3, "host-oom-kill"), ("restart_after", 2, 4, -11): (2, "segfault")}
CONTROLS = [("restart_only", 4, 3), ("restart_only", 2, 2), ("restart_only", 8, 1),
            ("restart_no_report", 2), ("restart_no_report", 4),
            ("peer_left", 3, True), ("peer_left", 2, True), ("peer_left", 3, False),
            ("limit", 0, "STEP 55595933.0", "TIME LIMIT"), ("limit", 1, "STEP 55595933.0", "TIME LIMIT"),
            ("limit", 0, "JOB 55595933", "PREEMPTION"), ("limit", 1, "STEP 17.0", "PREEMPTION"),
            ("store_gone", "node04.localdomain_3882442_0"), ("store_gone", "gpu-a100-17_1201_0"),
            ("ray", False), ("ray", True),
            ("residue", 1, 0, 2, 4), ("residue", 0, 1, 2, 4), ("residue", 2, 0, 4, 8)]
BATCHED = Batched("restarts-batch77", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc, world = SIZES[key[0]](key)
    return pasted(BUILD[key[0]](*key[1:]), folder, nproc, NOW, world)


def _id(key: tuple) -> str:
    return "-".join(str(part).replace(" ", "_") for part in key)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS, _id))
def test_the_worker_reported_before_the_restart_is_named(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    rank, cause = CULPRITS[key]
    assert named and all(f["ranks"] == [rank] for f in named), [(f["rule"], f["cause"], f["ranks"]) for f in named]
    assert any(f["cause"] == cause for f in named), [(f["rule"], f["cause"]) for f in named]


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS, _id))
def test_the_restart_and_preemption_controls_name_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_shape():
    """The builders change ranks, sizes, units and order, not the wording the tests are about."""
    text = _restart_only(8, 1)
    assert "1/3 attempts left; will restart worker group" in text and text.count("reply file to:") == 8
    assert "local_ranks=[0, 1, 2, 3, 4, 5, 6, 7]" in text and "(exitcode:" not in text
    after = _restart_after(3, 4, -9)
    assert "failed (exitcode: -9) local_rank: 3 (pid: 20277)" in after and "global_world_sizes=[4, 4, 4, 4]" in after
    assert "(exitcode:" not in _restart_no_report(2) and "Worker group FAILED. 3/3" in _restart_no_report(2)
    assert _peer_left(2, False).count("\n") == 4 and "2/3 attempts left" in _peer_left(2, True)
    assert "Traceback (most recent call last):" in _peer_left(3, True)
    limit = _limit(1, "JOB 55595933", "PREEMPTION")
    assert "*** JOB 55595933 ON maestro-3017 CANCELLED AT 2025-01-10T15:27:25 DUE TO PREEMPTION ***" in limit
    assert "[rank: 1] Received SIGTERM: 15" in limit and "Bypassing SIGTERM: 15" in limit
    assert "The node 'gpu-a100-17_1201_0' has failed to shutdown" in _store_gone("gpu-a100-17_1201_0")
    ray = _ray(True)
    assert "ip: 10.128.0.32 has been marked dead" in ray and "\tpid: 5172" in ray and "(BackendExecutor pid=5126" in ray
    residue = _residue(2, 0, 4, 8)
    assert "on rank: 2, for key: store_based_barrier_key:1 (world_size=4, worker_count=8" in residue
    assert "2/3 attempts left" in residue and "local_ranks=[0, 1, 2, 3]" in residue
