"""Chinese-language GitHub issues on LLM training, 2025-2026 (real incidents batch 369), pinned as read. Three
controls, collected blind. Two were read right as collected: rank 0's traceback out of ms-swift's first broadcast
ending ``[rank0]: Error while creating shared memory segment /dev/shm/nccl-9D6bNG (size 9637888)``, then the head of
rank 1's traceback (modelscope/ms-swift#2776: a container's /dev/shm too small for NCCL's shared-memory transport, the
three local ranks' common host) is an nccl-error warning of no rank, as pasted or laid out as its 3 processes; two
untagged ``ModuleNotFoundError: No module named 'llamafactory'`` tracebacks and the agent's ``failed (exitcode: 1)
local_rank: 0 ... of binary: /dockerdata/anaconda3/bin/python`` (hiyouga/LlamaFactory#4035: the base Anaconda's
torchrun first on PATH, every worker's interpreter without the package) are a python-exception warning of no rank, as
pasted or as its 2 GPUs. The third (NOT_YET as collected, batch 369) was read with a culprit: rank 4's four-line tail ending
``[rank4]: OSError: [Errno 28] No space left on device`` from pyarrow/fsspec's dataset-cache write
(modelscope/ms-swift#3551: the node's cache disk filled up, the maintainer: '磁盘不足了') names rank 4 (warning,
medium); since session 59 rank 4 is a suspect only, at info (a full disk in a lone paste). Scored 2/3 both ways as
collected. Contrasts: rank 0's copy of the ENOSPC
beside rank 4's, or the same lines untagged, name no one; rank 0's NCCL lines without rank 1's traceback header name
rank 0; the import error tagged ``[rank1]:`` once names rank 1; rank 1's own CUDA OOM after the two import errors names
rank 1 (cuda-oom). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

CACHE_ENOSPC = corpus_lines("ms-swift-3551-")
DEV_SHM = corpus_lines("ms-swift-2776-")
WRONG_TORCHRUN = corpus_lines("llamafactory-4035-")

#: rank 0's copy of the same ENOSPC tail beside rank 4's: the disk is every rank's
CACHE_ENOSPC_TWO_COPIES = [line.replace("[rank4]", "[rank0]") for line in CACHE_ENOSPC] + CACHE_ENOSPC
#: the same tail without the rank tags (a paste of the untagged console)
CACHE_ENOSPC_UNTAGGED = [line.replace("[rank4]: ", "") for line in CACHE_ENOSPC]
#: rank 0's NCCL failure alone, without rank 1's traceback header after it
DEV_SHM_RANK0_ONLY = DEV_SHM[:-1]
#: one copy of the import error, tagged by rank 1 alone
IMPORT_ERROR_RANK1 = [
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "/dockerdata/LLaMA-Factory/src/llamafactory/launcher.py", line 1, in <module>',
    "[rank1]:     from llamafactory.train.tuner import run_exp",
    "[rank1]: ModuleNotFoundError: No module named 'llamafactory'",
]
#: rank 1's own CUDA OOM after the two workers' import errors
WRONG_TORCHRUN_RANK1_OOM = WRONG_TORCHRUN + [
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total capacity of "
    "23.65 GiB of which 3.06 MiB is free.",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "dev-shm-as-pasted": (DEV_SHM, None, None, None, None),
    "dev-shm-three-processes": (DEV_SHM, 3, 3, None, None),
    "wrong-torchrun-as-pasted": (WRONG_TORCHRUN, None, None, None, None),
    "wrong-torchrun-two-gpus": (WRONG_TORCHRUN, 2, 2, None, None),
    # since session 59 (a lone paste's full disk is a suspect only): no one
    "cache-enospc-as-pasted": (CACHE_ENOSPC, None, None, None, None),
    "cache-enospc-eight-ranks": (CACHE_ENOSPC, 8, 8, None, None),
    # variants that must not name anyone
    "cache-enospc-two-copies-names-none": (CACHE_ENOSPC_TWO_COPIES, 8, 8, None, None),
    "cache-enospc-untagged-names-none": (CACHE_ENOSPC_UNTAGGED, None, None, None, None),
    # contrasts that must name a rank
    "dev-shm-rank0-only-names-rank0": (DEV_SHM_RANK0_ONLY, 3, 3, 0, "nccl-error"),
    "import-error-rank1-tagged-names-rank1": (IMPORT_ERROR_RANK1, 2, 2, 1, "python-exception"),
    "wrong-torchrun-rank1-oom-names-rank1": (WRONG_TORCHRUN_RANK1_OOM, 2, 2, 1, "cuda-oom"),
}
BATCHED = Batched("b369", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_chinese_issue_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_dev_shm_segment_failure_is_a_rankless_nccl_error(tmp_path):
    """ms-swift#2776 as collected: one warning, nccl-error, no rank — rank 1's traceback header after rank 0's NCCL
    lines makes two failing ranks of the three, the shared /dev/shm no one's."""
    assert _gist(DEV_SHM, tmp_path / "a", None, None) == [("rank-failure", "warning", "nccl-error", [])]
    assert _gist(DEV_SHM, tmp_path / "b", 3, 3) == [("rank-failure", "warning", "nccl-error", [])]


def test_two_untagged_import_errors_are_a_rankless_python_exception(tmp_path):
    """LlamaFactory#4035 as collected: the agent's ``local_rank: 0`` does not make worker 0 the culprit when both
    workers print the same ``ModuleNotFoundError``."""
    assert _gist(WRONG_TORCHRUN, tmp_path / "a", None, None) == [("rank-failure", "warning", "python-exception", [])]
    assert _gist(WRONG_TORCHRUN, tmp_path / "b", 2, 2) == [("rank-failure", "warning", "python-exception", [])]


def test_lone_enospc_tail_is_a_suspect_only(tmp_path):
    """ms-swift#3551: as collected rank 4's lone ``OSError: [Errno 28] No space left on device`` named rank 4 at
    warning, medium ('the paste holds this rank's lines only'), wrong: ENOSPC is a full disk, a resource the ranks share
    (the dataset cache of the node), not the writing rank's own fault. Since session 59 rank 4 is a suspect only, at
    info, confidence low (docs/rules.md, "Session 59: a full disk in a lone paste")."""
    findings = pasted_findings(CACHE_ENOSPC, tmp_path, None, None, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "info", "python-exception", [4])
    ]
    assert findings[0]["confidence"] == "low"
