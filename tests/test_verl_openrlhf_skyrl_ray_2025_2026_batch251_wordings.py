"""RL post-training frameworks on Ray, 2025-2026 (real incidents batch 251), pinned as read. Three culprits, each the
one verl ``WorkerDict`` actor the driver reports dead, named from the actor name: ``wd6rCqWorkerDict_0:5`` in
RL-Factory's multi-turn rollout loop (Simple-Efficient/RL-Factory#123, fields indented by two spaces),
``5SO3sRWorkerDict_0:1`` in ReCall's rollout (Agent-RL/ReCall#62, fields indented by tabs), ``ZQ3gENWorkerDict_0:0``
in Search-R1's reference log-prob step (PeterGriffinJin/Search-R1#45); the cause is open (exit-unknown). Controls
that name no one: NeMo-RL's ``RayTaskError(OutOfMemoryError)`` from ``DTensorPolicyWorkerV2[rank=0]`` when the
default PPO yaml OOMs on every backend (NVIDIA-NeMo/RL#3793), and the raylet's ``1 Workers (tasks / actors) killed
due to memory pressure (OOM)`` on an EasyR1 node (hiyouga/EasyR1#185). Miss, left NOT_YET: the ``ActorDiedError`` for
``HPjKLZWorkerDict_0:2`` on four V100s (VainF/Thinkless#4) names rank 2, the lone-worker shape line for line; only
the author's follow-up (Triton's ``mma -> mma layout conversion is only supported on Ampere`` assertion on every
worker) makes it a control. Scored 5/6 both ways as collected; no rule changed (measure only). Contrasts: each dead
actor's ``name:`` line dropped names no one; the same death under ``_0:3`` names rank 3; a ``[rank0]:``-tagged CUDA
OOM on the NeMo-RL worker names rank 0 (cuda-oom); an ``ActorDiedError`` for ``..._0:3`` after the raylet's kill
names rank 3. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 9, 30, tzinfo=dt.timezone.utc)

WORKER5_DIED = corpus_lines("RL-Factory-123-")
WORKER1_DIED = corpus_lines("ReCall-62-")
WORKER0_DIED = corpus_lines("Search-R1-45-")
V100_WORKER2 = corpus_lines("Thinkless-4-")
POLICY_OOM = corpus_lines("NeMo-RL-3793-")
RAYLET_KILL = corpus_lines("EasyR1-185-")


def _unnamed(lines: list[str]) -> list[str]:
    """The paste without the dead actor's ``name:`` field (the only line that carries its worker-group rank)."""
    return [line for line in lines if "name: " not in line]


#: ReCall's tab-indented actor fields as eight spaces (the indentation a console copy often makes of them)
WORKER1_SPACES = [line.replace("\t", "        ") for line in WORKER1_DIED]
#: Search-R1's death reported for rank 3 of the same placement group
WORKER3_RENAMED = [line.replace("WorkerDict_0:0", "WorkerDict_0:3") for line in WORKER0_DIED]
#: the NeMo-RL worker's own OOM line, tagged with its rank as torch prints a rank's exception
POLICY_RANK0_TAGGED = POLICY_OOM + [
    "(DTensorPolicyWorkerV2[rank=0] pid=2671339, ip=10.65.16.209) [rank0]: torch.OutOfMemoryError: CUDA out of memory. "
    "Tried to allocate 3.71 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.20 GiB is free.",
]
#: the raylet's kill followed by the driver's report of which worker-group actor died
RAYLET_THEN_WORKER3 = RAYLET_KILL + [
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
    "        class_name: create_colocated_worker_cls.<locals>.WorkerDict",
    "        pid: 135990",
    "        name: Ab12CdWorkerDict_0:3",
    "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Task "
    "was killed due to the node running low on memory.",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # the culprits, as pasted and re-laid
    "worker5-died-as-pasted": (WORKER5_DIED, None, None, 5, "exit-unknown"),
    "worker5-died-pods-of-8": (WORKER5_DIED, 8, 8, 5, "exit-unknown"),
    "worker1-died-as-pasted": (WORKER1_DIED, None, None, 1, "exit-unknown"),
    "worker1-died-spaces-for-tabs": (WORKER1_SPACES, None, None, 1, "exit-unknown"),
    "worker0-died-as-pasted": (WORKER0_DIED, None, None, 0, "exit-unknown"),
    # the miss as read (NOT_YET in the corpus): the lone-worker shape
    "v100-worker2-died-as-read": (V100_WORKER2, None, None, 2, "exit-unknown"),
    "v100-worker2-died-four-gpus-as-read": (V100_WORKER2, 4, 4, 2, "exit-unknown"),
    # controls
    "policy-oom-as-pasted": (POLICY_OOM, None, None, None, None),
    "policy-oom-pods-of-8": (POLICY_OOM, 8, 8, None, None),
    "raylet-kill-as-pasted": (RAYLET_KILL, None, None, None, None),
    "raylet-kill-pods-of-8": (RAYLET_KILL, 8, 8, None, None),
    # contrasts
    "worker5-name-dropped-names-none": (_unnamed(WORKER5_DIED), None, None, None, None),
    "worker1-name-dropped-names-none": (_unnamed(WORKER1_DIED), None, None, None, None),
    "worker0-renamed-3-names-rank3": (WORKER3_RENAMED, None, None, 3, "exit-unknown"),
    "v100-name-dropped-names-none": (_unnamed(V100_WORKER2), None, None, None, None),
    "policy-rank0-tagged-oom-names-rank0": (POLICY_RANK0_TAGGED, None, None, 0, "cuda-oom"),
    "raylet-then-worker3-names-rank3": (RAYLET_THEN_WORKER3, None, None, 3, "exit-unknown"),
}
BATCHED = Batched("b251", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_ray_rl_frameworks_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_worker_death_names_the_actor(tmp_path):
    """The lone dead ``WorkerDict`` is a warning that quotes the actor's name, so a reader can check the rank."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(WORKER5_DIED, tmp_path, None, NOW, world=None))["findings"]
    named = naming_findings(findings)
    assert [(f["rule"], f["severity"], f["ranks"]) for f in named] == [("rank-failure", "warning", [5])], named
    assert "wd6rCqWorkerDict_0:5" in named[0]["summary"] + named[0].get("title", ""), named[0]


def test_policy_worker_repr_alone_names_no_rank(tmp_path):
    """``repr=DTensorPolicyWorkerV2[rank=0]`` in the driver's re-raised OOM names no rank, whatever its number."""
    from k10s_forensics.analyze.runner import analyze

    for rank in (0, 3):
        lines = [line.replace("[rank=0]", f"[rank={rank}]") for line in POLICY_OOM]
        findings = analyze(pasted(lines, tmp_path / str(rank), None, NOW, world=None))["findings"]
        assert naming_findings(findings) == [], [(f["rule"], f["cause"], f["ranks"]) for f in findings]
