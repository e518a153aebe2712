"""Megatron-LM / Megatron-Bridge / NeMo Automodel / torchtitan 2026 multi-node failures (real incidents batch 326),
pinned as read. Four controls, collected blind, all read right both ways as collected (4/4, no control named): DeepEP
HybridEP's glibc assertion ``void setup_qp_init_attr(..., int): Assertion `tx_depth > 0 && tx_depth < 65536' failed.``
(NVIDIA/Megatron-LM#3999: the whole micro-batch's token count as ``max_num_of_tokens_per_rank`` overflows the RDMA QP
depth; every one of 16 ranks aborts) and the permute launcher's ``Assertion 'args.output_tokens_ptr != nullptr'
failed.`` (NVIDIA-NeMo/Megatron-Bridge#3599: DeepEP in the 26.04 container) were not read at all as collected, so named
no one (since session 55: aborts of no single culprit, common mode);
``ValueError: Expecting 2 arg_mbs but got 1`` (pytorch/torchtitan#4071: pre-split microbatches through
``pp_schedule.step()``, every PP rank) is a warning python-exception of no rank; the abridged five-line
``torch.OutOfMemoryError`` naming only ``GPU 4`` (NVIDIA-NeMo/Automodel#2673: an H200 recipe on H100s, every rank OOMs)
is a critical oom-cascade of no rank. Scored once as collected; no rule changed (measure only). Contrasts: the same
glibc assertion under a ``[rank5]:`` tag still names no one, and so does an elastic root-cause block's ``rank : 5``
with ``exitcode : -6`` after it, or srun's ``task 13: Aborted (core dumped)`` (rank 5, rank 13 as collected; common mode
since session 55), while either alone names its rank (abort); the ``ValueError`` under ``[rank7]:`` names rank 7; the OOM under ``[rank4]:`` (or only
its first line under ``[rank12]:``) names that rank, cuda-oom. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 17, 30, tzinfo=dt.timezone.utc)

HYBRIDEP_ASSERT = corpus_lines("Megatron-LM-3999-")
PP_VALUEERROR = corpus_lines("torchtitan-4071-")
PERMUTE_ASSERT = corpus_lines("Megatron-Bridge-3599-")
GPU4_OOM = corpus_lines("Automodel-2673-")

#: the glibc assertion as a rank's own output (``[rank5]:`` on both lines): still unread
HYBRIDEP_RANK5 = [f"[rank5]: {line}" for line in HYBRIDEP_ASSERT]
#: the assertion followed by the elastic agent's root-cause block for global rank 5 (SIGABRT)
HYBRIDEP_ROOT_CAUSE_5 = HYBRIDEP_ASSERT + [
    "  rank      : 5 (local_rank: 5)",
    "  exitcode  : -6 (pid: 4242)",
    "  traceback : Signal 6 (SIGABRT) received by PID 4242",
]
#: the permute assertion followed by srun's report of task 13's abort
PERMUTE_SRUN_13 = PERMUTE_ASSERT + [
    "srun: error: node-013: task 13: Aborted (core dumped)"
]
#: the schedule's ValueError as rank 7's own uncaught exception
PP_RANK7 = ["[rank7]: " + PP_VALUEERROR[0]]
#: the abridged OOM as rank 4's output, and with only its first line tagged by rank 12
GPU4_OOM_RANK4 = ["[rank4]: " + line for line in GPU4_OOM]
GPU4_OOM_RANK12_FIRST = ["[rank12]: " + GPU4_OOM[0]] + GPU4_OOM[1:]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "hybridep-assert-as-pasted": (HYBRIDEP_ASSERT, None, None, None, None),
    "hybridep-assert-two-nodes-of-8": (HYBRIDEP_ASSERT, 8, 16, None, None),
    "pp-valueerror-as-pasted": (PP_VALUEERROR, None, None, None, None),
    "pp-valueerror-24-ranks": (PP_VALUEERROR, 12, 24, None, None),
    "permute-assert-as-pasted": (PERMUTE_ASSERT, None, None, None, None),
    "permute-assert-eight-nodes": (PERMUTE_ASSERT, 8, 64, None, None),
    "gpu4-oom-as-pasted": (GPU4_OOM, None, None, None, None),
    "gpu4-oom-four-nodes-of-8": (GPU4_OOM, 8, 32, None, None),
    # contrasts
    "hybridep-assert-rank5-tag-names-none": (HYBRIDEP_RANK5, 8, 16, None, None),
    "hybridep-root-cause-rank5-names-none": (HYBRIDEP_ROOT_CAUSE_5, 8, 16, None, None),
    "root-cause-rank5-alone-names-rank5": (HYBRIDEP_ROOT_CAUSE_5[len(HYBRIDEP_ASSERT):], 8, 16, 5, "abort"),
    "permute-srun-task13-names-none": (PERMUTE_SRUN_13, 8, 64, None, None),
    "srun-task13-alone-names-rank13": (PERMUTE_SRUN_13[len(PERMUTE_ASSERT):], 8, 64, 13, "abort"),
    "pp-valueerror-rank7-names-rank7": (PP_RANK7, 12, 24, 7, "python-exception"),
    "gpu4-oom-rank4-names-rank4": (GPU4_OOM_RANK4, 8, 32, 4, "cuda-oom"),
    "gpu4-oom-rank12-first-line-names-rank12": (
        GPU4_OOM_RANK12_FIRST,
        8,
        32,
        12,
        "cuda-oom",
    ),
}
BATCHED = Batched("b326", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_megatron_nemo_torchtitan_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"])
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_glibc_assertion_is_an_abort_of_no_single_culprit(tmp_path):
    """``<prog>: <file>:<line>: <function>: Assertion `<expr>' failed.`` (glibc's ``assert()``, then SIGABRT) yielded no
    finding at all as collected; since session 55 (this batch's suggestion) it is an abort that every process running
    that native code meets alike (common mode), untagged or under a ``[rankN]:`` tag: a warning of no rank."""
    want = [("rank-failure", "warning", "abort", [])]
    assert _gist(HYBRIDEP_ASSERT, tmp_path / "a", 8, 16) == want
    assert _gist(HYBRIDEP_RANK5, tmp_path / "b", 8, 16) == want
    assert _gist(PERMUTE_ASSERT, tmp_path / "c", 8, 64) == want


def test_untagged_valueerror_is_a_failure_of_no_rank(tmp_path):
    """The schedule's bare ``ValueError`` is a warning python-exception holding no rank."""
    assert _gist(PP_VALUEERROR, tmp_path, 12, 24) == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_untagged_gpu4_oom_is_a_critical_cascade_of_no_rank(tmp_path):
    """The abridged OOM naming only the device (``GPU 4``) is a critical oom-cascade that holds no rank: the device
    index is not taken for a rank."""
    assert _gist(GPU4_OOM, tmp_path, 8, 32) == [
        ("oom-cascade", "critical", "cuda-oom", [])
    ]
