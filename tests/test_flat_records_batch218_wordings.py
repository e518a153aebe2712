"""Multi-GPU training and evaluation of autonomous-driving perception and planning models (real incidents batch 218),
and the one paste shape the batch brought: a launcher's and c10d's records run together on one line.

Miss fixed: UniAD's evaluation on two RTX 4090s (OpenDriveLab/UniAD#229) whose quoted paste lost its line breaks, so
``[Rank 0] Watchdog caught … OpType=ALLREDUCE …``, c10d's teardown records, the agent's SIGTERM to the live peer and
its ``failed (exitcode: -6) local_rank: 0`` stood on one line and only the first record was read (no finding). The
paste repair now cuts such a line before each record header that follows a space (``log_flat_records``): rank 0 waited
in the barrier, rank 1 never joined, as pasted, unquoted, in torchrun 2.x's wording and with four ranks. Held: spconv's
illegal address on local rank 0 under OpenPCDet (traveller59/spconv#426) names rank 0, cuda-error; the controls
(OpenPCDet#1608's banner and argparse usage, bevfusion#277's Open MPI slots, bevfusion#440's stuck evaluation,
distill-bev#4's best-guess-GPU warning) name no one, as pasted and in their layouts. Contrasts: the same records on
lines of their own read the same; a line that does not start with a record, a header glued to a tag and the agent's
glog record whose message is a traceback are not cut (docs/rules.md, "Session 37: batch 218"). Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.parsers.log_flat_records import split_flat_records

NOW = dt.datetime(2026, 12, 2, 15, 0, tzinfo=dt.timezone.utc)

SPCONV = corpus_lines("spconv-426-")
UNIAD = corpus_lines("UniAD-229-")
PCDET_USAGE = corpus_lines("OpenPCDet-1608-")
MPI_SLOTS = corpus_lines("bevfusion-277-")
EVAL_STUCK = corpus_lines("bevfusion-440-")
BEST_GUESS = corpus_lines("distill-bev-4-")

#: UniAD-229 without the quote marks
UNIAD_UNQUOTED = [line[2:] if line.startswith("> ") else line.lstrip(">") for line in UNIAD]
#: the same records as the program printed them, one a line
UNIAD_LINES = UNIAD[:2] + [
    "> [E ProcessGroupNCCL.cpp:828] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, "
    "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1808032 milliseconds before timing out.",
    "> [E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
    "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
    "> [E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.",
    "> WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 1264395 closing signal SIGTERM",
    "> ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 1264394) of "
    "binary: /home/u/miniconda3/envs/uniad2.0/bin/python",
]
#: torchrun 2.x's wording, run together the same way
UNIAD_TORCH2 = [
    "[>>>>>>>>>>>>>>>>>>>>>>>>>>] 6020/6019, 3.1 task/s, elapsed: 1919s, ETA: 0s",
    "[rank0]:[E1204 23:21:18.043790828 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800093 "
    "milliseconds before timing out. [2024-12-04 23:21:19,412] torch.distributed.elastic.multiprocessing.api: "
    "[WARNING] Sending process 88211 closing signal SIGTERM [2024-12-04 23:21:20,007] "
    "torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) local_rank: 0 (pid: 88210) of "
    "binary: /opt/conda/bin/python",
]
#: four ranks: three watchdogs and the agent's records run together, rank 3 silent
FOUR_FLAT = [
    " ".join(
        [f"[E ProcessGroupNCCL.cpp:828] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, "
         f"OpType=ALLREDUCE, Timeout(ms)=1800000) ran for {1808032 + 9 * r} milliseconds before timing out." for r in (0, 1, 2)]
        + ["WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 7702 closing signal SIGTERM",
           "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 7703 closing signal SIGTERM",
           "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 7704 closing signal SIGTERM",
           "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 (pid: 7701) of "
           "binary: /usr/bin/python"]),
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # UniAD-229's shape: rank 0 waited in the post-test barrier, the agent SIGTERMs the live peer: rank 1 never joined
    "uniad-flattened-quote-as-pasted-layout-2": (UNIAD, 2, 2, 1, "never-joined"),
    "uniad-flattened-unquoted-layout-2": (UNIAD_UNQUOTED, 2, 2, 1, "never-joined"),
    "uniad-records-one-a-line-layout-2": (UNIAD_LINES, 2, 2, 1, "never-joined"),
    "uniad-flattened-torch2-wording-layout-2": (UNIAD_TORCH2, 2, 2, 1, "never-joined"),
    "four-ranks-flattened-rank3-silent-layout-4": (FOUR_FLAT, 4, 4, 3, "never-joined"),
    # spconv-426's shape: local rank 0's sparse-conv kernel faulted, the agent names it
    "spconv-illegal-address-as-pasted": (SPCONV, None, None, 0, "cuda-error"),
    "spconv-illegal-address-layout-2": (SPCONV, 2, 2, 0, "cuda-error"),
    # the controls: no one
    "openpcdet-banner-usage-as-pasted": (PCDET_USAGE, None, None, None, None),
    "openpcdet-banner-usage-layout-4": (PCDET_USAGE, 4, 4, None, None),
    "openmpi-not-enough-slots-as-pasted": (MPI_SLOTS, None, None, None, None),
    "openmpi-not-enough-slots-layout-6": (MPI_SLOTS, 6, 6, None, None),
    "bevfusion-eval-stuck-as-pasted": (EVAL_STUCK, None, None, None, None),
    "bevfusion-eval-stuck-layout-2": (EVAL_STUCK, 2, 2, None, None),
    "best-guess-gpu-warning-as-pasted": (BEST_GUESS, None, None, None, None),
    "best-guess-gpu-warning-layout-4": (BEST_GUESS, 4, 4, None, None),
}
BATCHED = Batched("b218", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_bev_planning_wordings(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_flattened_records_are_cut_before_each_header():
    (flat,) = [line[2:] for line in UNIAD if "Watchdog" in line]
    lines, note = split_flat_records([flat])
    assert note == "records run together on one line split apart (1 lines)"
    heads = ("[E ProcessGroupNCCL.cpp:828]", "[E ProcessGroupNCCL.cpp:455]", "[E ProcessGroupNCCL.cpp:460]",
             "WARNING:torch.distributed.elastic", "ERROR:torch.distributed.elastic", "Traceback (most recent call last):")
    assert len(lines) == len(heads) and all(line.startswith(head) for line, head in zip(lines, heads)), lines
    assert lines[3].endswith("closing signal SIGTERM") and lines[4].endswith("/bin/python")


@pytest.mark.parametrize("line", [
    # a sentence that quotes records: it does not start with one
    "I got ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 0 and then "
    "[E ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down.",
    # the agent's glog record whose message is the worker's traceback
    "E1224 07:25:49.545000 9468 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] Traceback "
    "(most recent call last):",
    # a logger's record glued to a rank tag and a glog header (torchrunx), its message a traceback
    "ERROR:torchrunx.localhost:[rank1]:E0204 21:34:02.943000 6578 .venv/lib/python3.12/site-packages/torch/"
    "distributed/elastic/multiprocessing/api.py:869] Traceback (most recent call last):",
    # one record whose message names another logger without a lost line break before it
    "[E ProcessGroupNCCL.cpp:737] [Rank 1] Some NCCL operations have failed or timed out.:ERROR:root:x",
])
def test_lines_that_are_one_record_stay_whole(line):
    assert split_flat_records([line]) == ([line], None)
