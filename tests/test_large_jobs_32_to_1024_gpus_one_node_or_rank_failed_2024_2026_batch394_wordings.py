"""Large jobs, 32 to 1024+ GPUs, where one node or rank failed, 2024-2026 (real incidents batch 394), pinned as read.
Collected blind: one culprit and two controls, all three read right both ways as collected (scored 3/3). Rank 62's lone
``[rank62]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 19.14 GiB. GPU 6 ...`` from an 8-node x 8
A100 ms-swift SFT (modelscope/ms-swift#3327: the author, around step 330 one card OOMs and takes the whole job down)
names rank 62, cuda-oom, warning, medium ('the paste holds this rank's lines only'), as pasted or laid out as its 64
ranks. srun-labelled tracebacks, task 0's ending ``ValueError: num_attention_heads (15) must be a multiple of
tensor_model_parallel_size (2).`` and the head of task 6's (NVIDIA-BioNeMo/bionemo-recipes#814: Evo2 1b's 15 heads
and tp=2, Megatron-core's config check every rank runs) are a python-exception warning of no rank ('every process
runs the same command line and code'). DeepEP's combine assertion ``'num_max_nvl_chunked_recv_tokens /
num_rdma_ranks > std::max(...)'`` on 16 H100 servers, then the tuning lines and ``su14-gpu14 ... [2] NVSHMEM INFO ...
in nvshmem_finalize:`` (deepseek-ai/DeepEP#114: a host-side parameter check of EP128, every rank's) is a
python-exception warning of no rank ('the failing line names no rank'), as pasted or as its 128 ranks. Contrasts: the
OOM untagged, or a second rank's copy beside rank 62's, names no one (critical); task 0's copy alone, or task 6's own
ValueError after it, names no one; the DeepEP assertion tagged ``[rank37]:`` alone names rank 37 (a one-rank paste of
a parameter check is read as that rank's, as k10s reads any lone tagged exception); rank 62's OOM appended after the
tp/heads tracebacks names rank 62 (cuda-oom). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

RANK62_OOM = corpus_lines("ms-swift-3327-")
ODD_HEADS = corpus_lines("bionemo-recipes-814-")
EP128_ASSERT = corpus_lines("DeepEP-114-")

#: the same OOM line without its rank tag (a paste of the untagged console)
RANK62_OOM_UNTAGGED = [line.replace("[rank62]: ", "") for line in RANK62_OOM]
#: rank 5's copy of the same OOM beside rank 62's: the same allocation fails on two ranks
RANK62_OOM_TWO_RANKS = [line.replace("[rank62]", "[rank5]") for line in RANK62_OOM] + RANK62_OOM
#: task 0's lines alone, without the head of task 6's traceback
ODD_HEADS_TASK0_ONLY = [line for line in ODD_HEADS if line.startswith(" 0:")]
#: task 6's own ValueError after the head of its traceback
ODD_HEADS_TASK6_TOO = ODD_HEADS + [
    " 6: ValueError: num_attention_heads (15) must be a multiple of tensor_model_parallel_size (2).",
]
#: rank 62's OOM after the tp/heads tracebacks: one rank's own device error among a config error's copies
ODD_HEADS_THEN_RANK62_OOM = ODD_HEADS_TASK6_TOO + RANK62_OOM
#: the DeepEP traceback tail tagged by one rank alone
EP128_ASSERT_RANK37 = ["[rank37]: " + line for line in EP128_ASSERT[:3]]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "rank62-oom-as-pasted": (RANK62_OOM, None, None, 62, "cuda-oom"),
    "rank62-oom-64-ranks": (RANK62_OOM, 8, 64, 62, "cuda-oom"),
    "odd-heads-as-pasted": (ODD_HEADS, None, None, None, None),
    "ep128-assert-as-pasted": (EP128_ASSERT, None, None, None, None),
    "ep128-assert-128-ranks": (EP128_ASSERT, 8, 128, None, None),
    # variants that must not name anyone
    "rank62-oom-untagged-names-none": (RANK62_OOM_UNTAGGED, 8, 64, None, None),
    "rank62-oom-two-ranks-names-none": (RANK62_OOM_TWO_RANKS, 8, 64, None, None),
    "odd-heads-task0-only-names-none": (ODD_HEADS_TASK0_ONLY, None, None, None, None),
    "odd-heads-task6-too-names-none": (ODD_HEADS_TASK6_TOO, None, None, None, None),
    # contrasts that name a rank
    "odd-heads-then-rank62-oom-names-rank62": (ODD_HEADS_THEN_RANK62_OOM, 8, 64, 62, "cuda-oom"),
    "ep128-assert-rank37-tagged-names-rank37": (EP128_ASSERT_RANK37, 8, 128, 37, "python-exception"),
}
BATCHED = Batched("b394", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_large_job_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, world, NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"], f.get("confidence")) for f in findings]


def test_rank62_lone_oom_is_a_medium_culprit(tmp_path):
    """ms-swift#3327 as collected: rank 62's lone OOM line names rank 62 (oom-cascade, warning, medium): the paste holds
    this rank's lines only, so whether the other 63 ranks ran out too is not said."""
    expected = [("oom-cascade", "warning", "cuda-oom", [62], "medium")]
    assert _gist(RANK62_OOM, tmp_path / "a", None, None) == expected
    assert _gist(RANK62_OOM, tmp_path / "b", 8, 64) == expected


def test_same_oom_on_two_ranks_has_no_single_culprit(tmp_path):
    """Rank 5's copy beside rank 62's: the same allocation fails on two ranks at once, the job fits on none."""
    assert _gist(RANK62_OOM_TWO_RANKS, tmp_path, 8, 64) == [("oom-cascade", "critical", "cuda-oom", [], "high")]


def test_tp_heads_config_error_is_every_rank_s(tmp_path):
    """bionemo-recipes#814 as collected: srun tasks 0 and 6 in the same config check's traceback are a
    python-exception warning of no rank, and so is task 0's copy alone."""
    assert _gist(ODD_HEADS, tmp_path / "a", None, None) == [("rank-failure", "warning", "python-exception", [], None)]
    assert _gist(ODD_HEADS_TASK0_ONLY, tmp_path / "b", None, None) == [
        ("rank-failure", "warning", "python-exception", [], None)
    ]


def test_ep128_parameter_assert_names_no_one(tmp_path):
    """DeepEP#114 as collected: the untagged assertion and the su14-gpu14 finalize line name no rank, as pasted or as
    128 ranks; the host's GPU [2] on the NVSHMEM line is not read as a culprit."""
    expected = [("rank-failure", "warning", "python-exception", [], None)]
    assert _gist(EP128_ASSERT, tmp_path / "a", None, None) == expected
    assert _gist(EP128_ASSERT, tmp_path / "b", 8, 128) == expected
