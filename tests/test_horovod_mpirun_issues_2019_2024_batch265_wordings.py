"""Horovod / mpirun threads of 2019-2024 (real incidents batch 265), pinned as read. Two culprit cases and three
controls, collected blind and scored 2/5 both ways as collected (the three misses are NOT_YET, tests/corpus_not_yet_s38):
Lightning's Horovod CI test where rank 1 alone prints a traceback into ``load_model_from_checkpoint``
(Lightning-AI/pytorch-lightning#2425: the rank-0-only logger leaves rank 1 no experiment directory), every line behind
the CI viewer's ``1003 | `` line number, read as nothing; rank 25's ``terminate called ... cudaEventQuery failed: an
illegal memory access`` and Open MPI's ``Signal: Aborted (6)`` handler lines on a >5-node run (horovod/horovod#2365),
with no launcher line, read as nothing (since session 61: rank 25's CUDA error, docs/rules.md "Session 61: a C++ check
naming the CUDA call"); two hosts' network receivers, rank 4 (``Socket creation failed : Address family
not supported by protocol``) and rank 0 (the same ``init.cu:915 -> 2``), read as nothing (NVIDIA/nccl#224, a control);
rank 3's lone ``include/shm.h:42 NCCL WARN Cuda failure 'invalid argument'`` on a 3+3 layout that fails whenever more
than 2 processes share a node (horovod/horovod#1122, a control), read as rank 3's CUDA error; two processes' interleaved
segfault backtraces in Horovod's NCCL allreduce on one host (horovod/horovod#3625, a control), read as nothing.
Contrasts: Lightning's lines without the CI numbers and with the exception name rank 1; with mpirun's ``process rank 25
... exited on signal 6`` rank 25 is named (its CUDA error the cause since session 61); rank 0's error return dropped, rank 4's own NCCL exception names rank
4, while with rank 0's line kept it stays two processes alike; rank 0 warning like rank 3 names no one; mpirun's
segfault line for rank 1 names rank 1. Pasted logs through ``k10s import-logs``, batched. Measure only: no rule changed.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 18, 30, tzinfo=dt.timezone.utc)

LIGHTNING_CI = corpus_lines("pytorch-lightning-2425-")
RANK25_ABORT = corpus_lines("horovod-2365-")
SOCKET_FAMILY = corpus_lines("nccl-224-")
SHM_INVALID = corpus_lines("horovod-1122-")
ALLREDUCE_SEGV = corpus_lines("horovod-3625-")

#: Lightning's lines as the CI log holds them, without the viewer's ``1003 | `` numbers and its ``--`` separator
LIGHTNING_UNNUMBERED = [line.split(" | ", 1)[-1] for line in LIGHTNING_CI if line != "--"]
#: the same, with the exception line the excerpt cut
LIGHTNING_WITH_EXCEPTION = LIGHTNING_UNNUMBERED + [
    "Tue Jun 30 20:49:24 2020[1]<stderr>:TypeError: expected str, bytes or os.PathLike object, not NoneType"
]
#: rank 25's abort and the launcher's own line for it
RANK25_WITH_MPIRUN = RANK25_ABORT + [
    "--------------------------------------------------------------------------",
    "mpirun noticed that process rank 25 with PID 70259 on node c102 exited on signal 6 (Aborted).",
    "--------------------------------------------------------------------------",
]
#: rank 4's own NCCL exception after its warning, rank 0's error return kept: still two processes alike
RANK4_RAISES = SOCKET_FAMILY + ["[1,4]<stderr>:RuntimeError: ncclCommInitRank failed: unhandled system error"]
#: the same without rank 0's ``init.cu:915 -> 2`` (the first line): rank 4 alone
RANK4_RAISES_ALONE = SOCKET_FAMILY[1:] + ["[1,4]<stderr>:RuntimeError: ncclCommInitRank failed: unhandled system error"]
#: rank 0 on the other host printing the same shm warning as rank 3
SHM_TWO_HOSTS = SHM_INVALID + [
    "[1,0]<stdout>:mlc-cluster-22:7617:7635 [0] include/shm.h:42 NCCL WARN Cuda failure 'invalid argument'"
]
#: mpirun's line for rank 1's segfault after the backtraces
RANK1_SEGV_NOTICED = ALLREDUCE_SEGV + [
    "mpirun noticed that process rank 1 with PID 6503 on node biomind exited on signal 11 (Segmentation fault)."
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as pasted, and laid out as the threads say
    "lightning-ci-as-pasted": (LIGHTNING_CI, None, None, None, None),
    # session 61: rank 25's `what():  cudaEventQuery failed: an illegal memory access …` is its own CUDA error (Horovod's
    # check of a runtime call, log_patterns_cuda.RUNTIME_CALL_FAILED), read as torch's `CUDA error: …` is: it names rank 25
    "rank25-abort-as-pasted": (RANK25_ABORT, None, None, 25, "cuda-error"),
    "rank25-abort-4x32": (RANK25_ABORT, 4, 32, 25, "cuda-error"),
    "socket-family-as-pasted": (SOCKET_FAMILY, None, None, None, None),
    "socket-family-4x2": (SOCKET_FAMILY, 4, 8, None, None),
    "shm-invalid-as-pasted": (SHM_INVALID, None, None, 3, "cuda-error"),
    "shm-invalid-3x2": (SHM_INVALID, 3, 6, 3, "cuda-error"),
    "allreduce-segv-as-pasted": (ALLREDUCE_SEGV, None, None, None, None),
    "allreduce-segv-one-host-of-2": (ALLREDUCE_SEGV, 2, 2, None, None),
    # contrasts
    "lightning-with-exception-names-rank1": (LIGHTNING_WITH_EXCEPTION, None, None, 1, "python-exception"),
    # (session 61: the CUDA error before the abort is its cause, as for torch's wording with the same mpirun line)
    "rank25-with-mpirun-names-rank25": (RANK25_WITH_MPIRUN, None, None, 25, "cuda-error"),
    "rank25-with-mpirun-4x32-names-rank25": (RANK25_WITH_MPIRUN, 4, 32, 25, "cuda-error"),
    "rank4-raises-with-rank0-names-none": (RANK4_RAISES, 4, 8, None, None),
    "rank4-raises-alone-names-rank4": (RANK4_RAISES_ALONE, 4, 8, 4, "nccl-error"),
    "shm-two-hosts-names-none": (SHM_TWO_HOSTS, None, None, None, None),
    "rank1-segv-noticed-names-rank1": (RANK1_SEGV_NOTICED, 2, 2, 1, "segfault"),
}
BATCHED = Batched("b265", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_horovod_mpirun_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_lightning_ci_numbers_hide_the_rank_tag(tmp_path):
    """Behind the CI viewer's line numbers nothing is read at all; without them, rank 1's traceback cut before its
    exception is a suspect (info), not a culprit."""
    from k10s_forensics.analyze.runner import analyze

    numbered = analyze(pasted(LIGHTNING_CI, tmp_path / "numbered", None, NOW, world=None))["findings"]
    assert [f for f in numbered if f["rule"] == "rank-failure"] == [], [(f["rule"], f["ranks"]) for f in numbered]
    unnumbered = analyze(pasted(LIGHTNING_UNNUMBERED, tmp_path / "unnumbered", None, NOW, world=None))["findings"]
    assert_info_suspect(unnumbered, 1)


def test_socket_family_with_rank0_reads_two_processes_alike(tmp_path):
    """Rank 4's NCCL exception beside rank 0's same ``init.cu:915 -> 2``: one NCCL failure of two processes, said so,
    no single culprit."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(RANK4_RAISES, tmp_path, 4, NOW, world=8))["findings"]
    alike = [f for f in findings if f["rule"] == "rank-failure"]
    assert alike and all(not f["ranks"] for f in alike), [(f["rule"], f["ranks"]) for f in findings]
    assert "no single culprit" in alike[0]["summary"], alike[0]["summary"]
    assert alike[0]["cause"] == "nccl-error", alike[0]["cause"]


def test_shm_warning_on_two_hosts_reads_ranks_alike(tmp_path):
    """Rank 0 warning like rank 3: two ranks' CUDA error in a log without a clock, named together as alike."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(SHM_TWO_HOSTS, tmp_path, 3, NOW, world=6))["findings"]
    alike = [f for f in findings if f["rule"] == "rank-failure"]
    assert alike and all(not f["ranks"] for f in alike), [(f["rule"], f["ranks"]) for f in findings]
    assert "Ranks 0, 3" in alike[0]["summary"], alike[0]["summary"]
