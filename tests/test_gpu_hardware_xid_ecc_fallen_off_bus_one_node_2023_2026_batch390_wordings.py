"""GPU hardware faults on one GPU/node of a multi-GPU job, 2023-2026 (real incidents batch 390), pinned as read. The
threads that carried a pasted multi-GPU log and a settled one-GPU/one-node answer (Xid 79/48/94, uncorrectable ECC,
fallen off the bus) were all in the corpus already; the three new ones are controls, collected blind, all the same
node-wide NVSwitch fabric state: NVLink SHARP (NVLS) buffer setup failing with ``Cuda failure 1 'invalid argument'``
after nvidia-fabricmanager was stopped and restarted without the GPU reset its guide requires. All three read right as
collected, both ways (3/3): device 2's ``node23:12098:12141 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1
'invalid argument'`` and its unwinding (NVIDIA/nccl#1488: the author's own root cause, FM start/stop/start, only a
reboot clears it; the maintainer: reset the GPU in between); one all_reduce_perf process's devices [5], [1], [3] and
[0] all failing at ``transport/nvls.cc:158`` (NVIDIA/nccl#1338: the maintainer, Fabric Manager not restarted
correctly); the prefix-less ``transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'`` call stack
(NVIDIA/nccl#976: the maintainer, FM restarted while processes held the GPUs, reboot the node). Each is one warning,
cause cuda-error, no rank, as pasted or laid out as 8 GPUs. Contrasts: the NVLS failure tagged ``[rank2]:`` or
``[rank3]:`` by one rank alone, as two nodes' copies, or as rank 5's ``DistBackendError`` ending ``Cuda failure 1
'invalid argument'`` still names no one (the fabric state is the node's); rank 5's own ``CUDA error: uncorrectable ECC
error encountered`` names rank 5 (critical), rank 2's names rank 2; and rank 2's ECC line after node23's NVLS lines
names rank 2 (since session 62; it named no one, the 'invalid argument' read as every process's same code winning:
tests/test_own_device_fault_beside_common_mode.py). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

NODE23_FM_RESTART = corpus_lines("nccl-1488-")
NODE2_FOUR_DEVICES = corpus_lines("nccl-1338-")
UNTAGGED_CALL_STACK = corpus_lines("nccl-976-")

#: node23's NVLS failure as rank 2's own tagged lines
NODE23_TAGGED_RANK2 = ["[rank2]: " + line for line in NODE23_FM_RESTART]
#: the same failure on two nodes (node24's copy after node23's)
TWO_NODES = NODE23_FM_RESTART + [line.replace("node23", "node24") for line in NODE23_FM_RESTART]
#: the prefix-less call stack tagged by rank 3 alone
CALL_STACK_TAGGED_RANK3 = ["[rank3]: " + line for line in UNTAGGED_CALL_STACK]
#: device 5's lines alone, the first to warn in nccl#1338
DEVICE5_ONLY = [line for line in NODE2_FOUR_DEVICES if "[5]" in line]
#: how torch would surface the same NVLS failure on rank 5
RANK5_DIST_BACKEND = [
    "[rank5]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, "
    "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
    "[rank5]: ncclUnhandledCudaError: Call to CUDA function failed.",
    "[rank5]: Last error:",
    "[rank5]: Cuda failure 1 'invalid argument'",
]
#: one GPU's own memory fault: the single-culprit reading the batch's theme is about
RANK5_ECC = ["[rank5]: RuntimeError: CUDA error: uncorrectable ECC error encountered"]
#: the same on rank 2, node23's NVLS device
RANK2_ECC = ["[rank2]: RuntimeError: CUDA error: uncorrectable ECC error encountered"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as 8 GPUs of one node
    "node23-fm-restart-as-pasted": (NODE23_FM_RESTART, None, None, None, None),
    "node23-fm-restart-eight-gpus": (NODE23_FM_RESTART, 8, 8, None, None),
    "node2-four-devices-as-pasted": (NODE2_FOUR_DEVICES, None, None, None, None),
    "node2-four-devices-eight-gpus": (NODE2_FOUR_DEVICES, 8, 8, None, None),
    "untagged-call-stack-as-pasted": (UNTAGGED_CALL_STACK, None, None, None, None),
    "untagged-call-stack-eight-gpus": (UNTAGGED_CALL_STACK, 8, 8, None, None),
    # variants that must not name anyone: the fabric state is the node's
    "node23-tagged-rank2-names-none": (NODE23_TAGGED_RANK2, 8, 8, None, None),
    "two-nodes-names-none": (TWO_NODES, 8, 16, None, None),
    "call-stack-tagged-rank3-names-none": (CALL_STACK_TAGGED_RANK3, 8, 8, None, None),
    "device5-only-names-none": (DEVICE5_ONLY, 8, 8, None, None),
    "rank5-dist-backend-invalid-argument-names-none": (RANK5_DIST_BACKEND, 8, 8, None, None),
    # read right since session 62 (docs/rules.md, "Session 62: a rank's own device fault beside a node-wide failure"):
    # rank 2's own uncorrectable ECC error after the node's NVLS 'invalid argument' names rank 2 (it named no one: the
    # NVLS line, read as every process's same command line and code, swallowed it)
    "node23-then-rank2-ecc-names-rank2": (NODE23_FM_RESTART + RANK2_ECC, 8, 8, 2, "cuda-error"),
    # contrasts that must name a rank: one GPU's own hardware fault
    "rank5-ecc-names-rank5": (RANK5_ECC, 8, 8, 5, "cuda-error"),
    "rank2-ecc-names-rank2": (RANK2_ECC, 8, 8, 2, "cuda-error"),
}
BATCHED = Batched("b390", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_gpu_hardware_one_node_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_nvls_invalid_argument_is_a_rankless_cuda_error(tmp_path):
    """nccl#1488, #1338 and #976 as collected: one warning, cuda-error, no rank — the ``[N]`` after host:pid:tid is a
    CUDA device index, and the NVLS failure belongs to the node's Fabric Manager state, every GPU's alike."""
    want = [("rank-failure", "warning", "cuda-error", [])]
    for i, lines in enumerate((NODE23_FM_RESTART, NODE2_FOUR_DEVICES, UNTAGGED_CALL_STACK)):
        assert _gist(lines, tmp_path / f"p{i}", None, None) == want
        assert _gist(lines, tmp_path / f"e{i}", 8, 8) == want


def test_own_ecc_error_names_its_rank_critical(tmp_path):
    """The contrast the batch was after: one rank's uncorrectable ECC error is its GPU's fault."""
    assert _gist(RANK5_ECC, tmp_path, 8, 8) == [("rank-failure", "critical", "cuda-error", [5])]
