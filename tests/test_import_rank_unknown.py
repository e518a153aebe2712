"""A paste that numbers no rank, process or worker, imported with no layout option: its one pod's one
process is a guess of ``import-logs`` (a job of many processes whose paste holds one traceback looks the
same), so the pod's rank says ``rank_source = 'assumed'`` and a failure is reported without a rank
(real incidents pytorch-63174 and CodeGeeX-160: controls that were named rank 0). Saying
``--nproc-per-node 1`` makes it a job of one process, whose failure is rank 0's."""

from __future__ import annotations

import datetime as dt

import pyarrow.parquet as pq
import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)
TRACEBACK = ("Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    loss.backward()\n"
             "RuntimeError: CUDA error: an illegal memory access was encountered\n")


def _import(tmp_path, text: str, **layout):
    return import_logs([LogSource("log.txt", text)], tmp_path / "b", now=NOW, **layout)


def _named(bundle) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"]) for f in analyze(bundle)["findings"] if f["severity"] in ("critical", "warning")]


def test_an_unnumbered_traceback_names_no_rank(tmp_path):
    bundle, layout = _import(tmp_path, TRACEBACK)
    assert layout.rank_unknown
    rows = pq.read_table(f"{bundle.path}/tables/ranks.parquet").to_pylist()
    assert [(r["rank"], r["rank_source"], r["rank_confidence"]) for r in rows] == [(0, "assumed", "low")]
    findings = analyze(bundle)["findings"]
    failure = next(f for f in findings if f["rule"] == "rank-failure")
    assert (failure["cause"], failure["ranks"]) == ("cuda-error", [])
    assert "name no single rank" in failure["title"]
    assert failure["evidence"][0]["victims"] == 0  # the one process that failed is no victim of itself
    assert not [f for f in findings if f["ranks"]]


def test_one_process_said_names_rank_0(tmp_path):
    bundle, layout = _import(tmp_path, TRACEBACK, nproc_per_node=1)
    assert not layout.rank_unknown
    assert ("rank-failure", "cuda-error", [0]) in _named(bundle)


@pytest.mark.parametrize("line", [
    "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered",
    "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout",
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 4242) of binary: /usr/bin/python3",
    "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGSEGV",
    "(RayTrainWorker pid=1942) [Worker:0] [INFO] Returning from train func",
    "rank=0 step=10 loss=nan",
])
def test_a_numbered_process_is_no_guess(tmp_path, line):
    _, layout = _import(tmp_path, TRACEBACK + line + "\n")
    assert not layout.rank_unknown


@pytest.mark.parametrize("line", [
    "rank=2 step=10 loss=nan",
    "rank 1 len(log_vars): 3 keys: loss_rpn_cls,loss_rpn_bbox,s0.loss_bbox",  # mmdetection-9291
])
def test_a_process_the_one_process_layout_does_not_hold_is_still_a_guess(tmp_path, line):
    """A line numbering rank 1 or 2 that the layout placed nowhere (its world stayed 1): the one pod's rank 0 is a guess."""
    bundle, layout = _import(tmp_path, TRACEBACK + line + "\n")
    assert layout.rank_unknown and not [f for f in analyze(bundle)["findings"] if f["ranks"]]


def test_a_process_id_numbers_no_rank(tmp_path):
    """The allocator's ``Process <pid> has … in use`` names the process by its id, not by its rank."""
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 15.78 GiB "
           "of which 27.19 MiB is free. Process 307065 has 15.75 GiB memory in use.\n")
    _, layout = _import(tmp_path, TRACEBACK.replace("RuntimeError: CUDA error: an illegal memory access was encountered\n", oom))
    assert layout.rank_unknown


def test_several_files_are_several_nodes(tmp_path):
    _, layout = import_logs([LogSource("a.log", TRACEBACK), LogSource("b.log", "step 10 loss 1.0\n")], tmp_path / "b", now=NOW)
    assert not layout.rank_unknown and layout.world_size == 2


@pytest.mark.parametrize("line", [
    "[sync_model_states] Synchronizing model states from rank 0 to all ranks",  # cosmos-predict2.5#72's broadcast
    "    dist.broadcast(self.amp, src=0)  # broadcast the tensor from rank 0 to all other ranks (returns None)",
])
def test_a_broadcast_source_numbers_no_printer(tmp_path, line):
    """``from rank 0 to all ranks`` names the source every rank receives from, printed by every rank alike: the paste is
    not rank 0's, so its one process stays a guess and its failure names no rank (session 57)."""
    bundle, layout = _import(tmp_path, line + "\n" + TRACEBACK)
    assert layout.rank_unknown and not [f for f in analyze(bundle)["findings"] if f["ranks"]]


def test_a_rank_the_printer_names_still_counts(tmp_path):
    """The contrast: ``env_dump from rank 0`` (no broadcast to the others) numbers the printer."""
    _, layout = _import(tmp_path, "=== env_dump from rank 0 (verify NCCL_DEBUG propagation) ===\n" + TRACEBACK)
    assert not layout.rank_unknown
