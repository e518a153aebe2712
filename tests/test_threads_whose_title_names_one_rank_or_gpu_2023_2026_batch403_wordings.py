"""Threads whose title or first line names one rank, GPU or node, 2023-2026 (real incidents batch 403), pinned as
read. Three threads, collected blind, two of them controls. One was read right as collected: SGLang's loader message
``TP rank 1 could finish the model loading, but there are other ranks that`` / ``didn't finish loading`` pasted in a
PR (sgl-project/sglang#39629: four nodes cold-loading one 539 GB checkpoint off one NFS export past the loader's fixed
480 s barrier; the named rank is one that finished, the cause the shared storage) finds nothing, as pasted or laid out
as 32 ranks. Two are NOT_YET as collected (batch 403). AnswerDotAI/fsdp_qlora#24 (title ``ProcessExitedException:
process 0 (2x 4090)``; the maintainer: the 70B example 'uses just over 128GB RAM', the pod has 125 GB) finds nothing:
the stored excerpt of the block is the launcher parent's traceback opening only (``train.py`` -> ``call_parse`` ->
``return _f()``), the truth (rank 0, host-oom-kill) is in the title. MiaAI-Lab/GLM-5.3-Flash-NVFP4-Dual-DGX-Spark#2
(Ray's memory monitor killing a worker on node 10.99.0.2 of two Sparks, no rank printed) names rank 0,
python-exception, laid out as one process per node: the wrapped ``1 worker(s) were killed due to the node`` /
``running low on memory`` is read as the line-holding pod's own exception (as pasted, a python-exception warning of
no rank). Scored 1/3 both ways as collected. Contrasts: spawn's ``process 0 terminated with signal SIGKILL`` after the
fsdp_qlora lines names rank 0 (host-oom-kill); the loader message from four ranks, or tagged ``TP1``, names no one, a
rank 3 CUDA OOM after it names rank 3 (cuda-oom); the Ray notice joined into one line reads host-oom-kill (still on
rank 0), tagged ``[rank1]:`` names rank 1, printed for two nodes names no one. Pasted logs through ``k10s
import-logs``, batched.

Read right since session 66 (devB, tests/test_ray_memory_monitor.py): the wrapped notice's pieces are joined
(parsers/log_cut_wordings.py) and read host-oom-kill, and Ray's memory-monitor notice naming no rank is no longer the
rank of the one-process pod whose log holds it (the driver's): the GLM dual-Spark thread names no rank both ways, the
one-line notice alike (host-oom-kill, no rank); tagged ``[rank1]:`` it names rank 1, host-oom-kill.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 23, 0, tzinfo=dt.timezone.utc)

SPAWN_PARENT = corpus_lines("fsdp_qlora-24-")
LOADER_BARRIER = corpus_lines("sglang-39629-")
RAY_NODE_OOM = corpus_lines("glm53-dual-dgx-spark-2-")

#: the parent's traceback as it goes on past the excerpt: spawn's verdict on process 0 (the title's)
SPAWN_PARENT_WITH_EXIT = SPAWN_PARENT + [
    "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL",
]
#: the loader message as every finished TP rank of one node raises it (one line each)
LOADER_BARRIER_FOUR_RANKS = [
    f"TP rank {r} could finish the model loading, but there are other ranks that didn't finish loading" for r in range(4)
]
#: the same two lines under SGLang's own ``[time TP1]`` prefix
LOADER_BARRIER_TP1_TAGGED = ["[2026-09-15 10:00:00 TP1] " + line for line in LOADER_BARRIER]
#: a slow rank's own CUDA OOM pasted after the message
LOADER_BARRIER_RANK3_OOM = LOADER_BARRIER + [
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of "
    "79.11 GiB of which 1.06 GiB is free.",
]
#: Ray's notice unwrapped into one line, as Ray prints it
RAY_NODE_OOM_ONE_LINE = [" ".join(RAY_NODE_OOM)]
#: the notice tagged by rank 1's prefix
RAY_NODE_OOM_RANK1 = ["[rank1]: " + line for line in RAY_NODE_OOM]
#: the notice for both nodes (each Spark's worker killed alike)
RAY_NODE_OOM_TWO_NODES = RAY_NODE_OOM + [line.replace("10.99.0.2", "10.99.0.3") for line in RAY_NODE_OOM]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "loader-barrier-as-pasted": (LOADER_BARRIER, None, None, None, None),
    "loader-barrier-four-nodes-of-eight": (LOADER_BARRIER, 8, 32, None, None),
    "spawn-parent-as-pasted": (SPAWN_PARENT, None, None, None, None),
    # NOT_YET as collected (batch 403): the truth is rank 0, host-oom-kill, named in the title only
    "spawn-parent-two-gpus-names-none-as-read": (SPAWN_PARENT, 2, 2, None, None),
    "ray-node-oom-as-pasted": (RAY_NODE_OOM, None, None, None, None),
    # read right since session 66 (was NOT_YET as collected, batch 403): no rank (node 10.99.0.2 only)
    "ray-node-oom-two-sparks-names-none": (RAY_NODE_OOM, 1, 2, None, None),
    # variants that must not name anyone
    "loader-barrier-four-ranks-names-none": (LOADER_BARRIER_FOUR_RANKS, 8, 32, None, None),
    "loader-barrier-tp1-tagged-names-none": (LOADER_BARRIER_TP1_TAGGED, 8, 32, None, None),
    "ray-node-oom-two-nodes-names-none": (RAY_NODE_OOM_TWO_NODES, 1, 2, None, None),
    # contrasts that must name a rank
    "spawn-parent-with-exit-names-rank0": (SPAWN_PARENT_WITH_EXIT, 2, 2, 0, "host-oom-kill"),
    "loader-barrier-rank3-oom-names-rank3": (LOADER_BARRIER_RANK3_OOM, 8, 32, 3, "cuda-oom"),
    "ray-node-oom-rank1-tagged-names-rank1": (RAY_NODE_OOM_RANK1, 1, 2, 1, "host-oom-kill"),
    # session 66: the one-line notice names no rank either (it was rank 0's, the pod holding it)
    "ray-node-oom-one-line-names-none": (RAY_NODE_OOM_ONE_LINE, 1, 2, None, None),
}
BATCHED = Batched("b403", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_title_named_rank_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_loader_barrier_message_finds_nothing(tmp_path):
    """sglang#39629 as collected: the message a finished rank raises about slow peers is no finding at all, as pasted
    or as 32 ranks (right: no rank failed, the shared NFS export was slow)."""
    assert _gist(LOADER_BARRIER, tmp_path / "a", None, None) == []
    assert _gist(LOADER_BARRIER, tmp_path / "b", 8, 32) == []


def test_spawn_parent_opening_finds_nothing(tmp_path):
    """fsdp_qlora#24 as collected: the parent's traceback opening names no rank, no signal, no exit: no finding
    (NOT_YET: the title's ``process 0`` is the verdict, and a log reading cannot see a title)."""
    assert _gist(SPAWN_PARENT, tmp_path / "a", None, None) == []
    assert _gist(SPAWN_PARENT, tmp_path / "b", 2, 2) == []


def test_wrapped_ray_memory_monitor_notice_is_read_as_a_host_oom_kill_of_no_rank(tmp_path):
    """GLM-5.3 dual-Spark#2 (session 66): the wrapped Ray memory-monitor notice, its pieces joined, is host-oom-kill of
    no rank, as pasted and as two Sparks (not rank 0's, the only pod with lines); joined into one line alike."""
    assert _gist(RAY_NODE_OOM, tmp_path / "a", None, None) == [("rank-failure", "warning", "host-oom-kill", [])]
    assert _gist(RAY_NODE_OOM, tmp_path / "b", 1, 2) == [("rank-failure", "warning", "host-oom-kill", [])]
    assert _gist(RAY_NODE_OOM_ONE_LINE, tmp_path / "c", 1, 2) == [("rank-failure", "warning", "host-oom-kill", [])]
