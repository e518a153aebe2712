"""SLURM-launched multi-node training (srun / sbatch) job logs, 2024-2026 (real incidents batch 383), pinned as read.
Only two usable threads were found (the family is heavily mined: most srun/slurmstepd threads of the stores are already
in the corpus), collected blind. One was read right as collected: rank 6's traceback out of accelerate's
``complete_nlp_example.py`` ending ``[rank6]: ValueError: Error in finalize: another evaluation module instance is
already using the local cache file ...``, then rank 0's ``Exception (either an error or timeout) detected by watchdog at
work: 438, last enqueued NCCL work: 451, last completed NCCL work: 437.`` (huggingface/accelerate#3206: accelerate's
SLURM multinode example on two MareNostrum 5 nodes, every rank computing the metric against one shared cache file,
rank 6 losing) names rank 6 (critical python-exception, and the hang rule's rank-failed), as pasted or as 2 nodes x 4.
The other, a control, is NOT_YET as collected (batch 383) and pinned as read: rank 7's four lines
``[rank7]: torch.distributed.DistBackendError: NCCL error in: ...ProcessGroupNCCL.cpp:1970, unhandled cuda error, NCCL
version 2.17.1`` ... ``[rank7]: Cuda failure 'invalid device pointer'`` (Lightning-AI/pytorch-lightning#20438: an
sbatch/srun Lightning job on MI50s that trains with one GPU per node and fails with two, another user's fix a torch
version change: every node-local RCCL pair alike) name rank 7 (warning cuda-error, medium). Scored 1/2 both ways as
collected. Contrasts: the invalid-device-pointer lines given to every rank, to two ranks, or untagged name no one;
srun's own ``tasks 4-7: Exited with exit code 1`` or ``task 6: ...`` beside the evaluate traceback keep rank 6, but a
lone ``task 1: Exited with exit code 1`` (one srun task per node: task 1 is node 1, the launcher of ranks 4-7) turns
it into no single culprit, and the srun lines alone name no one; rank 6's traceback without rank 0's watchdog line
names rank 6 at warning; the same traceback on ranks 2 and 6 names no one; the traceback and the watchdog line
untagged name rank 0, the waiting rank the watchdog line holds (read as is, not right: the exception is nobody's
placed). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

EVALUATE = corpus_lines("accelerate-3206-")
ROCM = corpus_lines("pytorch-lightning-20438-")

#: rank 6's traceback alone, without rank 0's watchdog line after it
EVALUATE_RANK6_ONLY = EVALUATE[:-1]
#: rank 2's copy of the same traceback before rank 6's: two ranks lost alike
EVALUATE_TWO_RANKS = [line.replace("[rank6]", "[rank2]") for line in EVALUATE_RANK6_ONLY] + EVALUATE
#: the traceback and the watchdog line without their torch rank tags (a paste of the untagged console)
EVALUATE_UNTAGGED = [line.replace("[rank6]: ", "").replace("[rank0]:", "") for line in EVALUATE]
#: srun's own task lines after it, one srun task per GPU (task 6 is rank 6) or a range holding rank 6
EVALUATE_SRUN_TASK6 = EVALUATE + ["srun: error: as01r1b04: task 6: Exited with exit code 1"]
EVALUATE_SRUN_RANGE = EVALUATE + ["srun: error: as01r1b04: tasks 4-7: Exited with exit code 1"]
#: srun's line with one srun task per node (accelerate launch per node): task 1 is node 1, the launcher of ranks 4-7
EVALUATE_SRUN_NODE_TASK = EVALUATE + ["srun: error: as01r1b04: task 1: Exited with exit code 1"]
#: both nodes' srun task lines alone, no training output
SRUN_ALONE = [
    "srun: error: as01r1b04: task 1: Exited with exit code 1",
    "srun: error: as01r1b03: task 0: Exited with exit code 1",
]
#: every rank of the 4 x 2 job with the same four lines (the fault is the stack's, every node-local pair alike)
ROCM_EVERY_RANK = [line.replace("[rank7]", f"[rank{r}]") for r in range(8) for line in ROCM]
#: rank 6's copy beside rank 7's (both ranks of the last node)
ROCM_TWO_RANKS = [line.replace("[rank7]", "[rank6]") for line in ROCM] + ROCM
#: the lines without the rank tag
ROCM_UNTAGGED = [line.replace("[rank7]: ", "") for line in ROCM]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "evaluate-as-pasted": (EVALUATE, None, None, 6, "python-exception"),
    "evaluate-two-nodes-of-four": (EVALUATE, 4, 8, 6, "python-exception"),
    # NOT_YET as collected (batch 383), pinned as read: rank 7 named, a control in truth
    "rocm-as-pasted-names-rank7-not-yet": (ROCM, None, None, 7, "cuda-error"),
    "rocm-four-nodes-of-two-names-rank7-not-yet": (ROCM, 2, 8, 7, "cuda-error"),
    # variants that must not name anyone
    "rocm-every-rank-names-none": (ROCM_EVERY_RANK, 2, 8, None, None),
    "rocm-two-ranks-names-none": (ROCM_TWO_RANKS, 2, 8, None, None),
    "rocm-untagged-names-none": (ROCM_UNTAGGED, None, None, None, None),
    "evaluate-two-ranks-names-none": (EVALUATE_TWO_RANKS, 4, 8, None, None),
    "srun-task-lines-alone-names-none": (SRUN_ALONE, 4, 8, None, None),
    # as read, not right: srun's per-node task 1 is taken for rank 1, a second failing rank beside rank 6
    "evaluate-srun-node-task-names-none-as-read": (EVALUATE_SRUN_NODE_TASK, 4, 8, None, None),
    # contrasts that must name a rank
    "evaluate-rank6-only-names-rank6": (EVALUATE_RANK6_ONLY, 4, 8, 6, "python-exception"),
    "evaluate-srun-task6-names-rank6": (EVALUATE_SRUN_TASK6, 4, 8, 6, "python-exception"),
    "evaluate-srun-range-names-rank6": (EVALUATE_SRUN_RANGE, 4, 8, 6, "python-exception"),
    # as read, not right: the untagged exception is put on the watchdog line's rank 0
    "evaluate-untagged-names-rank0-as-read": (EVALUATE_UNTAGGED, None, None, 0, "python-exception"),
}
BATCHED = Batched("b383", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_slurm_multinode_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_evaluate_cache_collision_names_rank6_critical(tmp_path):
    """accelerate#3206 as collected: rank 6's exception with rank 0's watchdog line after it is a critical
    python-exception of rank 6, and the hang rule says rank 6 failed (rank 0 only waited)."""
    want = [("rank-failure", "critical", "python-exception", [6]), ("nccl-hang", "critical", "rank-failed", [6])]
    assert _gist(EVALUATE, tmp_path / "a", None, None) == want
    assert _gist(EVALUATE, tmp_path / "b", 4, 8) == want


def test_rank6_traceback_alone_is_a_warning(tmp_path):
    """Without rank 0's watchdog line the paste holds rank 6's lines only: rank 6 at warning, confidence medium."""
    findings = pasted_findings(EVALUATE_RANK6_ONLY, tmp_path, 4, 8, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "python-exception", [6])
    ]
    assert findings[0]["confidence"] == "medium"


def test_rocm_invalid_device_pointer_names_rank7_not_yet(tmp_path):
    """pytorch-lightning#20438 as collected (NOT_YET, batch 383): rank 7's lone four lines name rank 7, a warning
    cuda-error at medium; the truth is a control (the ROCm stack fails every node-local pair alike)."""
    findings = pasted_findings(ROCM, tmp_path, 2, 8, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "cuda-error", [7])
    ]
    assert findings[0]["confidence"] == "medium"


def test_rocm_lines_on_every_rank_are_a_rankless_cuda_error(tmp_path):
    """The same lines on all eight ranks: one warning cuda-error of no rank."""
    assert _gist(ROCM_EVERY_RANK, tmp_path, 2, 8) == [("rank-failure", "warning", "cuda-error", [])]


def test_srun_per_node_task_line_unseats_rank6_as_read(tmp_path):
    """srun numbers its own tasks; with one task per node (accelerate launch per node) ``task 1`` is node 1, the
    launcher of ranks 4-7, not rank 1. Read as rank 1 it is a second failing rank: no single culprit (as read, not
    right: rank 6 is still the culprit)."""
    assert _gist(EVALUATE_SRUN_NODE_TASK, tmp_path, 4, 8) == [
        ("rank-failure", "warning", "python-exception", []),
        ("nccl-hang", "warning", "no-single-culprit", []),
    ]
