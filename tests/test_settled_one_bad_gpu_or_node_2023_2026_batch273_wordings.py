"""Threads where one GPU, rank or node was settled as the culprit (real incidents batch 273), pinned as read.
Three culprits and a control, collected blind. Read right as collected: two H100s' ``RuntimeError: CUDA error:
uncorrectable ECC error encountered`` and ``[Rank 1] NCCL watchdog thread terminated with exception: CUDA error:
uncorrectable ECC error encountered`` (kohya-ss/sd-scripts#1434) name rank 1 (cuda-error, critical); torch elastic's
summary ``rank      : 1 (local_rank: 1)`` / ``exitcode  : 1`` of a Qwen2-VL evaluation bug fixed upstream
(hiyouga/LlamaFactory#5352) names rank 1 (python-exception, warning); one Ray worker's ``NCCL error ... unhandled cuda
error ... NCCL version 2.18.1`` / ``Cuda failure 'invalid argument'`` under vLLM's custom all-reduce, settled by an
NCCL upgrade (vllm-project/vllm#3688), is a cuda-error failure of no rank: the control is not named. Missed (NOT_YET,
batch 273): a TP=4 engine whose GPU2 had failing HBM (wtdcode/vllm-backport#62) shows only the API server's
``EngineDeadError: EngineCore encountered an issue.`` and two ``500 Internal Server Error`` lines: read as nothing at
all as collected, since session 50 (the ``(APIServer pid=1)`` prefix peeled) a failure of no rank. Scored 3/4 both ways as collected, the control not named; no rule changed (measure only). Contrasts: without the
``[Rank 1]`` watchdog line the ECC error is no one's; renumbered ``[Rank 0]`` names rank 0; the watchdog line alone names
rank 1; without the summary's ``rank`` line nothing is named; ``exitcode  : -6`` with ``Signal 6 (SIGABRT)`` names rank 1
(abort); the summary renumbered names rank 0; a worker's own ``(VllmWorker rank=2 ...) RuntimeError: CUDA error:
uncorrectable ECC error encountered`` before the dead engine names rank 2; a ``[rank1]:`` tag on the Ray worker's NCCL
lines still names no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 4, 23, 50, tzinfo=dt.timezone.utc)

ECC_WATCHDOG = corpus_lines("sd-scripts-1434-")
LAUNCHER_RANK1 = corpus_lines("LlamaFactory-5352-")
ENGINE_DEAD = corpus_lines("vllm-backport-62-")
CUSTOM_ALLREDUCE = corpus_lines("vllm-3688-")

#: the traceback and the watchdog's C++ frames without the ``[Rank 1]`` watchdog line: the ECC error is no one's
ECC_NO_WATCHDOG = [line for line in ECC_WATCHDOG if "[Rank 1]" not in line]
#: the same watchdog line for rank 0
ECC_RANK0 = [line.replace("[Rank 1]", "[Rank 0]") for line in ECC_WATCHDOG]
#: the watchdog line and its frames alone (no untagged traceback before it)
ECC_WATCHDOG_ONLY = ECC_WATCHDOG[7:]
#: the launcher's summary without its ``rank      : 1 (local_rank: 1)`` line
LAUNCHER_NO_RANK = [
    line for line in LAUNCHER_RANK1 if not line.lstrip().startswith("rank      :")
]
#: the same summary as the watchdog's abort words it: ``exitcode  : -6`` and ``Signal 6 (SIGABRT)``
LAUNCHER_SIGABRT = [
    line.replace("exitcode  : 1 ", "exitcode  : -6 ").replace(
        "traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
        "traceback : Signal 6 (SIGABRT) received by PID 1754710",
    )
    for line in LAUNCHER_RANK1
]
#: the summary for local rank 0
LAUNCHER_RANK0 = [
    line.replace("rank      : 1 (local_rank: 1)", "rank      : 0 (local_rank: 0)")
    for line in LAUNCHER_RANK1
]
#: the dead engine after a worker's own ECC error, as vLLM's multiproc workers print theirs
ENGINE_DEAD_WORKER_ECC = [
    "(VllmWorker rank=2 pid=499827) ERROR 09-05 01:24:30 [multiproc_executor.py:470] RuntimeError: CUDA error: "
    "uncorrectable ECC error encountered"
] + ENGINE_DEAD
#: the Ray worker's NCCL lines with a ``[rank1]:`` tag in front
CUSTOM_ALLREDUCE_RANK1 = [
    "[rank1]: " + line if line.startswith("(RayWorkerVllm") else line
    for line in CUSTOM_ALLREDUCE
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ecc-watchdog-as-pasted": (ECC_WATCHDOG, None, None, 1, "cuda-error"),
    "ecc-watchdog-two-h100": (ECC_WATCHDOG, 2, 2, 1, "cuda-error"),
    "launcher-rank1-as-pasted": (LAUNCHER_RANK1, None, None, 1, "python-exception"),
    "launcher-rank1-two-gpus": (LAUNCHER_RANK1, 2, 2, 1, "python-exception"),
    "engine-dead-as-pasted": (ENGINE_DEAD, None, None, None, None),
    "engine-dead-tp4": (ENGINE_DEAD, 4, 4, None, None),
    "custom-allreduce-as-pasted": (CUSTOM_ALLREDUCE, None, None, None, None),
    "custom-allreduce-two-workers": (CUSTOM_ALLREDUCE, 2, 2, None, None),
    # contrasts
    "ecc-without-watchdog-names-none": (ECC_NO_WATCHDOG, 2, 2, None, None),
    "ecc-rank0-names-rank0": (ECC_RANK0, 2, 2, 0, "cuda-error"),
    "ecc-watchdog-alone-names-rank1": (ECC_WATCHDOG_ONLY, 2, 2, 1, "cuda-error"),
    "launcher-without-rank-line-names-none": (LAUNCHER_NO_RANK, 2, 2, None, None),
    "launcher-sigabrt-names-rank1-abort": (LAUNCHER_SIGABRT, 2, 2, 1, "abort"),
    "launcher-rank0-names-rank0": (LAUNCHER_RANK0, 2, 2, 0, "python-exception"),
    "engine-dead-after-worker-ecc-names-rank2": (
        ENGINE_DEAD_WORKER_ECC,
        4,
        4,
        2,
        "cuda-error",
    ),
    "custom-allreduce-rank1-tag-names-none": (CUSTOM_ALLREDUCE_RANK1, 2, 2, None, None),
}
BATCHED = Batched("b273", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_settled_one_bad_gpu_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    findings = pasted_findings(lines, folder, nproc, nproc, NOW)
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_ecc_watchdog_is_critical_for_rank1(tmp_path):
    """The ECC error under ``[Rank 1]``'s watchdog is rank 1's CUDA error, critical; the untagged traceback alone is a
    CUDA error of no rank (warning)."""
    assert _failures(ECC_WATCHDOG, tmp_path / "a", 2) == [
        ("critical", "cuda-error", [1])
    ]
    assert _failures(ECC_NO_WATCHDOG, tmp_path / "b", 2) == [
        ("warning", "cuda-error", [])
    ]


def test_engine_dead_front_end_is_a_failure_of_no_rank(tmp_path):
    """The API server's ``EngineDeadError`` (its ``(APIServer pid=1)`` prefix peeled, session 50) is a Python failure of
    no rank, at warning: the engine died, and which worker killed it the front end does not say (NOT_YET, batch 273)."""
    findings = pasted_findings(ENGINE_DEAD, tmp_path, 4, 4, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "python-exception", [])
    ]


def test_custom_allreduce_is_a_cuda_error_of_no_rank(tmp_path):
    """One Ray worker's NCCL ``unhandled cuda error`` / ``Cuda failure 'invalid argument'`` is a CUDA failure of no
    rank (warning), with or without a ``[rank1]:`` tag in front."""
    assert _failures(CUSTOM_ALLREDUCE, tmp_path / "a", 2) == [
        ("warning", "cuda-error", [])
    ]
    assert _failures(CUSTOM_ALLREDUCE_RANK1, tmp_path / "b", 2) == [
        ("warning", "cuda-error", [])
    ]
