"""Recommender and graph-learning distributed training, 2024-2026 (real incidents batch 372), pinned as read. Three
controls, collected blind; all three read right as collected (3/3 both ways). A TorchRec multi-process notebook's
``Process SpawnProcess-1:`` traceback through ``collective_plan`` -> ``invoke_on_rank_and_broadcast_result`` ending
``RuntimeError: No available sharding type and compute kernel combination after applying user provided constraints for
product_table`` (meta-pytorch/torchrec#1614: a DENSE-kernel constraint no sharding type allows; the planner runs on rank 0
and broadcasts the plan) is a python-exception warning of no rank, as pasted or as 2 processes. GraphStorm's DistGB
trainers' interleaved ``ncclInvalidUsage`` tracebacks with ``Duplicate GPU detected : rank 10 and rank 8 both on CUDA
device 160`` (dmlc/dgl#7426: two trainers of a machine bound to one GPU with ``--num-trainers`` > 1) are an nccl-error
warning of no rank, as pasted or as 8 per node of 16. A spawned GraphBolt loader worker's untagged unpickle frames cut
before the exception (dmlc/dgl#7381: "raised within every distributed replica" with ``--num-workers`` > 0) give no
finding at all. Contrasts: the planner traceback tagged by rank 1 alone names rank 1, tagged by ranks 0 and 1 names no
one; the duplicate-GPU lines tagged by rank 10 alone still name no one (NCCL's message names two ranks); the loader
frames tagged by rank 2 are an info suspect only, with an exception line added name rank 2, untagged with the exception
line name no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

PLANNER = corpus_lines("torchrec-1614-")
DUPLICATE_GPU = corpus_lines("dgl-7426-")
LOADER_WORKER = corpus_lines("dgl-7381-")

#: the planner traceback as rank 1's alone
PLANNER_RANK1 = ["[rank1]: " + line for line in PLANNER]
#: the same traceback printed by both ranks: a configuration every rank shares
PLANNER_BOTH = ["[rank0]: " + line for line in PLANNER] + ["[rank1]: " + line for line in PLANNER]
#: the duplicate-GPU lines tagged by rank 10 alone
DUPLICATE_GPU_RANK10 = ["[rank10]: " + line.strip() for line in DUPLICATE_GPU]
#: an exception line for the cut frames (the one DGL's related GraphBolt reports quote for num-workers > 0)
UNPICKLE_ERROR = "AttributeError: 'PyCapsule' object has no attribute 'cudaHostUnregister'"
#: the cut frames tagged by rank 2, without and with the exception line
LOADER_WORKER_RANK2 = ["[rank2]: " + line for line in LOADER_WORKER]
LOADER_WORKER_RANK2_ERROR = ["[rank2]: " + line for line in LOADER_WORKER + [UNPICKLE_ERROR]]
#: the frames untagged with the exception line
LOADER_WORKER_ERROR = LOADER_WORKER + [UNPICKLE_ERROR]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "planner-as-pasted": (PLANNER, None, None, None, None),
    "planner-two-processes": (PLANNER, 2, 2, None, None),
    "duplicate-gpu-as-pasted": (DUPLICATE_GPU, None, None, None, None),
    "duplicate-gpu-eight-of-sixteen": (DUPLICATE_GPU, 8, 16, None, None),
    "loader-worker-as-pasted": (LOADER_WORKER, None, None, None, None),
    "loader-worker-four-gpus": (LOADER_WORKER, 4, 4, None, None),
    # variants that must not name anyone
    "planner-both-ranks-names-none": (PLANNER_BOTH, 2, 2, None, None),
    "duplicate-gpu-rank10-tagged-names-none": (DUPLICATE_GPU_RANK10, 8, 16, None, None),
    "loader-worker-rank2-frames-names-none": (LOADER_WORKER_RANK2, 4, 4, None, None),
    "loader-worker-untagged-error-names-none": (LOADER_WORKER_ERROR, 4, 4, None, None),
    # contrasts that must name a rank
    "planner-rank1-tagged-names-rank1": (PLANNER_RANK1, 2, 2, 1, "python-exception"),
    "loader-worker-rank2-error-names-rank2": (LOADER_WORKER_RANK2_ERROR, 4, 4, 2, "python-exception"),
}
BATCHED = Batched("b372", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_recsys_graph_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_planner_constraint_error_is_a_rankless_python_exception(tmp_path):
    """torchrec#1614 as collected: one warning, python-exception, no rank — SpawnProcess-1 is where the collective
    planner runs, not a failing rank."""
    assert _gist(PLANNER, tmp_path / "a", None, None) == [("rank-failure", "warning", "python-exception", [])]
    assert _gist(PLANNER, tmp_path / "b", 2, 2) == [("rank-failure", "warning", "python-exception", [])]


def test_duplicate_gpu_is_a_rankless_nccl_error(tmp_path):
    """dgl#7426 as collected: one warning, nccl-error, no rank — the two ranks NCCL names share a GPU by launch
    configuration; neither is the culprit, even when only rank 10 tags the lines."""
    assert _gist(DUPLICATE_GPU, tmp_path / "a", None, None) == [("rank-failure", "warning", "nccl-error", [])]
    assert _gist(DUPLICATE_GPU, tmp_path / "b", 8, 16) == [("rank-failure", "warning", "nccl-error", [])]
    assert _gist(DUPLICATE_GPU_RANK10, tmp_path / "c", 8, 16) == [("rank-failure", "warning", "nccl-error", [])]


def test_cut_loader_worker_frames_give_no_finding(tmp_path):
    """dgl#7381 as collected: untagged frames with no exception line say nothing; tagged by one rank they make that
    rank an info suspect only."""
    assert _gist(LOADER_WORKER, tmp_path / "a", None, None) == []
    assert _gist(LOADER_WORKER, tmp_path / "b", 4, 4) == []
    assert_info_suspect(pasted_findings(LOADER_WORKER_RANK2, tmp_path / "c", 4, 4, NOW), 2)
