"""A GPU allocator's own failure message, with neither "CUDA" nor the runtime's error name, is a CUDA out of memory of
the process that printed it (real incidents batch 184, dmlc/xgboost#6388: an ``xgboost.dask`` gpu_hist worker aborts
with Thrust's ``terminate called after throwing an instance of 'thrust::system::system_error'`` / ``what():
parallel_for failed: out of memory``). Thrust's older ``system_error`` text ends in the runtime's message alone
(``parallel_for failed: out of memory``, cub's ``radix_sort: failed on 1st step: out of memory``), and the RAPIDS
Memory Manager of dask-cuda, cuDF and cuML workers raises ``std::bad_alloc: out_of_memory: RMM failure at:
…pool_memory_resource.hpp:192: Maximum pool size exceeded`` (or ``out_of_memory: CUDA error at: …``); both were no
event at all, so a ranked worker's abort on them named no one. Now they are a CUDA OOM, named with the rank its line
carries (parsers/log_patterns_cuda.py ``OOM_ALLOCATOR``, parsers/log_classify.py ``_oom``; docs/rules.md
"Session 35: batch 184"). xgboost-6388 as pasted names rank 0 through the importer's one-process layout: no line
carries a rank prefix, but a line numbers a rank (the tracker's ``got new rank 0``), so the paste is one pod of one
process, rank 0, not a process of unknown rank; the same two OOM lines alone name no rank. A host ``std::bad_alloc``
and other ``what():`` texts stay no OOM. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings
from k10s_forensics.parsers.log_classify import classify

NOW = dt.datetime(2026, 12, 2, 10, 0, tzinfo=dt.timezone.utc)
THRUST = [
    "terminate called after throwing an instance of 'thrust::system::system_error'",
    "  what():  parallel_for failed: out of memory",
]
CUB = [
    "terminate called after throwing an instance of 'thrust::system::system_error'",
    "  what():  radix_sort: failed on 1st step: out of memory",
]
RMM_POOL = (
    "MemoryError: std::bad_alloc: out_of_memory: RMM failure at:/opt/conda/include/rmm/mr/device/"
    "pool_memory_resource.hpp:192: Maximum pool size exceeded"
)
RMM_CUDA = (
    "MemoryError: std::bad_alloc: out_of_memory: CUDA error at: /opt/conda/include/rmm/mr/device/"
    "cuda_memory_resource.hpp:70: cudaErrorMemoryAllocation out of memory"
)
TRACKER = [  # xgboost-6388 as pasted: the tracker's assignment, then the unranked abort
    "task [xgboost.dask]:tcp://192.168.0.26:40307 connected to the tracker",
    "task [xgboost.dask]:tcp://192.168.0.26:40307 got new rank 0",
]


def _tag(tag: str, lines: list[str]) -> list[str]:
    return [tag + line for line in lines]


#: key: (the pasted lines, world size, the rank a warning/critical finding must name alone: None for none)
CASES = {
    "thrust-rank0-tagged": (
        _tag("[rank0]: ", THRUST) + ["[rank1]: [12] train-rmse:0.41"],
        2,
        0,
    ),
    "thrust-mpirun-rank1": (
        ["[1,0]<stdout>:[12] train-rmse:0.41", *_tag("[1,1]<stderr>:", THRUST)],
        2,
        1,
    ),
    "cub-radix-sort-rank3": (
        ["[rank0]: [3] train-logloss:0.52", *_tag("[rank3]: ", CUB)],
        4,
        3,
    ),
    "rmm-pool-rank1": (["[rank0]: [7] valid-auc:0.81", "[rank1]: " + RMM_POOL], 2, 1),
    "rmm-cuda-error-rank2": (
        ["[rank0]: [7] valid-auc:0.81", "[rank2]: " + RMM_CUDA],
        4,
        2,
    ),
    # xgboost-6388 as pasted: one pod of one process (a line numbers a rank), rank 0
    "xgboost-6388-as-pasted": ([*TRACKER, *THRUST], None, 0),
    # contrast: nothing numbers a rank, the one process is a guess: the OOM is reported without a rank
    "thrust-unranked": (THRUST, None, None),
}
BATCHED = Batched("b184", list(CASES))


def _make(key: str, folder: Path):
    lines, world, _ = CASES[key]
    return pasted(lines, folder, world, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_allocator_oom_names_the_rank_its_line_carries(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    want = CASES[key][2]
    assert_one_rank(
        naming_findings(findings), want, None if want is None else "cuda-oom"
    )
    assert any(f["cause"] == "cuda-oom" for f in findings), [
        (f["rule"], f["cause"], f["ranks"]) for f in findings
    ]


@pytest.mark.parametrize(
    "text",
    [
        THRUST[1],
        CUB[1],
        RMM_POOL,
        RMM_CUDA,
        "what():  transform: failed to synchronize: out of memory",
    ],
)
def test_allocator_wording_is_a_cuda_oom(text):
    assert [e["kind"] for e in classify(text)] == ["cuda_oom"]


@pytest.mark.parametrize(
    "text",
    [
        "  what():  std::bad_alloc",
        "  what():  basic_string::_M_create",
        "terminate called after throwing an instance of 'thrust::system::system_error'",
        "  what():  parallel_for failed: cudaErrorInvalidDeviceFunction: invalid device function",
        "except rmm.mr.out_of_memory: spill and retry",
    ],
)
def test_other_texts_are_no_oom(text):
    assert "cuda_oom" not in [e["kind"] for e in classify(text)]
