"""JAX multi-process GPU failures (real incidents batch 287), pinned as read. Five controls, collected blind, all read
right as collected (no culprit named, either way of bringing the log): two Slurm hosts that each print one local device
out of two (jax-ml/jax#16788: JAX's Slurm detection gives a process only the GPU of its local rank) raise nothing;
XLA's ``RET_CHECK failure ... local_device_ordinal < gpu_global_device_ids->size()`` with ``local_device_ordinal: 3``
(jax-ml/jax#12119: the ``jax_cuda_visible_devices`` flag in multi-process mode) is a Python failure of no rank;
``unable to create StreamExecutor for CUDA:6 ... invalid device ordinal`` from oversubscribed Slurm tasks
(jax-ml/jax#29669) is a CUDA error every process hits alike; ``RuntimeError: Unable to initialize backend 'cuda': ...
no supported devices found for platform CUDA`` under ``--gpus-per-task=1`` (jax-ml/jax#28194) is a Python failure of
no rank; Cloud Logging's ``ERROR <ts> [resource.labels.containerName: gpu-image]`` lines of a faulthandler thread dump
(AI-Hypercomputer/maxdiffusion#129: a jitted sharded state init, every host) raise nothing. Scored 5/5 both ways as
collected, no control named; no rule changed (measure only). Contrasts: a ``[rank1]:`` JAX ``RESOURCE_EXHAUSTED``
after the device lists names rank 1 (cuda-oom); the RET_CHECK under ``[rank3]:`` or followed by srun's ``task 3:
Exited with exit code 1`` names rank 3; srun's ``task 6: Segmentation fault`` names rank 6 alone but no one after the
invalid-ordinal line (a configuration every process shares); the backend-init ``RuntimeError`` under ``[rank2]:``
names rank 2 (that wording is not read as a shared configuration yet); srun's ``task 1: Segmentation fault`` after the
thread dump names rank 1; faulthandler's ``Fatal Python error: Segmentation fault`` header over the dump is a segfault
of no rank. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_cases
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 3, 30, tzinfo=dt.timezone.utc)

ONE_DEVICE_EACH = corpus_lines("jax-16788-")
RET_CHECK = corpus_lines("jax-12119-")
BAD_ORDINAL = corpus_lines("jax-29669-")
NO_CUDA_DEVICES = corpus_lines("jax-28194-")
JIT_INIT_TRACE = corpus_lines("maxdiffusion-129-")

#: srun's report of task 6's segfault (task 6 is local rank 6 of the first node at 8 tasks per node)
SRUN_TASK6_SEGV = "srun: error: nid001: task 6: Segmentation fault (core dumped)"

#: the device lists, then one process's JAX out-of-memory under a ``[rank1]:`` tag
ONE_DEVICE_RANK1_OOM = ONE_DEVICE_EACH + [
    "[rank1]: jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1073741824 bytes."
]
#: the RET_CHECK under a ``[rank3]:`` tag
RET_CHECK_RANK3 = ["[rank3]: " + line for line in RET_CHECK]
#: the RET_CHECK, then srun's exit of task 3
RET_CHECK_SRUN_TASK3 = RET_CHECK + [
    "srun: error: gpu01: task 3: Exited with exit code 1"
]
#: the invalid-ordinal line, then srun's segfault of task 6
BAD_ORDINAL_SRUN_SEGV = BAD_ORDINAL + [SRUN_TASK6_SEGV]
#: the backend-init RuntimeError under a ``[rank2]:`` tag
NO_CUDA_DEVICES_RANK2 = ["[rank2]: " + line for line in NO_CUDA_DEVICES]
#: the thread dump, then srun's segfault of task 1
JIT_INIT_SRUN_TASK1 = JIT_INIT_TRACE + [
    "srun: error: a3-node-1: task 1: Segmentation fault (core dumped)"
]
#: faulthandler's header over the thread dump
JIT_INIT_FATAL = ["Fatal Python error: Segmentation fault", ""] + JIT_INIT_TRACE

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "one-device-each-as-pasted": (ONE_DEVICE_EACH, None, None, None, None),
    "one-device-each-two-hosts": (ONE_DEVICE_EACH, 1, 2, None, None),
    "ret-check-as-pasted": (RET_CHECK, None, None, None, None),
    "ret-check-four-processes": (RET_CHECK, 4, 4, None, None),
    "bad-ordinal-as-pasted": (BAD_ORDINAL, None, None, None, None),
    "bad-ordinal-two-nodes-of-eight": (BAD_ORDINAL, 8, 16, None, None),
    "no-cuda-devices-as-pasted": (NO_CUDA_DEVICES, None, None, None, None),
    "no-cuda-devices-four-tasks": (NO_CUDA_DEVICES, 4, 4, None, None),
    "jit-init-trace-as-pasted": (JIT_INIT_TRACE, None, None, None, None),
    "jit-init-trace-two-hosts": (JIT_INIT_TRACE, 1, 2, None, None),
    # contrasts
    "one-device-each-rank1-oom-names-rank1": (
        ONE_DEVICE_RANK1_OOM,
        1,
        2,
        1,
        "cuda-oom",
    ),
    "ret-check-rank3-tag-names-rank3": (RET_CHECK_RANK3, 4, 4, 3, "python-exception"),
    "ret-check-srun-task3-names-rank3": (
        RET_CHECK_SRUN_TASK3,
        4,
        4,
        3,
        "python-exception",
    ),
    "srun-task6-segv-alone-names-rank6": ([SRUN_TASK6_SEGV], 8, 16, 6, "segfault"),
    "bad-ordinal-srun-task6-segv-names-none": (
        BAD_ORDINAL_SRUN_SEGV,
        8,
        16,
        None,
        None,
    ),
    "no-cuda-devices-rank2-tag-names-rank2": (
        NO_CUDA_DEVICES_RANK2,
        4,
        4,
        2,
        "python-exception",
    ),
    "jit-init-srun-task1-segv-names-rank1": (JIT_INIT_SRUN_TASK1, 8, 16, 1, "segfault"),
    "jit-init-fatal-header-names-none": (JIT_INIT_FATAL, None, None, None, None),
}
BATCHED = Batched("b287", list(CASES))


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_jax_multiprocess_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(
        BATCHED.findings(key, tmp_path_factory, pasted_cases(CASES, NOW))
    )
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


def test_shared_errors_are_failures_of_no_rank(tmp_path):
    """The three error wordings are read as failures (warning) of no rank: the RET_CHECK and the backend-init
    ``RuntimeError`` as a Python exception whose line names no rank, the invalid device ordinal as a CUDA error every
    process hits alike; the faulthandler dump is a segfault of no rank once its ``Fatal Python error`` header is there,
    and nothing without it; the two hosts' device lists are no failure at all."""
    assert _failures(RET_CHECK, tmp_path / "a", None, None) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(BAD_ORDINAL, tmp_path / "b", 8, 16) == [
        ("warning", "cuda-error", [])
    ]
    assert _failures(NO_CUDA_DEVICES, tmp_path / "c", 4, 4) == [
        ("warning", "python-exception", [])
    ]
    assert _failures(JIT_INIT_FATAL, tmp_path / "d", None, None) == [
        ("warning", "segfault", [])
    ]
    assert _failures(JIT_INIT_TRACE, tmp_path / "e", None, None) == []
    assert _failures(ONE_DEVICE_EACH, tmp_path / "f", 1, 2) == []
