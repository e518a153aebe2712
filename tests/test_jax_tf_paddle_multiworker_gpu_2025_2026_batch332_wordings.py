"""JAX / XLA multi-worker and multi-GPU failures outside PyTorch (real incidents batch 332), pinned as read.
Four controls, collected blind; three read right both ways as collected, one is NOT_YET (batch 332). A lone Iris task
on a v6e-32 slice (marin-community/marin#3219: a job spec of one task where the slice needs eight) ends in JAX's fatal
``client.h:75] Terminating process because the JAX distributed service detected fatal errors ... DEADLINE_EXCEEDED``
on ``RPC: /tensorflow.CoordinationService/RegisterTask``: read as nothing, no rank. MaxText's one-process traceback
ending ``RuntimeError: Invalid opaque object size`` (openxla/xla#18214: an XLA regression every multi-GPU run hits) is
a Python failure of no rank as pasted, but rank 0's own (python-exception, warning) when laid out as the thread's one
process (the NOT_YET). SkyRL tx's per-device ``gpu_cudamallocasync_allocator.cc`` errors (``gpu_async_3
cuMemAllocAsync failed to allocate 1225195446464 bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY``;
NovaSky-AI/SkyRL#624: a 1.2 TB request on every device of one TP=8 process) are read as nothing, rank tag or not.
XLA's fatal ``nccl_all_reduce_thunk.cc:175] Check failed: reduction_kind.has_value()`` with its ``*** Check failure
stack trace: ***`` (NVIDIA/JAX-Toolbox#472: a compile-time XLA bug) is read as nothing, rank tag or not. Scored 3/4
both ways as collected; no rule changed (measure only). Contrasts: a coordination-service ``task:3 ... heartbeat
timeout`` line beside the RegisterTask abort names rank 3 (exit-unknown); the traceback under ``[rank3]:`` names rank 3 and without
its ``RuntimeError`` line names no one; JAX's own ``RESOURCE_EXHAUSTED: Out of memory while trying to allocate``
names the one process (cuda-oom); srun's ``task 2: Aborted`` after the check failure names rank 2 (abort). Pasted
logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

REGISTER_TASK = corpus_lines("marin-3219-")
OPAQUE_OBJECT = corpus_lines("xla-18214-")
CUDA_ASYNC_OOM = corpus_lines("skyrl-624-")
CHECK_FAILED = corpus_lines("jax-toolbox-472-")

#: the coordination service's word on a task it lost (task 3), beside the lone task's RegisterTask abort
TASK3_HEARTBEAT = [
    "2026-03-04 00:58:41.100000: E external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:1170]"
    " /job:jax_worker/replica:0/task:3 has been set to ERROR in coordination service: UNAVAILABLE: Task"
    " /job:jax_worker/replica:0/task:3 heartbeat timeout. This indicates that the remote task has failed, got"
    " preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further."
    " [type.googleapis.com/tensorflow.CoordinationServiceError='']"
]
REGISTER_TASK_WITH_TASK3 = REGISTER_TASK + TASK3_HEARTBEAT
#: the MaxText traceback as rank 3's (every line under ``[rank3]:``)
OPAQUE_OBJECT_RANK3 = ["[rank3]: " + line for line in OPAQUE_OBJECT]
#: the traceback without its ``RuntimeError: Invalid opaque object size`` line
OPAQUE_OBJECT_NO_ERROR = OPAQUE_OBJECT[:-1]
#: the allocator's errors followed by JAX's own word on the failed allocation (the author's client error)
CUDA_ASYNC_WITH_JAX_OOM = CUDA_ASYNC_OOM + [
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1225195439296"
    " bytes."
]
#: the allocator's errors as rank 3's (every line under ``[rank3]:``)
CUDA_ASYNC_RANK3 = ["[rank3]: " + line for line in CUDA_ASYNC_OOM]
#: the check failure followed by srun's word on the task it aborted (task 2)
CHECK_FAILED_SRUN_ABORT = CHECK_FAILED + [
    "srun: error: node-1: task 2: Aborted (core dumped)"
]
#: the check failure as rank 2's (every line under ``[rank2]:``)
CHECK_FAILED_RANK2 = ["[rank2]: " + line for line in CHECK_FAILED]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "register-task-deadline-as-pasted": (REGISTER_TASK, None, None, None, None),
    "register-task-deadline-one-task": (REGISTER_TASK, 1, 1, None, None),
    "opaque-object-size-as-pasted": (OPAQUE_OBJECT, None, None, None, None),
    # the NOT_YET: the one process of the regression every run hits is named
    "opaque-object-size-one-process": (OPAQUE_OBJECT, 1, 1, 0, "python-exception"),
    "cuda-async-oom-as-pasted": (CUDA_ASYNC_OOM, None, None, None, None),
    "cuda-async-oom-one-process": (CUDA_ASYNC_OOM, 1, 1, None, None),
    "check-failed-as-pasted": (CHECK_FAILED, None, None, None, None),
    "check-failed-eight-gpus": (CHECK_FAILED, 8, 8, None, None),
    # contrasts
    "register-task-with-task3-heartbeat-names-rank3": (
        REGISTER_TASK_WITH_TASK3,
        8,
        8,
        3,
        "exit-unknown",
    ),
    "opaque-object-size-rank3-names-rank3": (
        OPAQUE_OBJECT_RANK3,
        8,
        8,
        3,
        "python-exception",
    ),
    "opaque-object-size-without-error-names-none": (
        OPAQUE_OBJECT_NO_ERROR,
        1,
        1,
        None,
        None,
    ),
    "cuda-async-oom-with-jax-oom-names-rank0": (
        CUDA_ASYNC_WITH_JAX_OOM,
        1,
        1,
        0,
        "cuda-oom",
    ),
    # the allocator's lines stay unread under a rank tag too
    "cuda-async-oom-rank3-names-none": (CUDA_ASYNC_RANK3, 8, 8, None, None),
    "check-failed-srun-abort-names-rank2": (CHECK_FAILED_SRUN_ABORT, 4, 8, 2, "abort"),
    # the check failure stays unread under a rank tag too
    "check-failed-rank2-names-none": (CHECK_FAILED_RANK2, 8, 8, None, None),
}
BATCHED = Batched("b332", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_jax_xla_multiworker_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(
    lines: list[str], folder: Path, nproc: int | None, world: int | None
) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=world))["findings"]
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_one_process_traceback_names_rank0_only_when_laid_out(tmp_path):
    """MaxText's traceback with no rank tag: pasted with no layout a Python failure of no rank; laid out as one process
    (the thread's world of one), rank 0's own."""
    assert _failures(OPAQUE_OBJECT, tmp_path / "a", None, None) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(OPAQUE_OBJECT, tmp_path / "b", 1, 1) == [
        ("warning", "python-exception", [0])
    ]


def test_register_task_deadline_and_allocator_errors_read_as_nothing(tmp_path):
    """The lone task's RegisterTask abort, the per-device cuMemAllocAsync errors and XLA's check failure: no finding at
    all, laid out or not (no rank-failure, nothing naming a rank)."""
    from k10s_forensics.analyze.runner import analyze

    for i, (lines, nproc) in enumerate(
        [(REGISTER_TASK, 1), (CUDA_ASYNC_OOM, 1), (CHECK_FAILED, 8)]
    ):
        for j, n in enumerate((None, nproc)):
            findings = analyze(pasted(lines, tmp_path / f"{i}{j}", n, NOW, world=n))[
                "findings"
            ]
            assert [(f["rule"], f["severity"], f["ranks"]) for f in findings] == [], (
                i,
                n,
            )
