"""Older DDP/DeepSpeed/Horovod threads, 2020-2023, with a settled diagnosis (real incidents batch 389), pinned as
read. Three controls, collected blind (the corpus held no unmined 2020-2023 thread with a settled lone culprit whose
log fit the search excerpt). Two were read right as collected: the legacy elastic agent's ``Received 1 death signal,
shutting down workers`` and its ``closing signal SIGHUP`` to both worker pids, then the accelerate launcher's own
traceback (hiyouga/ChatGLM-Efficient-Tuning#72: the launcher's session hung up mid-run, closed ``solved``) names no
one, as pasted or laid out as its 2 GPUs; rank 0's ``[0]<stderr>:`` rich-traceback frames from Lightning's
``ModelCheckpoint.file_exists`` into ``hvd.broadcast_object`` (horovod/horovod#3121: ``Broadcast is not supported with
Join at this time`` in all 8 workers, the raising line past the excerpt) name no one, as pasted or as 8 workers. The
third (NOT_YET as collected, batch 389) is read with a culprit: the head of an ``mp.spawn`` report, ``-- Process 0
terminated with the following error:`` down to ``self.run_pretrain_routine(model)`` (Lightning-AI/pytorch-lightning
#1375: the TensorBoard logger reads the ``lightning_logs`` directory only the rank-0 node creates, so every node but
node 0 fails alike; fixed by the author's PR #1377) names rank 0 (rank-failure, warning, python-exception, medium);
``Process 0`` is the spawn's local index on a non-zero node. Scored 2/3 both ways as collected. Contrasts: the same
spawn head laid out as 4 processes of 8, or beside a ``Process 1`` copy, names no one; rank 1's own illegal memory
access before the agent's SIGHUP names rank 1 (cuda-error); an untagged CUDA OOM there is a rankless cuda-oom; rank 0's
frames beside rank 1's identical copy, or untagged, name no one; rank 3's own CUDA OOM after rank 0's frames names
rank 3 (cuda-oom). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

SPAWN_HEAD = corpus_lines("lightning-1375-")
AGENT_SIGHUP = corpus_lines("ChatGLM-Efficient-Tuning-72-")
HVD_FRAMES = corpus_lines("horovod-3121-")

#: the spawn head with the exception line the excerpt cut (the logger's missing directory)
SPAWN_HEAD_WITH_EXCEPTION = SPAWN_HEAD + [
    "FileNotFoundError: [Errno 2] No such file or directory: '/home/ubuntu/lightning_logs'"
]
#: a second local process's copy of the same report after the first
SPAWN_HEAD_TWO_PROCESSES = SPAWN_HEAD + [line.replace("Process 0", "Process 1") for line in SPAWN_HEAD]
#: rank 1's own CUDA error before the agent's SIGHUP
AGENT_SIGHUP_AFTER_RANK1_ERROR = [
    "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered"
] + AGENT_SIGHUP
#: an untagged CUDA OOM before the agent's SIGHUP
AGENT_SIGHUP_AFTER_UNTAGGED_OOM = [
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 1; 23.65 GiB total capacity)"
] + AGENT_SIGHUP
#: rank 1's identical copy of rank 0's frames (every worker failed alike)
HVD_FRAMES_TWO_WORKERS = HVD_FRAMES + [line.replace("[0]<stderr>", "[1]<stderr>") for line in HVD_FRAMES]
#: the same frames without horovodrun's tag
HVD_FRAMES_UNTAGGED = [line.replace("[0]<stderr>:", "") for line in HVD_FRAMES]
#: rank 3's own CUDA OOM after rank 0's frames
HVD_FRAMES_RANK3_OOM = HVD_FRAMES + [
    "[3]<stderr>:RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 3; 10.76 GiB total capacity; "
    "9.80 GiB already allocated)"
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "agent-sighup-as-pasted": (AGENT_SIGHUP, None, None, None, None),
    "agent-sighup-two-gpus": (AGENT_SIGHUP, 2, 2, None, None),
    "hvd-frames-as-pasted": (HVD_FRAMES, None, None, None, None),
    "hvd-frames-eight-workers": (HVD_FRAMES, 8, 8, None, None),
    # NOT_YET as collected (batch 389), pinned as read: the spawn's local `Process 0` named as rank 0
    "spawn-head-as-pasted-names-rank0": (SPAWN_HEAD, None, None, 0, "python-exception"),
    "spawn-head-with-exception-names-rank0": (SPAWN_HEAD_WITH_EXCEPTION, None, None, 0, "python-exception"),
    # variants that must not name anyone
    "spawn-head-four-of-eight-names-none": (SPAWN_HEAD, 4, 8, None, None),
    "spawn-head-two-processes-names-none": (SPAWN_HEAD_TWO_PROCESSES, 4, 8, None, None),
    "agent-sighup-untagged-oom-names-none": (AGENT_SIGHUP_AFTER_UNTAGGED_OOM, 2, 2, None, None),
    "hvd-frames-two-workers-names-none": (HVD_FRAMES_TWO_WORKERS, 8, 8, None, None),
    "hvd-frames-untagged-names-none": (HVD_FRAMES_UNTAGGED, None, None, None, None),
    # contrasts that must name a rank
    "agent-sighup-rank1-error-names-rank1": (AGENT_SIGHUP_AFTER_RANK1_ERROR, 2, 2, 1, "cuda-error"),
    "hvd-frames-rank3-oom-names-rank3": (HVD_FRAMES_RANK3_OOM, 8, 8, 3, "cuda-oom"),
}
BATCHED = Batched("b389", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_older_ddp_thread_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [
        (f["rule"], f["severity"], f["cause"], f["ranks"], f.get("confidence"))
        for f in pasted_findings(lines, folder, nproc, world, NOW)
    ]


def test_agent_sighup_is_no_finding(tmp_path):
    """ChatGLM-Efficient-Tuning#72 as collected: the agent's own death signal and its SIGHUP to both workers name no
    one and make no finding (the launcher was signalled from outside)."""
    assert _gist(AGENT_SIGHUP, tmp_path / "a", None, None) == []
    assert _gist(AGENT_SIGHUP, tmp_path / "b", 2, 2) == []


def test_rank0_rich_frames_without_an_exception_are_no_finding(tmp_path):
    """horovod#3121 as collected: rank 0's rich-traceback frames with no exception line make no finding."""
    assert _gist(HVD_FRAMES, tmp_path / "a", None, None) == []
    assert _gist(HVD_FRAMES, tmp_path / "b", 8, 8) == []


def test_spawn_head_names_its_local_process_as_rank0(tmp_path):
    """pytorch-lightning#1375 (NOT_YET as collected): the spawn's ``Process 0`` on a non-zero node is read as rank 0
    raising a Python exception, at warning, medium ('only its exit status is in the logs'); the truth is a logger bug
    every node but node 0 hits alike. Laid out as 4 processes of 8 it names no one."""
    assert _gist(SPAWN_HEAD, tmp_path / "a", None, None) == [
        ("rank-failure", "warning", "python-exception", [0], "medium")
    ]
    assert _gist(SPAWN_HEAD, tmp_path / "b", 4, 8) == [("rank-failure", "warning", "python-exception", [], None)]
