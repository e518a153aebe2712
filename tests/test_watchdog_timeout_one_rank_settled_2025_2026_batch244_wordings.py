"""Watchdog timeouts of 2025-2026 (real incidents batch 244), pinned as read. Five controls that name no one, as
pasted and laid out by their own nproc/world: RF-DETR's rank 1 waiting in the validation metric all-gather, its
``SeqNum=492`` / ``09`` wrapped by the terminal behind ``^[[A`` escapes (roboflow/rf-detr#931: a divergent metric-sync
collective count on whichever rank's shard has no annotations, a rank never printed); WeatherGenerator's srun task 11
tail, ALLREDUCE SeqNum 52 (ecmwf/WeatherGenerator#360: fixed by reinstalling the whole environment); Qwen3-VL LoRA
ranks 6 and 7 on the same ALLGATHER 81220 (2U1/Qwen-VL-Series-Finetune#243: open, no rank named); verl's Qwen3-Next
``[rank7]`` (``Rank 1`` of ``mesh_sp``) the first to signal the dump and ``[rank0]`` observing it
(verl-project/verl#5414: no cause given); Qwen3-Omni ZeRO-3 ``[rank2]`` dumping on its own timer while ranks 3, 1, 7,
6 observe (hiyouga/LlamaFactory#9474: open, pending). Scored 5/5 both ways as collected; no rule changed (measure only).
Contrasts: a ``[rankN]:`` traceback or OOM of one rank, before or after the timeouts, names that rank; a third rank
one sequence number behind ranks 6 and 7 is the desync's culprit; rank 1's status line without its two wrapped lines
plus rank 0's traceback names rank 0.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 7, 30, tzinfo=dt.timezone.utc)

METRIC_SYNC = corpus_lines("rf-detr-931-")
ENV_REINSTALL = corpus_lines("WeatherGenerator-360-")
TWO_WAITERS = corpus_lines("Qwen-VL-Series-Finetune-243-")
SP_ALLTOALL = corpus_lines("verl-5414-")
OMNI_ZERO3 = corpus_lines("LlamaFactory-9474-")

#: rank 0's CUDA error traceback, as torch prints a rank's exception
RANK0_TRACEBACK = [
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/workspace/rf-detr/train.py", line 12, in <module>',
    "[rank0]:     main()",
    "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered",
]
#: rank 0 failing before rank 1's wait is reported
RANK0_FIRST = RANK0_TRACEBACK + METRIC_SYNC
#: rank 1's status line alone (its wrapped watchdog lines left out) after rank 0's traceback
STATUS_LINE_AND_RANK0 = METRIC_SYNC[2:] + RANK0_TRACEBACK
#: another srun task's OOM before task 11's tail
TASK3_OOM = [
    "3: [rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity "
    "of 94.50 GiB of which 1.02 GiB is free."
] + ENV_REINSTALL
#: a third rank one collective behind the two waiters
RANK3_BEHIND = TWO_WAITERS + [
    TWO_WAITERS[0].replace("[rank6]", "[rank3]").replace("[Rank 6]", "[Rank 3]").replace("SeqNum=81220", "SeqNum=81219")
]
#: a Ray worker's OOM traceback in the same job
WORKER3_OOM = SP_ALLTOALL + [
    "(WorkerDict pid=3934731) [rank3]: Traceback (most recent call last):",
    '(WorkerDict pid=3934731) [rank3]:   File "/workspace/verl/verl/workers/fsdp_workers.py", line 512, in update_actor',
    "(WorkerDict pid=3934731) [rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB.",
]
#: rank 5's exception before the dump signals
RANK5_EXCEPTION = [
    "[rank5]: Traceback (most recent call last):",
    '[rank5]:   File "/workspace/LLaMA-Factory/src/llamafactory/launcher.py", line 23, in <module>',
    "[rank5]:     launch()",
    "[rank5]: ValueError: Image features and image tokens do not match: tokens: 0, features 256",
] + OMNI_ZERO3

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "metric-sync-as-pasted": (METRIC_SYNC, None, None, None, None),
    "metric-sync-one-node-of-4": (METRIC_SYNC, 4, 4, None, None),
    "env-reinstall-as-pasted": (ENV_REINSTALL, None, None, None, None),
    "two-waiters-as-pasted": (TWO_WAITERS, None, None, None, None),
    "two-waiters-one-node-of-8": (TWO_WAITERS, 8, 8, None, None),
    "sp-alltoall-as-pasted": (SP_ALLTOALL, None, None, None, None),
    "omni-zero3-as-pasted": (OMNI_ZERO3, None, None, None, None),
    "omni-zero3-nodes-of-8": (OMNI_ZERO3, 8, None, None, None),
    # contrasts
    "rank0-traceback-first-names-rank0": (RANK0_FIRST, 4, 4, 0, "cuda-error"),
    "status-line-and-rank0-names-rank0": (STATUS_LINE_AND_RANK0, 4, 4, 0, "cuda-error"),
    "task3-oom-names-rank3": (TASK3_OOM, None, None, 3, "cuda-oom"),
    "rank3-behind-names-rank3": (RANK3_BEHIND, 8, 8, 3, "desync"),
    "worker3-oom-names-rank3": (WORKER3_OOM, None, None, 3, "cuda-oom"),
    "rank5-exception-names-rank5": (RANK5_EXCEPTION, 8, None, 5, "python-exception"),
}
BATCHED = Batched("b244", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_watchdog_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines, tmp_path, nproc, world):
    return pasted_findings(lines, tmp_path, nproc, world, NOW)


def test_two_waiters_read_as_no_single_culprit(tmp_path):
    """Ranks 6 and 7 on the same ALLGATHER: a hang said to have no single culprit, naming no rank."""
    found = [(f["rule"], f["cause"], f["ranks"]) for f in _findings(TWO_WAITERS, tmp_path, 8, 8)]
    assert found == [("nccl-hang", "no-single-culprit", [])], found


def test_sp_alltoall_reads_as_a_group_hang(tmp_path):
    """The first detector of the sequence-parallel ALLTOALL and the observer: a group hang, no rank named."""
    found = [(f["rule"], f["cause"], f["ranks"]) for f in _findings(SP_ALLTOALL, tmp_path, None, None)]
    assert found == [("nccl-hang", "group-hang", [])], found


def test_rank3_behind_is_the_desync_not_the_waiters(tmp_path):
    """One sequence number behind ranks 6 and 7, rank 3 is named; the waiters are not."""
    named = naming_findings(_findings(RANK3_BEHIND, tmp_path, 8, 8))
    assert [(f["cause"], f["ranks"]) for f in named] == [("desync", [3])], named
