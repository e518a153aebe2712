"""Question-and-answer DDP failures (real incidents batch 257, family ``stackoverflow-serverfault-reddit-ddp``), pinned
as read. Four controls that name no one, as pasted and laid out by their own nproc/world: LMFlow's RAFT example whose
two processes both raise ``TypeError: deepspeed_init() got an unexpected keyword argument 'resume_from_checkpoint'``
(OptimalScale/LMFlow#639: RAFT against the installed ``transformers``, every process alike); ColossalChat on two GPUs
whose ranks 1 and 0 both time out in the first ALLGATHER, SeqNum=1 (hpcaitech/ColossalAI#3701: fine on one GPU, no
rank named); a Mistral fine-tune whose ranks 1 and 0 both abort on the first BROADCAST, SeqNum=1
(bdytx5/mistral7B_finetune#1); rank 0's watchdog abort on an end-of-epoch ``_ALLGATHER_BASE`` followed by the agent's
three SIGTERMs (zhoubenjia/MotionRGBD-PAMI#1: the stalled peer is not shown). Scored 4/4 both ways as collected; no
rule changed (measure only). Contrasts: the elastic root-cause block naming rank 1 after LMFlow's traceback names
rank 1 (python-exception); a rank's own CUDA OOM printed before the first-collective timeouts names that rank; the
agent's ``exitcode: -9`` for local rank 0 after the epoch-end abort names rank 0 (host-oom-kill).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_cases
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 13, 30, tzinfo=dt.timezone.utc)

RAFT_TYPEERROR = corpus_lines("LMFlow-639-")
FIRST_ALLGATHER = corpus_lines("ColossalAI-3701-")
FIRST_BROADCAST = corpus_lines("mistral7B_finetune-1-")
EPOCH_END_ABORT = corpus_lines("MotionRGBD-PAMI-1-")

#: the first traceback alone, then torchrun's elastic summary naming rank 1 as the first observed failure
ROOT_CAUSE_RANK1 = RAFT_TYPEERROR[:-1] + [
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2023-09-10_10:00:00",
    "  host      : node",
    "  rank      : 1 (local_rank: 1)",
    "  exitcode  : 1 (pid: 4242)",
    "  error_file: <N/A>",
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
]
#: rank 1's own CUDA OOM printed before both first-collective timeouts
RANK1_OOM_FIRST = [
    "[rank1]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; 23.69 GiB total "
    "capacity; 21.50 GiB already allocated)"
] + FIRST_ALLGATHER
#: rank 0's own CUDA OOM printed before both BROADCAST aborts
RANK0_OOM_FIRST = [
    "[rank0]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total "
    "capacity; 21.50 GiB already allocated)"
] + FIRST_BROADCAST
#: the agent's SIGKILL line for local rank 0 in place of rank 0's own watchdog abort
RANK0_SIGKILLED = EPOCH_END_ABORT[2:] + [
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 225746) of binary: "
    "/usr/bin/python"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "raft-typeerror-as-pasted": (RAFT_TYPEERROR, None, None, None, None),
    "raft-typeerror-two-procs": (RAFT_TYPEERROR, 2, 2, None, None),
    "first-allgather-as-pasted": (FIRST_ALLGATHER, None, None, None, None),
    "first-allgather-two-gpus": (FIRST_ALLGATHER, 2, 2, None, None),
    "first-broadcast-as-pasted": (FIRST_BROADCAST, None, None, None, None),
    "first-broadcast-two-gpus": (FIRST_BROADCAST, 2, 2, None, None),
    "epoch-end-abort-as-pasted": (EPOCH_END_ABORT, None, None, None, None),
    "epoch-end-abort-one-node-of-4": (EPOCH_END_ABORT, 4, 4, None, None),
    # contrasts
    # the Root Cause block names rank 1, but its error is a signature TypeError: every rank's since session 56
    "root-cause-block-signature-typeerror-names-none": (ROOT_CAUSE_RANK1, 2, 2, None, None),
    "rank1-oom-first-names-rank1": (RANK1_OOM_FIRST, 2, 2, 1, "cuda-oom"),
    "rank0-oom-first-names-rank0": (RANK0_OOM_FIRST, 2, 2, 0, "cuda-oom"),
    "rank0-sigkilled-names-rank0": (RANK0_SIGKILLED, 4, 4, 0, "host-oom-kill"),
}
BATCHED = Batched("b257", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_qa_ddp_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_two_ranks_in_the_first_collective_name_no_one(tmp_path):
    """Ranks 1 and 0 both timing out in SeqNum=1: every rank reached the first collective, so no rank is blamed."""
    from k10s_forensics.analyze.runner import analyze

    for lines in (FIRST_ALLGATHER, FIRST_BROADCAST):
        findings = analyze(pasted(lines, tmp_path / str(len(lines)), 2, NOW, world=2))["findings"]
        assert not naming_findings(findings), [(f["rule"], f["ranks"]) for f in findings]


def test_raft_typeerror_names_no_one_without_the_root_cause(tmp_path):
    """The same traceback without the elastic summary names no rank: the summary's rank is what makes the contrast."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(RAFT_TYPEERROR[:-1], tmp_path, 2, NOW, world=2))["findings"]
    assert not naming_findings(findings), [(f["rule"], f["ranks"]) for f in findings]
