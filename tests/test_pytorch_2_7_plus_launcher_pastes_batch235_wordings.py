"""PyTorch 2.7+ launcher pastes (real incidents batch 235), pinned as read. Two culprits: ms-swift's elastic agent
SIGTERMing three workers and reporting ``failed (exitcode: -6) local_rank: 3`` after CPython's ``none_dealloc`` fatal
error in that worker (modelscope/ms-swift#4353: rank 3, abort); LLaMA-Factory's ZeRO-3 run whose ChildFailedError
table holds one root cause, ``rank : 5 (local_rank: 5)`` exit 1, and ``<NO_OTHER_FAILURES>``
(hiyouga/LlamaFactory#9194: rank 5, python-exception). Two controls that name no one: verl's rank 1 watchdog on the
first all-reduce (``SeqNum=1``, ``last completed NCCL work: -1``) under Slurm only (verl-project/verl#597), and the
head of axolotl's ``[rank7]:`` traceback, the example of an ImportError every H200 rank hits
(axolotl-ai-cloud/axolotl#3142). Scored 4/4 both ways as collected; no rule changed (measure only). ms-swift#4353 turned out to be
shared/real-samples' ms-swift-4353-torchrun-agent: dropped from the corpus at the merge, its shapes kept here.
Contrasts: without the agent's ``failed`` line the SIGTERMs name no one; exit -9 instead of -6 reads as a host OOM
kill; the table without its ``rank`` line names no one, with ``rank : 2`` names rank 2; a peer's ``[rank0]:`` CUDA OOM
before verl's watchdog names rank 0; axolotl's traceback with the agent's ``failed ... local_rank: 7`` names rank 7.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import REAL_SAMPLES_DIR, corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 4, 30, tzinfo=dt.timezone.utc)

#: ms-swift#4353 is shared/real-samples' ms-swift-4353-torchrun-agent (the same paste): the helper's copy was dropped
#: from the corpus at the merge, its shapes kept here
SWIFT_ABORT = (REAL_SAMPLES_DIR / "incidents" / "ms-swift-4353-torchrun-agent" / "log.txt").read_text(
    encoding="utf-8"
).splitlines()
ZERO3_TABLE = corpus_lines("LlamaFactory-9194-")
SLURM_FIRST = corpus_lines("verl-597-")
AXOLOTL_HEAD = corpus_lines("axolotl-3142-")

#: the agent's SIGTERMs alone, its ``failed ... local_rank: 3`` line left out
SWIFT_NO_FAILED = [line for line in SWIFT_ABORT if not line.startswith("E0526 ")]
#: the same failure with the kernel's SIGKILL (-9) instead of SIGABRT (-6)
SWIFT_SIGKILL = [line.replace("exitcode: -6", "exitcode: -9") for line in SWIFT_ABORT]
#: the root-cause table without its ``rank`` line, and with rank 2 in it
TABLE_NO_RANK = [line for line in ZERO3_TABLE if not line.startswith("  rank      :")]
TABLE_RANK2 = [line.replace("5 (local_rank: 5)", "2 (local_rank: 2)") for line in ZERO3_TABLE]
#: a peer's CUDA OOM, tagged by its rank, before rank 1's first-collective watchdog
PEER_OOM = [
    "(WorkerDict pid=231420) [rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 "
    "has a total capacity of 79.10 GiB of which 1.00 GiB is free."
] + SLURM_FIRST
#: the head of rank 7's traceback and the agent's line for local rank 7
AXOLOTL_AGENT = AXOLOTL_HEAD + [
    "E0101 00:00:01.000000 4242 site-packages/torch/distributed/elastic/multiprocessing/api.py:874] failed "
    "(exitcode: 1) local_rank: 7 (pid: 4250) of binary: /root/miniconda3/envs/py3.11/bin/python3"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # culprits, as pasted and laid out as the threads say
    "swift-abort-as-pasted": (SWIFT_ABORT, None, None, 3, "abort"),
    "swift-abort-one-node-of-4": (SWIFT_ABORT, 4, 4, 3, "abort"),
    "zero3-table-as-pasted": (ZERO3_TABLE, None, None, 5, "python-exception"),
    "zero3-table-one-node-of-8": (ZERO3_TABLE, 8, 8, 5, "python-exception"),
    # controls
    "slurm-first-as-pasted": (SLURM_FIRST, None, None, None, None),
    "slurm-first-pods-of-8": (SLURM_FIRST, 8, 8, None, None),
    "axolotl-head-as-pasted": (AXOLOTL_HEAD, None, None, None, None),
    "axolotl-head-one-node-of-8": (AXOLOTL_HEAD, 8, 8, None, None),
    # contrasts
    "swift-no-failed-names-none": (SWIFT_NO_FAILED, None, None, None, None),
    "swift-sigkill-names-rank3-oom-kill": (SWIFT_SIGKILL, None, None, 3, "host-oom-kill"),
    "table-no-rank-names-none": (TABLE_NO_RANK, None, None, None, None),
    "table-rank2-names-rank2": (TABLE_RANK2, None, None, 2, "python-exception"),
    "peer-oom-names-rank0": (PEER_OOM, 8, 8, 0, "cuda-oom"),
    "axolotl-agent-names-rank7": (AXOLOTL_AGENT, None, None, 7, "python-exception"),
}
BATCHED = Batched("b235", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_launcher_pastes_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_swift_abort_is_a_warning_not_critical(tmp_path):
    """Rank 3's -6 is known by the launcher's exit code alone: named, at warning (what a paste cannot prove)."""
    from k10s_forensics.analyze.runner import analyze

    named = naming_findings(analyze(pasted(SWIFT_ABORT, tmp_path, 4, NOW, world=4))["findings"])
    assert [(f["rule"], f["severity"], f["ranks"]) for f in named] == [("rank-failure", "warning", [3])], named
