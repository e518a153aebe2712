"""Slurm-cluster multi-node training failures of 2025-2026 (real incidents batch 242), pinned as read. Four controls
that name no one, as pasted and laid out by their own nproc/world: NeMo-Run's multi-node crash line
``DistBackendError ... internal error ... NCCL version 2.25.1`` with no rank prefix (NVIDIA-NeMo/Run#266: the
container's NCCL, fixed by 2.27, read as an unranked nccl-error); the NCCL warning ``graph/topo.h:230 NCCL WARN Could
not find NET with id 0`` of a 32-process NeMo run on LEONARDO/Vega (NVIDIA-NeMo/Speech#13996: the same NCCL bug, read
as nothing); rank 1's lone watchdog tail on an ALLREDUCE (SeqNum 456) of an H100 node (huggingface/accelerate#3380: a
hang of the H100 platform, read as nothing); slime's unranked ``[torch_memory_saver.cpp] CUresult error: 2 (out of
memory) ... cu_mem_create`` on 2 x 8 H20 (THUDM/slime#274: the co-located rollout engine's memory fraction, read as
nothing). Scored 4/4 both ways as collected; no rule changed (measure only). Contrasts: the NeMo-Run line tagged
``[rank3]:`` names rank 3 (nccl-error); the 32-process warning followed by rank 4's tagged internal error names rank 4;
a rank 0 illegal memory access before rank 1's watchdog names rank 0 (cuda-error); a ``[rank5]:``-tagged torch OOM in
place of the memory-saver line names rank 5 (cuda-oom), and so does the memory-saver line itself on ``[rank5]:`` (read as
an OOM since session 44). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 7, 0, tzinfo=dt.timezone.utc)

NEMO_RUN_NCCL = corpus_lines("NeMo-Run-266-")
NET_ID_0 = corpus_lines("NeMo-Speech-13996-")
H100_WATCHDOG = corpus_lines("accelerate-3380-")
MEMORY_SAVER = corpus_lines("slime-274-")

#: the same crash line as torch prints it for a rank's exception (``[rank3]:`` prefix)
RANK3_TAGGED = ["[rank3]: " + NEMO_RUN_NCCL[0]]
#: the topology warning, then rank 4's own internal error (the thread's ``[rank4]`` traceback, its last line)
RANK4_ERROR_AFTER_WARN = NET_ID_0 + [
    "[rank4]: torch.distributed.DistBackendError: NCCL error in: "
    "/opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3376, internal error - please report this "
    "issue to the NCCL developers, NCCL version 2.26.3",
]
#: a kernel fault on rank 0 before rank 1's watchdog: the hang now has an origin
RANK0_FAULT_FIRST = ["[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered"] + H100_WATCHDOG
#: a rank's own torch OOM in place of the unranked memory-saver line
RANK5_TORCH_OOM = [
    "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total capacity of "
    "95.00 GiB of which 1.00 GiB is free.",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "nemo-run-nccl-as-pasted": (NEMO_RUN_NCCL, None, None, None, None),
    "net-id-0-as-pasted": (NET_ID_0, None, None, None, None),
    "net-id-0-world-32": (NET_ID_0, None, 32, None, None),
    "h100-watchdog-as-pasted": (H100_WATCHDOG, None, None, None, None),
    "h100-watchdog-one-node-of-2": (H100_WATCHDOG, 2, 2, None, None),
    "memory-saver-as-pasted": (MEMORY_SAVER, None, None, None, None),
    "memory-saver-2x8": (MEMORY_SAVER, 8, 16, None, None),
    # contrasts
    "rank3-tagged-names-rank3": (RANK3_TAGGED, None, None, 3, "nccl-error"),
    "rank4-error-after-warn-names-rank4": (RANK4_ERROR_AFTER_WARN, None, 32, 4, "nccl-error"),
    "rank0-fault-first-names-rank0": (RANK0_FAULT_FIRST, None, None, 0, "cuda-error"),
    "rank5-torch-oom-names-rank5": (RANK5_TORCH_OOM, 8, 16, 5, "cuda-oom"),
    # the memory-saver line itself on `[rank5]:`: the driver's CUDA_ERROR_OUT_OF_MEMORY is that rank's OOM (session 44)
    "memory-saver-rank5-names-rank5": (["[rank5]: " + line for line in MEMORY_SAVER], 8, 16, 5, "cuda-oom"),
}
BATCHED = Batched("b242", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_slurm_2025_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def test_nemo_run_crash_line_is_an_unranked_nccl_error(tmp_path):
    """The unprefixed crash line is read (an nccl-error rank failure) but pinned on no rank: no rank 0 by default."""

    findings = pasted_findings(NEMO_RUN_NCCL, tmp_path, None, None, NOW)
    failures = [f for f in findings if f["rule"] == "rank-failure"]
    assert failures and all(f["cause"] == "nccl-error" for f in failures), [(f["rule"], f["cause"]) for f in findings]
    assert all(not f["ranks"] for f in findings), [(f["rule"], f["ranks"]) for f in findings]


def test_lone_watchdog_names_no_reporter(tmp_path):
    """Rank 1's watchdog alone reports a hang: no finding names rank 1 (or any rank) as its culprit."""

    findings = pasted_findings(H100_WATCHDOG, tmp_path, None, None, NOW)
    assert not any(1 in (f.get("ranks") or []) for f in findings if f["severity"] in ("critical", "warning")), [
        (f["rule"], f["severity"], f["ranks"]) for f in findings
    ]
