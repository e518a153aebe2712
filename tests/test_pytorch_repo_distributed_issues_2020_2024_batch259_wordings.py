"""pytorch/pytorch distributed issues, 2020-2024 (real incidents batch 259), pinned as read. Two culprits: three
watchdog timeouts at one sequence number, ranks 1 and 5 in ``_ALLGATHER_BASE`` and rank 0 in ``REDUCE``
(pytorch/pytorch#77030, settled in #77562: a rank-0-only ``dist.reduce`` drives a rank-0-only branch; read as rank 0,
collective-mismatch); NCCL's ``Cuda failure 700`` on device ``[1]`` under ``TORCH_NCCL_NAN_CHECK`` without
``set_device`` (pytorch/pytorch#131755, fixed by #134357's CUDA guards; read as rank 1 once laid out as two processes,
as pasted a cuda-error that holds no rank). Three controls: WSL's ``Cuda failure 'invalid argument'`` at the
``main_process_first`` barrier (pytorch/pytorch#111187: the wheel's NCCL, a cuda-error holding no rank); the c10d
rendezvous ``connect() timed out`` every node prints alike (pytorch/pytorch#69197: nothing); rank 0's NCCL init over
ens5 and a Docker ``veth`` (pytorch/pytorch#68893: nothing). Scored 5/5 both ways as collected; no rule changed
(measure only).
Contrasts: rank 0 at the same ``_ALLGATHER_BASE`` as the others, or rank 0's line left out, names no one; the CUDA
failure on device ``[0]`` names rank 0, on both devices no one; the WSL traceback without its NCCL error lines is no
finding, tagged ``[rank1]:`` an info suspect; a ``[rank2]:`` CUDA error before the rendezvous traceback names rank 2;
a ``[rank0]:`` NCCL error after the veth init names rank 0.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 15, 0, tzinfo=dt.timezone.utc)

FSDP_REDUCE = corpus_lines("pytorch-77030-")
NAN_CHECK = corpus_lines("pytorch-131755-")
WSL_BARRIER = corpus_lines("pytorch-111187-")
RDZV_TIMEOUT = corpus_lines("pytorch-69197-")
VETH_INIT = corpus_lines("pytorch-68893-")

#: rank 0 in the same all-gather as ranks 1 and 5: three ranks alike
FSDP_ALIKE = [line.replace("OpType=REDUCE", "OpType=_ALLGATHER_BASE") for line in FSDP_REDUCE]
#: rank 0's REDUCE line left out: ranks 1 and 5 alone
FSDP_NO_RANK0 = [FSDP_REDUCE[0], FSDP_REDUCE[2]]
#: the same CUDA failure on device 0 instead of device 1
NAN_DEVICE0 = [line.replace(" [1] ", " [0] ") for line in NAN_CHECK]
#: a second process (device 0) failing the same way: both devices alike
NAN_BOTH = NAN_CHECK + [line.replace("7400:7642 [1]", "7399:7641 [0]") for line in NAN_CHECK]
#: the WSL traceback without the NCCL error lines above it
WSL_TRACEBACK = WSL_BARRIER[3:]
#: that traceback as torch tags a rank's lines (``[rank1]: ``)
WSL_TRACEBACK_RANK1 = ["[rank1]: " + line for line in WSL_TRACEBACK]
#: one rank's own CUDA error before the agents' rendezvous traceback
RDZV_RANK2 = ["[rank2]: RuntimeError: CUDA error: an illegal memory access was encountered"] + RDZV_TIMEOUT
#: rank 0's own NCCL error after its init lines
VETH_RANK0 = VETH_INIT + ["[rank0]: RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:911, "
                          "unhandled system error, NCCL version 2.7.8"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # culprits, as pasted and laid out as the threads say
    "fsdp-reduce-as-pasted": (FSDP_REDUCE, None, None, 0, "collective-mismatch"),
    "fsdp-reduce-one-node-of-8": (FSDP_REDUCE, 8, 8, 0, "collective-mismatch"),
    "nan-check-as-pasted": (NAN_CHECK, None, None, None, None),
    "nan-check-two-processes": (NAN_CHECK, 2, 2, 1, "cuda-error"),
    # controls
    "wsl-barrier-as-pasted": (WSL_BARRIER, None, None, None, None),
    "wsl-barrier-one-node-of-4": (WSL_BARRIER, 4, 4, None, None),
    "rdzv-timeout-as-pasted": (RDZV_TIMEOUT, None, None, None, None),
    "rdzv-timeout-2x4": (RDZV_TIMEOUT, 4, 8, None, None),
    "veth-init-as-pasted": (VETH_INIT, None, None, None, None),
    "veth-init-two-hosts": (VETH_INIT, 1, 2, None, None),
    # contrasts
    "fsdp-alike-names-none": (FSDP_ALIKE, None, None, None, None),
    "fsdp-no-rank0-names-none": (FSDP_NO_RANK0, 8, 8, None, None),
    "nan-device0-names-rank0": (NAN_DEVICE0, 2, 2, 0, "cuda-error"),
    "nan-both-devices-names-none": (NAN_BOTH, 2, 2, None, None),
    "rdzv-rank2-error-names-rank2": (RDZV_RANK2, None, None, 2, "cuda-error"),
    "veth-rank0-error-names-rank0": (VETH_RANK0, 1, 2, 0, "nccl-error"),
}
BATCHED = Batched("b259", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_batch259_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _reading(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def test_fsdp_reduce_is_one_critical_mismatch(tmp_path):
    """Rank 0's REDUCE against ranks 1 and 5's all-gather at one SeqNum: one critical nccl-hang collective-mismatch."""
    assert _reading(pasted_findings(FSDP_REDUCE, tmp_path, 8, 8, NOW)) == [
        ("nccl-hang", "critical", "collective-mismatch", [0])]


def test_fsdp_alike_is_no_single_culprit(tmp_path):
    """The same three timeouts all in the all-gather: an info no-single-culprit hang, no rank held."""
    assert _reading(pasted_findings(FSDP_ALIKE, tmp_path, None, None, NOW)) == [
        ("nccl-hang", "info", "no-single-culprit", [])]


def test_nan_check_as_pasted_holds_no_rank(tmp_path):
    """Without a process layout, device ``[1]``'s CUDA failure is a cuda-error rank-failure holding no rank."""
    assert _reading(pasted_findings(NAN_CHECK, tmp_path, None, None, NOW)) == [
        ("rank-failure", "warning", "cuda-error", [])]


def test_wsl_barrier_error_is_a_rankless_cuda_error(tmp_path):
    """WSL's NCCL ``Cuda failure 'invalid argument'`` at the barrier: one cuda-error rank-failure that holds no rank."""
    assert _reading(pasted_findings(WSL_BARRIER, tmp_path, None, None, NOW)) == [
        ("rank-failure", "warning", "cuda-error", [])]


def test_wsl_traceback_without_error_is_nothing_and_tagged_a_suspect(tmp_path):
    """The traceback alone is no finding; tagged ``[rank1]:`` it is rank 1's info suspect, nothing louder."""
    assert pasted_findings(WSL_TRACEBACK, tmp_path / "bare", None, None, NOW) == []
    assert_info_suspect(pasted_findings(WSL_TRACEBACK_RANK1, tmp_path / "tagged", None, None, NOW), 1)


def test_rendezvous_and_veth_controls_read_nothing(tmp_path):
    """The agents' rendezvous traceback and rank 0's NCCL init lines produce no finding at all."""
    assert pasted_findings(RDZV_TIMEOUT, tmp_path / "rdzv", None, None, NOW) == []
    assert pasted_findings(VETH_INIT, tmp_path / "veth", 1, 2, NOW) == []
