"""Ray Train / KubeRay / Anyscale distributed-training failures, 2024-2026 (real incidents batch 382), pinned as read.
Three incidents, collected blind; the search found few unclaimed threads with a pasted per-worker log and a settled
answer, so two are Ray maintainers' own test or bug logs. One was read right as collected: a Ray Train v2
controller's ``The worker group startup timed out after 30.0 seconds waiting for 8 workers`` and its
SCHEDULING -> RESCHEDULING loop (ray-project/ray#60376: the 30 s placement-group wait also covers the runtime-env
install, which took longer; the fix is a 60 s default) names no one, as pasted or as its 8 workers. Two are NOT_YET as
collected: the preemption fan-out of a two-worker Ray Train v2 run (ray-project/ray#64099: the PR author drained rank
1's node on purpose; ``Rank 1 received preemption signal (this_worker_preempted=True, preempted_ranks=[1], ...)`` and
``PreemptionWatcher: preemption detected — ... preempted_ranks=[1]``) gave no finding at all, where the truth is rank
1 (its node lost) — read right since session 61 (rank 1, warning, rank-dead); LLaMA-Factory on Ray Train with one worker holding four GPUs (hiyouga/LlamaFactory#7084:
``RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:3 and cuda:0!``,
a configuration error, no one's fault) names no one as pasted or as 4 ranks, but named rank 0 (warning,
python-exception, medium) laid out as the thread's one worker. Scored 1/3 both ways as collected. Since session 61 a
lone paste's device mismatch is the program's own structure refused (``lone-paste-program-structure``): rank 0 laid out
as one worker, and rank 2 tagged alone, are suspects at info, no culprit. Contrasts: the device mismatch tagged by every
rank names no one; rank 1's own CUDA OOM after the
preemption lines names rank 1 (cuda-oom); a rank 3 CUDA error after the start-up timeout names rank 3 (cuda-error).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 11, 0, tzinfo=dt.timezone.utc)

PREEMPTION = corpus_lines("ray-64099-")
DEVICE_MISMATCH = corpus_lines("LlamaFactory-7084-")
START_TIMEOUT = corpus_lines("ray-60376-")

#: the one RuntimeError line of the device mismatch
MISMATCH_ERROR = DEVICE_MISMATCH[-1]
#: the same error printed by each of 4 ranks: the program's own placement bug, everyone's
MISMATCH_EVERY_RANK = [f"[rank{r}]: {MISMATCH_ERROR}" for r in range(4)]
#: the same error tagged by rank 2 alone
MISMATCH_RANK2 = [f"[rank2]: {MISMATCH_ERROR}"]
#: rank 1's own CUDA OOM after the preemption notice
PREEMPTION_RANK1_OOM = PREEMPTION + [
    "(RayTrainWorker pid=99128) [rank 1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 "
    "has a total capacity of 79.10 GiB of which 1.06 GiB is free.",
]
#: a CUDA error of rank 3 after the controller's start-up timeout
START_TIMEOUT_RANK3_CUDA = START_TIMEOUT + [
    "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "start-timeout-as-pasted": (START_TIMEOUT, None, None, None, None),
    "start-timeout-eight-workers": (START_TIMEOUT, 8, 8, None, None),
    "device-mismatch-as-pasted": (DEVICE_MISMATCH, None, None, None, None),
    "device-mismatch-four-ranks": (DEVICE_MISMATCH, 4, 4, None, None),
    # read right since session 61 (Ray Train v2's preemption notice names the rank whose node is drained)
    "preemption-as-pasted-names-rank1": (PREEMPTION, None, None, 1, "rank-dead"),
    "preemption-two-workers-names-rank1": (PREEMPTION, 2, 2, 1, "rank-dead"),
    # read right since session 61 (a lone paste's device mismatch is a suspect at info): no culprit
    "device-mismatch-one-worker-names-none": (DEVICE_MISMATCH, 1, 1, None, None),
    # variants that must not name anyone
    "device-mismatch-every-rank-names-none": (MISMATCH_EVERY_RANK, 4, 4, None, None),
    # rank 2's lone copy: a suspect at info since session 61, no culprit
    "device-mismatch-rank2-tagged-suspect-only": (MISMATCH_RANK2, 4, 4, None, None),
    # contrasts that must name a rank
    "preemption-rank1-oom-names-rank1": (PREEMPTION_RANK1_OOM, 2, 2, 1, "cuda-oom"),
    "start-timeout-rank3-cuda-error-names-rank3": (START_TIMEOUT_RANK3_CUDA, 8, 8, 3, "cuda-error"),
}
BATCHED = Batched("b382", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_ray_train_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_worker_group_start_timeout_gives_no_finding(tmp_path):
    """ray#60376 as collected: the controller's start-up timeout of an 8-worker group is no worker's failure."""
    assert _gist(START_TIMEOUT, tmp_path / "a", None, None) == []
    assert _gist(START_TIMEOUT, tmp_path / "b", 8, 8) == []


def test_preemption_notice_names_the_preempted_rank(tmp_path):
    """ray#64099 (read right since session 61): rank 1's own ``received preemption signal (this_worker_preempted=True,
    ...)`` and the watcher's ``preempted_ranks=[1]`` name rank 1 (warning, rank-dead: its node is drained); rank 0's
    ``this_worker_preempted=False`` names no one (tests/test_ray_preemption_notice.py)."""
    assert _gist(PREEMPTION, tmp_path / "a", None, None) == [("rank-failure", "warning", "rank-dead", [1])]
    assert _gist(PREEMPTION, tmp_path / "b", 2, 2) == [("rank-failure", "warning", "rank-dead", [1])]


def test_device_mismatch_lone_copy_is_a_suspect_only(tmp_path):
    """LlamaFactory#7084: the lone untagged device-mismatch RuntimeError is a warning python-exception of no rank as
    pasted or as 4 ranks; laid out as the thread's one worker (world 1) rank 0 is a suspect at info, low (session 61:
    the program's own structure refused, not rank 0's fault); rank 2's lone tagged copy likewise."""
    assert _gist(DEVICE_MISMATCH, tmp_path / "a", None, None) == [("rank-failure", "warning", "python-exception", [])]
    assert _gist(DEVICE_MISMATCH, tmp_path / "b", 4, 4) == [("rank-failure", "warning", "python-exception", [])]
    findings = pasted_findings(DEVICE_MISMATCH, tmp_path / "c", 1, 1, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"], f["confidence"]) for f in findings] == [
        ("rank-failure", "info", "python-exception", [0], "low")
    ]
    assert _gist(MISMATCH_RANK2, tmp_path / "d", 4, 4) == [("rank-failure", "info", "python-exception", [2])]
