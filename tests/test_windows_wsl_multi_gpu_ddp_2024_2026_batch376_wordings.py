"""Multi-GPU training on Windows (and WSL2), 2024-2026 (real incidents batch 376), pinned as read. Three controls,
collected blind; all three read right as collected, both ways (3/3). torchgeo/torchgeo#1198: Lightning's
``Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2`` and ``GLOBAL_RANK: 1, MEMBER: 2/2``, each followed by the
Windows c10d warning ``The client socket has failed to connect to [t2]:58152 (system error: 10049 - ...)``, the
``RuntimeError: Distributed package doesn't have NCCL built in`` past the excerpt (the maintainer: NCCL is only built
on Linux) gives no finding at all, as pasted or as its 2 ranks. hiyouga/LlamaFactory#4359: a worker's traceback
through ``init_process_group`` ending ``RuntimeError: Distributed package doesn't have NCCL built in``, then the agent's
``failed (exitcode: 1) local_rank: 0`` is a python-exception warning of no rank (Windows PyTorch has no NCCL, every
rank alike), as pasted or as 2 GPUs. ultralytics/ultralytics#17080: Ultralytics' ``DDP: debug command ...
--nproc_per_node 2``, torchrun's own traceback to ``elastic_launch(`` and, after ``USE_LIBUV=0``, still ``RuntimeError:
use_libuv was requested but PyTorch was build without libuv support`` (the launcher's TCPStore on a Windows wheel
without libuv, before any worker exists) is a python-exception warning of no rank, as pasted or as 2 GPUs.
Contrasts: the missing-NCCL or missing-libuv error tagged by one rank, by both, or untagged still names no one (a
property of the build every rank shares); rank 1's own CUDA OOM after the torchgeo lines names rank 1 (cuda-oom); the
LlamaFactory traceback with an ordinary exception in place of the NCCL one names rank 1 when tagged ``[rank1]:`` and,
untagged, rank 0 through the agent's ``local_rank: 0``; rank 1's own illegal memory access after Ultralytics' debug
command names rank 1 (cuda-error). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

NO_NCCL_LIGHTNING = corpus_lines("torchgeo-1198-")
NO_NCCL_TORCHRUN = corpus_lines("llamafactory-4359-")
NO_LIBUV_LAUNCHER = corpus_lines("ultralytics-17080-")

NO_NCCL = "RuntimeError: Distributed package doesn't have NCCL built in"
NO_LIBUV = "RuntimeError: use_libuv was requested but PyTorch was build without libuv support"

#: the NCCL error the torchgeo description names, printed by rank 1 alone (rank 0's copy not pasted)
NO_NCCL_LIGHTNING_RANK1 = NO_NCCL_LIGHTNING + [f"[rank1]: {NO_NCCL}"]
#: the same error printed untagged by both ranks
NO_NCCL_LIGHTNING_UNTAGGED = NO_NCCL_LIGHTNING + [NO_NCCL, NO_NCCL]
#: rank 1's own CUDA OOM after the two ranks' start-up lines
NO_NCCL_LIGHTNING_RANK1_OOM = NO_NCCL_LIGHTNING + [
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of "
    "11.99 GiB of which 1.02 GiB is free.",
]
#: the worker traceback of LlamaFactory#4359 (up to its exception line) tagged by rank 1
NO_NCCL_TORCHRUN_RANK1 = [f"[rank1]: {line}" for line in NO_NCCL_TORCHRUN[:6]]
#: the same traceback printed by rank 0 and by rank 1
NO_NCCL_TORCHRUN_TWO_COPIES = [f"[rank0]: {line}" for line in NO_NCCL_TORCHRUN[:6]] + NO_NCCL_TORCHRUN_RANK1
#: an ordinary exception in place of the NCCL one: rank 1's own fault
OTHER_ERROR_RANK1 = [line.replace(NO_NCCL, "ZeroDivisionError: division by zero") for line in NO_NCCL_TORCHRUN_RANK1]
#: the same, untagged: only the agent's ``local_rank: 0`` line says whose it is
OTHER_ERROR_UNTAGGED = [line.replace(NO_NCCL, "ZeroDivisionError: division by zero") for line in NO_NCCL_TORCHRUN]
#: the launcher's libuv error as if raised by worker 1's ``init_process_group`` alone
NO_LIBUV_RANK1 = NO_LIBUV_LAUNCHER[:2] + [f"[rank1]: {NO_LIBUV}"]
#: rank 1's own illegal memory access after Ultralytics' debug command
ILLEGAL_ACCESS_RANK1 = NO_LIBUV_LAUNCHER[:2] + [
    "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "no-nccl-lightning-as-pasted": (NO_NCCL_LIGHTNING, None, None, None, None),
    "no-nccl-lightning-two-ranks": (NO_NCCL_LIGHTNING, 2, 2, None, None),
    "no-nccl-torchrun-as-pasted": (NO_NCCL_TORCHRUN, None, None, None, None),
    "no-nccl-torchrun-two-gpus": (NO_NCCL_TORCHRUN, 2, 2, None, None),
    "no-libuv-launcher-as-pasted": (NO_LIBUV_LAUNCHER, None, None, None, None),
    "no-libuv-launcher-two-gpus": (NO_LIBUV_LAUNCHER, 2, 2, None, None),
    # variants that must not name anyone: a build property is every rank's, whoever prints it
    "no-nccl-rank1-tagged-names-none": (NO_NCCL_LIGHTNING_RANK1, 2, 2, None, None),
    "no-nccl-untagged-twice-names-none": (NO_NCCL_LIGHTNING_UNTAGGED, 2, 2, None, None),
    "no-nccl-torchrun-rank1-tagged-names-none": (NO_NCCL_TORCHRUN_RANK1, 2, 2, None, None),
    "no-nccl-torchrun-two-copies-names-none": (NO_NCCL_TORCHRUN_TWO_COPIES, 2, 2, None, None),
    "no-libuv-rank1-tagged-names-none": (NO_LIBUV_RANK1, 2, 2, None, None),
    # contrasts that must name a rank
    "lightning-rank1-oom-names-rank1": (NO_NCCL_LIGHTNING_RANK1_OOM, 2, 2, 1, "cuda-oom"),
    "other-error-rank1-tagged-names-rank1": (OTHER_ERROR_RANK1, 2, 2, 1, "python-exception"),
    "other-error-untagged-names-local-rank0": (OTHER_ERROR_UNTAGGED, 2, 2, 0, "python-exception"),
    "launcher-then-rank1-illegal-access-names-rank1": (ILLEGAL_ACCESS_RANK1, 2, 2, 1, "cuda-error"),
}
BATCHED = Batched("b376", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_windows_wsl_ddp_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_two_ranks_socket_warnings_without_an_error_give_nothing(tmp_path):
    """torchgeo#1198 as collected: two ``GLOBAL_RANK`` start-up lines, each with Windows' 10049 connect warning, and no
    error line (the RuntimeError lies past the excerpt): no finding, as pasted or as 2 ranks."""
    assert _gist(NO_NCCL_LIGHTNING, tmp_path / "a", None, None) == []
    assert _gist(NO_NCCL_LIGHTNING, tmp_path / "b", 2, 2) == []


def test_missing_nccl_build_is_a_rankless_python_exception(tmp_path):
    """LlamaFactory#4359 as collected: the agent's ``local_rank: 0`` does not make worker 0 the culprit of
    ``Distributed package doesn't have NCCL built in`` — the Windows wheel lacks NCCL for every rank."""
    want = [("rank-failure", "warning", "python-exception", [])]
    assert _gist(NO_NCCL_TORCHRUN, tmp_path / "a", None, None) == want
    assert _gist(NO_NCCL_TORCHRUN, tmp_path / "b", 2, 2) == want


def test_launcher_libuv_error_is_a_rankless_python_exception(tmp_path):
    """ultralytics#17080 as collected: torchrun's own traceback and the libuv RuntimeError, no worker ever started:
    one warning, python-exception, no rank. The second block alone (the script's traceback after the RuntimeError,
    cut at ``, in wrapper``) gives no finding."""
    want = [("rank-failure", "warning", "python-exception", [])]
    assert _gist(NO_LIBUV_LAUNCHER, tmp_path / "a", None, None) == want
    assert _gist(NO_LIBUV_LAUNCHER, tmp_path / "b", 2, 2) == want
    assert _gist(NO_LIBUV_LAUNCHER[16:], tmp_path / "c", None, None) == []
