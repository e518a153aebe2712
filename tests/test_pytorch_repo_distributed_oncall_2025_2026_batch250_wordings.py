"""pytorch/pytorch distributed on-call threads of 2025-2026 (real incidents batch 250), pinned as read. Four controls
collected blind: a DGX B200's ``torch_symm_mem.rendezvous`` raising ``CUDA driver error: system not yet initialized``
on ranks 0 and 1 alike (pytorch#167537: the node's driver / fabric manager state, a reboot clears it), read as two
ranks failing alike, no one named; an RTX PRO 6000's DDP ``dist.Reducer(`` traceback tagged ``[rank3]:`` only, ending
``CUDA error: an illegal memory access was encountered`` (pytorch#178085: the platform, not rank 3), read as the lone
rank's CUDA error and named (rank 3, cuda-error: NOT_YET in tests/corpus_not_yet_s38.py); two nodes' NVSHMEM lines
``[GPU 3] Peer GPU 8 is not accessible`` on a line tagged ``[s6]:`` (pytorch#170479: a topology the NVSHMEM build does
not reach across nodes), read as nothing; torchrun's ``bug.py FAILED`` summary listing rank 1 under ``Failures:`` of a
``TORCH_DISTRIBUTED_DEBUG=DETAIL`` barrier whose mismatch line the excerpt cut (pytorch#148976: a fingerprint check
of torch, reproducible on every run), read as a Root Cause the paste does not hold, no one named. Scored 3/4 both ways
as collected at 7891346e; no rule changed (measure only).
Contrasts: rank 0's symm-mem tail alone (its CUDA 802) named rank 0, and no one since session 55 (the node's); rank 3's tail copied as rank 0's
names no one; the tail without its rank tags names no one; NVSHMEM's failure on ``[rank3]:``-tagged lines with a
``RuntimeError`` names rank 3; the summary with rank 1 as torchrun's Root Cause (no other failures) names rank 1.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 9, 30, tzinfo=dt.timezone.utc)

SYMM_802 = corpus_lines("pytorch-167537-")
DDP_IMA = corpus_lines("pytorch-178085-")
NVSHMEM_PEER = corpus_lines("pytorch-170479-")
DETAIL_BARRIER = corpus_lines("pytorch-148976-")

#: rank 0's traceback alone, rank 1's head left out: a lone rank's exception
RANK0_SYMM_ALONE = SYMM_802[:10]
#: rank 1's traceback completed with the same error line as rank 0's
RANK1_SYMM_COMPLETED = SYMM_802 + [
    "[rank1]:     return _SymmetricMemory.rendezvous(tensor, group_name)",
    "[rank1]: RuntimeError: CUDA driver error: system not yet initialized",
]
#: rank 3's DDP tail followed by the same tail from rank 0: two ranks alike
IMA_RANK0_COPY = DDP_IMA + [line.replace("[rank3]:", "[rank0]:") for line in DDP_IMA[:7]]
#: rank 3's DDP tail with the ``[rank3]: `` tags taken off: the failing line names no rank
IMA_UNTAGGED = [line.replace("[rank3]: ", "") for line in DDP_IMA]
#: NVSHMEM's two lines as rank 3 would print them, with the exception torch raises on top
NVSHMEM_RANK3 = [line.replace("[s6]:", "[rank3]:") for line in NVSHMEM_PEER[:2]] + [
    "[rank3]: RuntimeError: NVSHMEM init failed: building transport map failed",
]
#: torchrun's summary with rank 1 as the Root Cause and no other failures
BARRIER_ROOT_CAUSE = DETAIL_BARRIER[:3] + [
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
] + DETAIL_BARRIER[5:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, as pasted and laid out as the threads say
    "symm-802-as-pasted": (SYMM_802, None, None, None, None),
    "symm-802-one-node-of-8": (SYMM_802, 8, 8, None, None),
    "ddp-ima-as-pasted": (DDP_IMA, None, None, 3, "cuda-error"),
    "ddp-ima-one-node-of-4": (DDP_IMA, 4, 4, 3, "cuda-error"),
    "nvshmem-peer-as-pasted": (NVSHMEM_PEER, None, None, None, None),
    "nvshmem-peer-2x8": (NVSHMEM_PEER, 8, 16, None, None),
    "detail-barrier-as-pasted": (DETAIL_BARRIER, None, None, None, None),
    "detail-barrier-two-ranks": (DETAIL_BARRIER, 2, 2, None, None),
    # contrasts
    "rank0-symm-alone-names-none": (RANK0_SYMM_ALONE, None, None, None, None),  # rank 0 before session 55 (802: the node's)
    "rank1-symm-completed-names-none": (RANK1_SYMM_COMPLETED, None, None, None, None),
    "ima-rank0-copy-names-none": (IMA_RANK0_COPY, None, None, None, None),
    "ima-untagged-names-none": (IMA_UNTAGGED, None, None, None, None),
    "nvshmem-rank3-tagged-names-rank3": (NVSHMEM_RANK3, None, None, 3, "python-exception"),
    "barrier-root-cause-names-rank1": (BARRIER_ROOT_CAUSE, None, None, 1, "python-exception"),
}
BATCHED = Batched("b250", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_pytorch_oncall_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _findings(lines: list[str], tmp_path: Path, nproc: int | None = None, world: int | None = None):
    from k10s_forensics.analyze.runner import analyze

    return analyze(pasted(lines, tmp_path, nproc, NOW, world=world))["findings"]


def test_symm_802_reads_two_ranks_alike(tmp_path):
    """Ranks 0 and 1 failing in one rendezvous in a log without a clock: the two are said alike, no culprit."""
    alike = [f for f in _findings(SYMM_802, tmp_path) if f["rule"] == "rank-failure"]
    assert len(alike) == 1 and not alike[0]["ranks"], [(f["rule"], f["ranks"]) for f in alike]
    assert "Ranks 0, 1" in alike[0]["summary"] and "no single culprit" in alike[0]["summary"], alike[0]["summary"]


def test_ddp_ima_is_read_as_rank3s_cuda_error(tmp_path):
    """The lone ``[rank3]:`` tail is rank 3's CUDA error, a warning whose summary says only its lines are pasted."""
    named = naming_findings(_findings(DDP_IMA, tmp_path))
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in named] == [
        ("rank-failure", "warning", "cuda-error", [3])
    ], named
    assert "Rank 3" in named[0]["summary"], named[0]["summary"]


def test_nvshmem_peer_lines_find_nothing(tmp_path):
    """NVSHMEM's peer-not-accessible lines on an ``[s6]:`` tag give no finding at all, not even a rankless one."""
    findings = _findings(NVSHMEM_PEER, tmp_path, 8, 16)
    assert not [f for f in findings if f["severity"] in ("critical", "warning")], [
        (f["rule"], f["severity"], f["cause"]) for f in findings
    ]


def test_detail_barrier_says_the_root_cause_is_unseen(tmp_path):
    """rank 1 under ``Failures:`` with no Root Cause entry in the paste: another worker failed unseen, no culprit."""
    failures = [f for f in _findings(DETAIL_BARRIER, tmp_path) if f["rule"] == "rank-failure"]
    assert len(failures) == 1 and not failures[0]["ranks"], [(f["rule"], f["ranks"]) for f in failures]
    assert "Root Cause entry the paste does not hold" in failures[0]["summary"], failures[0]["summary"]
