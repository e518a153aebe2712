"""The newest multi-GPU training threads of 2026 (real incidents batch 327), pinned as read.
One culprit and three controls, collected blind; three read right both ways as collected. Worker 0's UCX ``Caught
signal 11 (Segmentation fault ...)`` backtrace under torchrun's ``[default0]:`` tee prefix, its frames in
``nvmlDeviceGetTotalEnergyConsumption`` (flagos-ai/FlagScale#1237, July 2026: the checkpoint path passed an
uninitialized NVML handle on every rank) is read as nothing at all; rank 2's bare ``EOFError`` and rank 1's traceback
into ``save_checkpoint`` (NVIDIA-NeMo/Megatron-Bridge#926: the user script lacked its ``__main__`` guard, settled by the
2026 RCCA) read as two ranks failing alike, no single culprit; verl's Ray tail (verl-project/verl#5659, March 2026:
``Invalid handle. Cannot load symbol cublasLtGetVersion`` and abseil's ``*** SIGABRT received ... ***``, each ``[repeated
7x across cluster]``) reads as raylet's SIGKILL of no rank (its cause list's "killed by the OOM killer" taken for the
cause), which names no one. The miss (NOT_YET, batch 327): Slurm task 93's tvm_ffi banner ``!!!!!!! Segfault encountered
!!!!!!!`` and ``File "<unknown>", line 0, in crc32_16bytes`` frames (NVIDIA-NeMo/Megatron-Bridge#2355, GB200
checkpoint save) read as nothing. No rule changed (measure only). Contrasts: the elastic agent's ``failed (exitcode:
-11) local_rank: 2`` after the UCX backtrace names rank 2 (critical), ``[default0]:Fatal Python error: Segmentation
fault`` names rank 0; rank 2's ``EOFError`` alone names rank 2, rank 1's cut traceback alone names no one; ``93: Fatal
Python error: Segmentation fault`` (or srun's ``task 93: Segmentation fault``) names rank 93, renumbered 12 names 12; a
``[rank3]: Fatal Python error: Aborted`` names rank 3 (abort), but the same line with Ray's ``[repeated 7x across
cluster]`` suffix is read as nothing. Pasted logs through ``k10s import-logs``, batched.
Since session 56 tvm_ffi's banner names task 93 (segfault), and the suffixed line is every worker's (still no rank).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 5, 21, 0, tzinfo=dt.timezone.utc)

NVML_ENERGY = corpus_lines("flagscale-1237-")
MAIN_GUARD = corpus_lines("megatron-bridge-926-")
CRC32_SEGFAULT = corpus_lines("megatron-bridge-2355-")
CUBLASLT_ABORT = corpus_lines("verl-5659-")

_AGENT = "E1205 10:00:00.000000 77 torch/distributed/elastic/multiprocessing/api.py:882] failed (exitcode: -11) "
#: the UCX backtrace followed by the elastic agent's report of local rank 2's SIGSEGV
NVML_AGENT_RANK2 = NVML_ENERGY + [
    _AGENT + "local_rank: 2 (pid: 1610) of binary: /opt/venv/bin/python"
]
#: the UCX backtrace followed by Python's fault handler under the same tee prefix
NVML_FATAL_PYTHON = NVML_ENERGY + ["[default0]:Fatal Python error: Segmentation fault"]
#: rank 2's ``EOFError`` alone / rank 1's traceback (cut before its exception) alone
MAIN_GUARD_RANK2 = MAIN_GUARD[:2]
MAIN_GUARD_RANK1 = MAIN_GUARD[2:]
#: task 93's banner and frames followed by Python's fault handler / by srun's report of the task
CRC32_FATAL_PYTHON = CRC32_SEGFAULT + [" 93: Fatal Python error: Segmentation fault"]
CRC32_SRUN = CRC32_SEGFAULT + ["srun: error: gb200-0093: task 93: Segmentation fault"]
CRC32_TASK12 = [line.replace(" 93:", " 12:", 1) for line in CRC32_FATAL_PYTHON]
#: a rank-tagged abort after the Ray tail, without and with Ray's dedup suffix
CUBLASLT_RANK3 = CUBLASLT_ABORT + [
    "(WorkerDict pid=23189) [rank3]: Fatal Python error: Aborted"
]
CUBLASLT_RANK3_REPEATED = CUBLASLT_ABORT[2:] + [
    "(WorkerDict pid=23189) [rank3]: Fatal Python error: Aborted [repeated 7x across cluster]"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "nvml-energy-as-pasted": (NVML_ENERGY, None, None, None, None),
    "nvml-energy-four-ranks": (NVML_ENERGY, 4, 4, None, None),
    "main-guard-as-pasted": (MAIN_GUARD, None, None, None, None),
    "main-guard-four-gpus": (MAIN_GUARD, 4, 4, None, None),
    # the thread's culprit, rank 93: named since session 56 (tvm_ffi's banner, parsers/log_native_handlers.py)
    "crc32-segfault-as-pasted": (CRC32_SEGFAULT, None, None, 93, "segfault"),
    "crc32-segfault-four-per-node": (CRC32_SEGFAULT, 4, None, 93, "segfault"),
    "cublaslt-abort-as-pasted": (CUBLASLT_ABORT, None, None, None, None),
    "cublaslt-abort-eight-gpus": (CUBLASLT_ABORT, 8, 8, None, None),
    # contrasts
    "nvml-energy-agent-local-rank2-names-rank2": (
        NVML_AGENT_RANK2,
        4,
        4,
        2,
        "segfault",
    ),
    "nvml-energy-fatal-python-names-rank0": (NVML_FATAL_PYTHON, 4, 4, 0, "segfault"),
    "main-guard-rank2-eoferror-alone-names-rank2": (
        MAIN_GUARD_RANK2,
        4,
        4,
        2,
        "python-exception",
    ),
    "main-guard-rank1-cut-traceback-alone-names-none": (
        MAIN_GUARD_RANK1,
        4,
        4,
        None,
        None,
    ),
    "crc32-segfault-fatal-python-names-rank93": (
        CRC32_FATAL_PYTHON,
        None,
        None,
        93,
        "segfault",
    ),
    "crc32-segfault-srun-task-names-rank93": (CRC32_SRUN, None, None, 93, "segfault"),
    "crc32-segfault-task12-names-rank12": (CRC32_TASK12, None, None, 12, "segfault"),
    "cublaslt-rank3-fatal-aborted-names-rank3": (CUBLASLT_RANK3, 8, 8, 3, "abort"),
    "cublaslt-rank3-aborted-repeated-suffix-names-none": (
        CUBLASLT_RANK3_REPEATED,
        8,
        8,
        None,
        None,
    ),
}
BATCHED = Batched("b327", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_2026_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _failures(lines: list[str], folder: Path, nproc: int | None) -> list[tuple]:
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(lines, folder, nproc, NOW, world=nproc))["findings"]
    return [
        (f["severity"], f["cause"], f["ranks"])
        for f in findings
        if f["rule"] == "rank-failure"
    ]


def test_ucx_banner_names_no_one_and_tvm_ffis_names_its_task(tmp_path):
    """UCX's ``Caught signal 11 (Segmentation fault ...)`` under ``[default0]:`` is its process's signal, counted, no
    failure of a rank by itself (as Open MPI's handler's); tvm_ffi's ``!!!!!!! Segfault encountered !!!!!!!`` under
    Slurm's `` 93:`` label is task 93's segfault since session 56 (it read as nothing before)."""
    assert _failures(NVML_ENERGY, tmp_path / "a", 4) == []
    assert _failures(CRC32_SEGFAULT, tmp_path / "b", None) == [("warning", "segfault", [93])]


def test_missing_main_guard_is_two_ranks_alike(tmp_path):
    """Rank 2's ``EOFError`` and rank 1's traceback into ``save_checkpoint``, with no clock: a Python failure (warning)
    of two ranks alike, no single culprit."""
    assert _failures(MAIN_GUARD, tmp_path, 4) == [("warning", "python-exception", [])]


def test_raylet_cause_list_reads_as_a_sigkill_of_no_rank(tmp_path):
    """Raylet's ``A worker died ... Some common causes include: (1) the process was killed by the OOM killer ...`` is
    read as a SIGKILL (host-oom-kill, warning) of no rank; the deduplicated cuBLASLt/SIGABRT lines add nothing."""
    assert _failures(CUBLASLT_ABORT, tmp_path, 8) == [("warning", "host-oom-kill", [])]
