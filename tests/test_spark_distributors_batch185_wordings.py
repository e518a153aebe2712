"""Deep-learning training launched from data platforms (real incidents batch 185: Horovod on Spark, Databricks'
HorovodRunner, TensorFlowOnSpark, spark-tensorflow-distributor, Horovod on Ray over YARN): the readings the batch met,
pinned with their variants. Horovod-on-Spark's Gloo output (``<date>[1]<stderr>:``) where rank 1 alone raises
``CUDA error: invalid device ordinal`` and rank 0 segfaults 13 s later (horovod/horovod#3841, two ranks) names rank 1,
cuda-error, also without the maintainer's ``# ...`` elision, with mpirun's ``[1,1]<stderr>:`` tags or without the
dates; with the world unknown or of 4 it names no one (every rank past the visible GPUs would fail alike). NCCL's
``Duplicate GPU detected : rank 6 and rank 0`` from one HorovodRunner rank (horovod/horovod#3569), every rank's Gloo
``HTTP GET request failed too many times`` abort (horovod/horovod#2955), the driver's ``Barrier stage ... requires 1
slots, but only 0 are available`` (tensorflow/ecosystem#161) and a Ray worker's Gloo ``rank < size. 2 vs 1`` enforce
abort (intel/analytics-zoo#614) name no one, whatever the world size.
Contrast (NOT_YET, tensorflow-onspark-261): a Spark driver's ``Executor lost: 1`` with YARN's ``Container killed by
YARN for exceeding memory limits`` names no one: a Spark executor id is not a training rank. No rule changed for the
batch. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
ORDINAL_3841 = [
    "Tue Feb  7 15:26:02 2023[1]<stderr>:RuntimeError: CUDA error: invalid device ordinal",
    "# ...",
    "Tue Feb  7 15:26:15 2023[0]<stderr>:Segmentation fault (core dumped)",
]
NCCL = "[1,6]<stdout>:0601-182219-q4uu569j-10-68-186-195:1374:1448 [0] "
DUPLICATE_3569 = [
    "[1,6]<stdout>:",
    NCCL
    + "init.cc:497 NCCL WARN Duplicate GPU detected : rank 6 and rank 0 both on CUDA device 170",
    NCCL + "NCCL INFO init.cc:867 -> 5",
    NCCL + "NCCL INFO init.cc:903 -> 5",
    NCCL + "NCCL INFO init.cc:916 -> 5",
    "[1,6]<stdout>:",
    NCCL + "misc/argcheck.cc:30 NCCL WARN ncclGetAsyncError : comm argument is NULL",
    NCCL + "NCCL INFO init.cc:1007 -> 4",
    "[1,6]<stderr>:Traceback (most recent call last):",
    '[1,6]<stderr>:  File "/databricks/python/lib/python3.9/site-packages/horovod/torch/mpi_ops.py", line 946, in '
    "synchronize",
]
STORE = (
    "[2021-06-07 11:51:5{s}.9{r}3853: E /tmp/pip-install-s04s9x1l/horovod_dec38af3351c4b6299f67ee18a371ab0/horovod/"
    "common/gloo/http_store.cc:96] HTTP GET request failed too many times, aborting. See exception message above."
)


def _store(ranks: list[int]) -> list[str]:
    out = []
    for r in ranks:
        at = f"Mon Jun  7 11:51:5{7 + (r == 0)} 2021[{r}]<stderr>:"
        out += [
            at + STORE.format(s=7 + (r == 0), r=r),
            at + "terminate called after throwing an instance of 'std::runtime_error'",
            at + "  what():  HTTP request failed.",
        ]
    return out


BARRIER_161 = [
    "Starting worker 1",
    "Starting worker 2",
    *(
        f"20/06/13 18:5{6 + i // 4}:{(4 + 15 * i) % 60:02d} WARN DAGScheduler: Barrier stage in job 0 requires 1 slots, "
        f"but only 0 are available. Will retry up to {40 - i} more times"
        for i in range(4)
    ),
]
RAY = "(pid=118283, ip=172.16.0.160) "
ENFORCE_614 = [
    RAY + "terminate called after throwing an instance of 'gloo::EnforceNotMet'",
    RAY
    + "  what():  [enforce fail at /tmp/pip-install-3q6ihfib/horovod/third_party/gloo/gloo/context.cc:25] "
    "rank < size. 2 vs 1",
    RAY
    + '*** Aborted at 1601273610 (unix time) try "date -d @1601273610" if you are using GNU date ***',
    RAY + "PC: @                0x0 (unknown)",
    RAY
    + "*** SIGABRT (@0x1ce0b) received by PID 118283 (TID 0x7fd9408ad700) from PID 118283; stack trace: ***",
]
SPARK = "18/04/03 10:24:43 "
EXECUTOR_261 = [
    SPARK
    + "INFO scheduler.TaskSetManager: Finished task 1.0 in stage 0.0 (TID 1) in 3374 ms on mango (1/2)",
    SPARK + "INFO cluster.YarnClusterSchedulerBackend: Disabling executor 1.",
    SPARK + "INFO scheduler.DAGScheduler: Executor lost: 1 (epoch 0)",
    SPARK
    + "INFO yarn.YarnAllocator: Completed container container_1522720244417_0004_01_000002 on host: orange "
    "(state: COMPLETE, exit status: -103)",
    SPARK
    + "WARN yarn.YarnAllocator: Container killed by YARN for exceeding memory limits. 5.0 GB of 4.2 GB virtual "
    "memory used. Consider boosting spark.yarn.executor.memoryOverhead.",
]

#: key: (the pasted lines, processes per node, world size, the rank a warning/critical finding must name alone (None:
#: none), its cause)
CASES = {
    "ordinal-gloo-dated-world2": (ORDINAL_3841, 2, 2, 1, "cuda-error"),
    "ordinal-gloo-no-elision-world2": (
        [ln for ln in ORDINAL_3841 if not ln.startswith("#")],
        2,
        2,
        1,
        "cuda-error",
    ),
    "ordinal-mpirun-tags-world2": (
        [ln.replace("[1]<", "[1,1]<").replace("[0]<", "[1,0]<") for ln in ORDINAL_3841],
        2,
        2,
        1,
        "cuda-error",
    ),
    "ordinal-gloo-undated-world2": (
        [ln.split("2023", 1)[-1] for ln in ORDINAL_3841],
        2,
        2,
        1,
        "cuda-error",
    ),
    "ordinal-gloo-world-unknown": (ORDINAL_3841, None, None, None, None),
    "ordinal-gloo-world4": (ORDINAL_3841, 4, 4, None, None),
    "duplicate-gpu-rank6-rank0": (DUPLICATE_3569, None, None, None, None),
    "duplicate-gpu-rank6-rank0-world8": (DUPLICATE_3569, 8, 8, None, None),
    "http-store-three-ranks": (_store([1, 2, 0]), None, None, None, None),
    "http-store-three-ranks-world3": (_store([1, 2, 0]), 3, 3, None, None),
    "http-store-two-ranks-world2": (_store([1, 0]), 2, 2, None, None),
    "barrier-zero-slots": (BARRIER_161, None, None, None, None),
    "ray-gloo-rank-lt-size": (ENFORCE_614, None, None, None, None),
    "ray-gloo-rank-lt-size-world8": (ENFORCE_614, 8, 8, None, None),
    # contrast (NOT_YET): a lost Spark executor is not a rank
    "spark-executor-lost-yarn-memory": (EXECUTOR_261, None, None, None, None),
    "spark-executor-lost-yarn-memory-world2": (EXECUTOR_261, 1, 2, None, None),
}
BATCHED = Batched("b185", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_spark_distributor_pastes_name_what_the_batch_met(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
