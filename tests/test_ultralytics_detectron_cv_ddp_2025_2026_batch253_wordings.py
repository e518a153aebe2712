"""Multi-GPU DDP training of detection/segmentation toolkits, 2025-2026 (real incidents batch 253), pinned as read.
Four controls that name no one, as pasted and laid out by their own nproc/world: RF-DETR's repository ``main.py``
launched on 3 processes, each dying at import on ``NameError: name 'get_args_parser' is not defined``
(roboflow/rf-detr#267: the wrong entry point, every rank alike); YOLO26 under torchrun with a batch larger than the
dataset, ranks 4 and 2 raising ``ValueError: __len__() should return >= 0`` in ``build_dataloader``
(ultralytics/ultralytics#25575: the sampler split, fixed by PR #25576); the second node of a 2x2 YOLO11 torchrun job
whose two processes print ``world_size=4`` and are refused by ``NCCL WARN Invalid rank requested : 2/2``
(ultralytics/ultralytics#22878: the nodes disagree on the job's size); MeMOTR on 6 V100s with one unranked
``AssertionError`` on degenerate predicted boxes and a SIGTERMed bystander pid (MCG-NJU/MeMOTR#36: no rank can be
named). Scored 4/4 both ways as collected; no rule changed (measure only).
Contrasts: one NameError tail tagged ``[rank1]:`` is the lone-rank shape and names rank 1; rank 4's error without
rank 2's traceback names rank 4; the launcher's ``failed (exitcode: 1) local_rank: 3`` after the unranked assert names
rank 3; the second node with torch's own ``[rank2]:`` NCCL error still names no one (an nccl-error, no culprit).
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted_cases, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 13, 0, tzinfo=dt.timezone.utc)

MAIN_PY_NAMEERROR = corpus_lines("rf-detr-267-")
SMALL_DATASET = corpus_lines("ultralytics-25575-")
SECOND_NODE = corpus_lines("ultralytics-22878-")
UNRANKED_ASSERT = corpus_lines("MeMOTR-36-")

#: one worker's NameError tail, tagged as torch tags a rank's exception (``[rank1]:``): a lone rank's failure
RANK1_TAGGED = ["[rank1]: " + line for line in MAIN_PY_NAMEERROR[:4]]
#: rank 4's tail alone, rank 2's traceback left out
RANK4_ALONE = SMALL_DATASET[:4]
#: the launcher's first-failure line after the unranked assert, as torchrun prints it
LAUNCHER_RANK3 = UNRANKED_ASSERT + [
    "E1211 10:15:30.123000 55790 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: 3 (pid: 55803) of binary: /data/jsj-faster/anaconda3/envs/memotr/bin/python",
]
#: torch's own rank-tagged report of the refused communicator, after the NCCL warning
TORCH_NCCL_ERROR = [
    "[rank2]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, "
    "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.27.5",
    "[rank2]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.",
    "[rank2]: Last error:",
    "[rank2]: Invalid rank requested : 2/2",
]
SECOND_NODE_TAGGED = SECOND_NODE + TORCH_NCCL_ERROR

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # controls, as pasted and laid out as the threads say
    "main-py-nameerror-as-pasted": (MAIN_PY_NAMEERROR, None, None, None, None),
    "main-py-nameerror-three-procs": (MAIN_PY_NAMEERROR, 3, 3, None, None),
    "small-dataset-as-pasted": (SMALL_DATASET, None, None, None, None),
    "small-dataset-pods-of-8": (SMALL_DATASET, 8, 8, None, None),
    "second-node-as-pasted": (SECOND_NODE, None, None, None, None),
    "second-node-2x2": (SECOND_NODE, 2, 4, None, None),
    "unranked-assert-as-pasted": (UNRANKED_ASSERT, None, None, None, None),
    "unranked-assert-six-procs": (UNRANKED_ASSERT, 6, 6, None, None),
    # contrasts
    "rank1-tagged-nameerror-names-rank1": (RANK1_TAGGED, 3, 3, 1, "python-exception"),
    "rank4-alone-names-rank4": (RANK4_ALONE, None, None, 4, "python-exception"),
    "launcher-local-rank3-names-rank3": (LAUNCHER_RANK3, 6, 6, 3, "python-exception"),
    "second-node-torch-nccl-error-names-none": (SECOND_NODE_TAGGED, 2, 4, None, None),
}
BATCHED = Batched("b253", list(CASES))


_make = pasted_cases(CASES, NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_cv_ddp_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], tmp_path: Path, nproc: int | None, world: int | None) -> list[dict]:
    return [f for f in pasted_findings(lines, tmp_path, nproc, world, NOW) if f["rule"] == "rank-failure"]


def test_small_dataset_reads_two_ranks_alike(tmp_path):
    """Ranks 4 and 2 raising the same sampler error in a log without a clock: no single culprit, said so."""
    failures = _failures(SMALL_DATASET, tmp_path, None, None)
    assert [(f["cause"], f["ranks"]) for f in failures] == [("python-exception", [])], failures
    assert "Ranks 2, 4" in failures[0]["summary"], failures[0]["summary"]
    assert "no single culprit" in failures[0]["summary"], failures[0]["summary"]


def test_unranked_assert_names_no_rank(tmp_path):
    """One worker's AssertionError with no rank anywhere and a SIGTERMed pid: a failure of an unknown rank."""
    failures = _failures(UNRANKED_ASSERT, tmp_path, 6, 6)
    assert [(f["severity"], f["cause"], f["ranks"]) for f in failures] == [
        ("warning", "python-exception", [])], failures
    assert "names no rank" in failures[0]["summary"], failures[0]["summary"]


def test_main_py_nameerror_is_one_unknown_rank(tmp_path):
    """Three identical NameError tails under one Traceback header read as one failure of an unknown rank."""
    failures = _failures(MAIN_PY_NAMEERROR, tmp_path, 3, 3)
    assert [(f["cause"], f["ranks"]) for f in failures] == [("python-exception", [])], failures
    assert "unknown" in failures[0]["summary"], failures[0]["summary"]


def test_second_node_reads_as_nccl_error_only_once_torch_reports_it(tmp_path):
    """NCCL's own ``Invalid rank requested`` warning alone raises nothing; torch's rank-tagged DistBackendError makes an
    nccl-error failure that still names no rank (a refused communicator is not a culprit)."""
    assert _failures(SECOND_NODE, tmp_path / "raw", 2, 4) == []
    failures = _failures(SECOND_NODE_TAGGED, tmp_path / "tagged", 2, 4)
    assert [(f["cause"], f["ranks"]) for f in failures] == [("nccl-error", [])], failures
