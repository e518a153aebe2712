"""Blackwell (B200 / GB200 NVL72 / SM120) training failures (real incidents batch 231), pinned as read. Five controls
that name no one, as pasted and laid out by their own nproc/world: 8 B200 whose first barrier fails with ``Cuda failure
802 'system not yet initialized'`` on ranks 0 and 2 alike (hiyouga/LlamaFactory#8968: fabric manager and driver of
different versions, a node state); slime's Megatron rank on SM120 whose NCCL warns ``Cuda failure 'named symbol not
found'`` on a line that names no rank (THUDM/slime#1106: the image's stack on that GPU generation); a B200 node's dmesg
``Xid 145`` / ``Xid 137`` on NVLink link 11 under a 2-GPU NVLS AllGather deadlock (NVIDIA/nccl#2241: fabric manager /
NVLink, read as gpu-health on the node, no rank); GB200 GRPO policy workers 5 and 1 each spending over an hour in the
post-refit offload and rank 3's abridged watchdog (NVIDIA-NeMo/RL#2462: the offload path on GB200, read as nothing);
a 44-rank MNNVL ``ray.util.collective`` start-up with worker ``r13``'s progress (NVIDIA/nccl#2186: a deterministic NCCL
crash at cliqueSize >= 44, read as nothing). Scored 5/5 both ways as collected; no rule changed (measure only).
Contrasts: the same rank-0 802 tail without rank 2's lines named rank 0 (the lone-rank shape) and names no one since
session 55 (802 is the node's, common mode); slime's failure
on a ``[rank1]:``-tagged line names rank 1 (cuda-error); the watchdog joined onto one line still names no one.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 3, 17, 30, tzinfo=dt.timezone.utc)

FABRIC_802 = corpus_lines("LlamaFactory-8968-")
SM120_SYMBOL = corpus_lines("slime-1106-")
DMESG_XID = corpus_lines("nccl-2241-")
REFIT_HANG = corpus_lines("NeMo-RL-2462-")
MNNVL_44 = corpus_lines("nccl-2186-")

#: rank 0's tail alone, rank 2's traceback left out: a lone rank's CUDA error
RANK0_802_ALONE = FABRIC_802[:10]
#: slime's failure on lines the ranks tag themselves (``[rank1]:``), as torch prints a rank's exception
RANK1_TAGGED = SM120_SYMBOL[:-1] + [
    "(MegatronTrainRayActor pid=228664) [rank1]: torch.distributed.DistBackendError: NCCL error in: "
    "/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for "
    "details), NCCL version 2.27.5",
    "(MegatronTrainRayActor pid=228664) [rank1]: Last error:",
    "(MegatronTrainRayActor pid=228664) [rank1]: Cuda failure 'named symbol not found'",
]
#: the author's two-line watchdog joined into one
WATCHDOG_JOINED = REFIT_HANG[:-2] + [REFIT_HANG[-2] + " " + REFIT_HANG[-1]]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "fabric-802-as-pasted": (FABRIC_802, None, None, None, None),
    "fabric-802-one-node-of-8": (FABRIC_802, 8, 8, None, None),
    "sm120-symbol-as-pasted": (SM120_SYMBOL, None, None, None, None),
    "sm120-symbol-pods-of-8": (SM120_SYMBOL, 8, 8, None, None),
    "dmesg-xid-as-pasted": (DMESG_XID, None, None, None, None),
    "dmesg-xid-two-gpus": (DMESG_XID, 2, 2, None, None),
    "refit-hang-as-pasted": (REFIT_HANG, None, None, None, None),
    "refit-hang-4x8": (REFIT_HANG, 4, 32, None, None),
    "mnnvl-44-as-pasted": (MNNVL_44, None, None, None, None),
    "mnnvl-44-4x11": (MNNVL_44, 4, 44, None, None),
    # contrasts
    "rank0-802-alone-names-none": (RANK0_802_ALONE, None, None, None, None),  # rank 0 before session 55 (802: the node's)
    # rank 1's tag on the sm_120 `named symbol not found` lines named rank 1; since session 59 the build's misfit with
    # the GPU, in a lone paste, is a suspect only (info)
    "rank1-tagged-names-none": (RANK1_TAGGED, None, None, None, None),
    "watchdog-joined-names-none": (WATCHDOG_JOINED, 4, 32, None, None),
}
BATCHED = Batched("b231", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_blackwell_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_dmesg_xids_are_the_nodes_gpu_health(tmp_path):
    """The B200 dmesg reads as NVLink Xids of the node (gpu-health warnings), naming no rank: the fabric, not a rank."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(DMESG_XID, tmp_path, None, NOW, world=None))["findings"]
    xids = sorted(f["cause"] for f in findings if f["rule"] == "gpu-health")
    assert xids == ["xid-137", "xid-145"], [(f["rule"], f["cause"]) for f in findings]
    assert all(not f["ranks"] for f in findings)


def test_fabric_802_reads_two_ranks_alike(tmp_path):
    """Ranks 0 and 2 failing with the same CUDA error in a log without a clock: no single culprit, said so."""
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(FABRIC_802, tmp_path, 8, NOW, world=8))["findings"]
    alike = [f for f in findings if f["rule"] == "rank-failure"]
    assert alike and all(not f["ranks"] for f in alike), [(f["rule"], f["ranks"]) for f in findings]
    assert "Ranks 0, 2" in alike[0]["summary"], alike[0]["summary"]
