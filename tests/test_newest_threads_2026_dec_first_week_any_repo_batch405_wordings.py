"""The newest threads, first week of December 2026, any repo (real incidents batch 405), pinned as read. No stored
thread was opened or settled in the theme's window (2026-11-25 .. 2026-12-07): the corpus' newest multi-GPU threads
are of 2026-08/09, so the newest unused settled ones were taken, collected blind: one culprit, two controls. Scored 2/3
both ways as collected (7c9391fe):

- gpustack/gpustack#6019 (NOT_YET as collected): vLLM 0.25 started by GPUStack in MP multi-node mode (2 nodes x 8
  H100, TP 16). Two stored excerpts of the author's log: ``(Worker_TP12 pid=114) ERROR 08-10 23:02:36
  [multiproc_executor.py:898]`` traceback frames down to pyzmq's ``super().bind(addr)``, cut before its exception,
  then at 23:02:38 ``(Worker_TP8 pid=110)``'s ``RuntimeError: [.../gloo/transport/tcp/pair.cc:547] Connection closed
  by peer [10.0.0.58]:56513`` and ``(Worker_TP13 pid=115) ... WorkerProc failed to start.``. Truth (the author): TP12
  lost the race for its message-queue port (``zmq.error.ZMQError: Address already in use``, GPUStack's fixed
  ``VLLM_PORT`` seed), the others fail after it: rank 12, python-exception. k10s finds nothing, as pasted or as 2x8.
- MiaAI-Lab/DeepSeek-v4.1-Flash-DGX-Sparks#14 (read right, control): the one untagged line ``Call to ibv_reg_mr_iova2
  failed with error Cannot allocate memory`` from three GB10 nodes on kernel 7.0.0-1019 (booting all three into 6.17
  fixed it; a kernel regression): no finding.
- pytorch/pytorch#15592 (read right, control): the second node's ``gloo::IoException`` ``connect [127.0.1.1]:3210:
  Connection refused`` / ``Aborted (core dumped)`` (Gloo advertising the hostname's loopback address; fixed by
  ``GLOO_SOCKET_IFNAME`` on every node): no finding.

Contrasts: TP12's frames with its ``ZMQError`` line restored name rank 12 (warning; critical with the victims after
it, even stamped after them); the same cut frames tagged ``[rank12]: `` are a suspect of rank 12 at info, while
vLLM's worker prefix gives nothing; TP8's gloo error alone, and the two controls' lines tagged by one rank or by every
rank, name no one. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_info_suspect, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

PORT_RACE = corpus_lines("gpustack-6019-")
KERNEL_ENOMEM = corpus_lines("DeepSeek-v4.1-Flash-DGX-Sparks-14-")
GLOO_LOOPBACK = corpus_lines("pytorch-15592-")

PREFIX = "[multiproc_executor.py:898] "
#: TP12's lines (its traceback frames, the last one cut by the excerpt)
TP12 = [line for line in PORT_RACE if line.startswith("(Worker_TP12 ")]
TP8 = [line for line in PORT_RACE if line.startswith("(Worker_TP8 ")]
TP13 = [line for line in PORT_RACE if line.startswith("(Worker_TP13 ")]
#: TP12's exception line, past the stored excerpt (the author's words: ZMQError, Address already in use)
TP12_EXCEPTION = (
    "(Worker_TP12 pid=114) ERROR 08-10 23:02:36 " + PREFIX
    + "zmq.error.ZMQError: Address already in use (addr='tcp://10.0.0.58:40043')"
)
#: TP12's frames ending in its exception, without the victims
TP12_WHOLE = TP12[:-1] + [TP12_EXCEPTION]
#: the same, then the victims' excerpt (what the thread's block holds)
TP12_WHOLE_THEN_VICTIMS = TP12_WHOLE + TP8 + TP13
#: the victims first and TP12's whole traceback stamped after them
VICTIMS_THEN_TP12_LATE = TP8 + TP13 + [line.replace("23:02:36", "23:02:40") for line in TP12_WHOLE]
#: TP12's cut frames with a torchrun-style ``[rank12]: `` tag instead of vLLM's worker prefix
TP12_CUT_RANK_TAGGED = ["[rank12]: " + line.split(PREFIX, 1)[1] for line in TP12[:-1]]
#: each control's lines given to one rank, and to every rank
KERNEL_ENOMEM_RANK1 = ["[rank1]: " + line for line in KERNEL_ENOMEM]
KERNEL_ENOMEM_EVERY_RANK = [f"[rank{r}]: {line}" for r in range(3) for line in KERNEL_ENOMEM]
GLOO_LOOPBACK_RANK1 = ["[rank1]: " + line for line in GLOO_LOOPBACK]
GLOO_LOOPBACK_EVERY_RANK = [f"[rank{r}]: {line}" for r in range(4) for line in GLOO_LOOPBACK]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "port-race-as-pasted": (PORT_RACE, None, None, None, None),  # NOT_YET: rank 12
    "port-race-two-nodes-of-eight": (PORT_RACE, 8, 16, None, None),  # NOT_YET: rank 12
    "kernel-enomem-as-pasted": (KERNEL_ENOMEM, None, None, None, None),
    "kernel-enomem-three-nodes": (KERNEL_ENOMEM, 1, 3, None, None),
    "gloo-loopback-as-pasted": (GLOO_LOOPBACK, None, None, None, None),
    "gloo-loopback-two-nodes": (GLOO_LOOPBACK, 2, 4, None, None),
    # contrasts that must name a rank
    "tp12-exception-restored-names-rank12": (TP12_WHOLE, 8, 16, 12, "python-exception"),
    "tp12-exception-then-victims-names-rank12": (TP12_WHOLE_THEN_VICTIMS, 8, 16, 12, "python-exception"),
    "victims-then-tp12-late-names-rank12": (VICTIMS_THEN_TP12_LATE, 8, 16, 12, "python-exception"),
    # variants that must not name anyone
    "tp8-gloo-peer-closed-alone-names-none": (TP8, 8, 16, None, None),
    "kernel-enomem-rank1-names-none": (KERNEL_ENOMEM_RANK1, 1, 3, None, None),
    "kernel-enomem-every-rank-names-none": (KERNEL_ENOMEM_EVERY_RANK, 1, 3, None, None),
    "gloo-loopback-rank1-names-none": (GLOO_LOOPBACK_RANK1, 2, 4, None, None),
    "gloo-loopback-every-rank-names-none": (GLOO_LOOPBACK_EVERY_RANK, 2, 4, None, None),
}
BATCHED = Batched("b405", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_threads_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_port_race_as_collected_finds_nothing(tmp_path):
    """gpustack#6019 as collected (NOT_YET): TP12's vLLM-prefixed frames cut before the exception, TP8's gloo
    ``Connection closed by peer`` and TP13's ``WorkerProc failed to start.`` give no finding at all, not even a
    suspect; the truth is rank 12 (python-exception)."""
    assert _gist(PORT_RACE, tmp_path / "a", None, None) == []
    assert _gist(PORT_RACE, tmp_path / "b", 8, 16) == []


def test_cut_frames_are_a_suspect_when_rank_tagged_only(tmp_path):
    """The same cut frames: tagged ``[rank12]: `` they are rank 12's cut traceback, an info suspect; under vLLM's
    ``(Worker_TP12 pid=114) ERROR ... [multiproc_executor.py:898]`` prefix they are nothing (what misses #6019)."""
    assert_info_suspect(pasted_findings(TP12_CUT_RANK_TAGGED, tmp_path / "a", 8, 16, NOW), 12)
    assert _gist(TP12[:-1], tmp_path / "b", 8, 16) == []


def test_tp13_traceback_head_alone_is_a_suspect(tmp_path):
    """TP13's ``WorkerProc failed to start.`` and the head of its traceback, alone: an info suspect of rank 13; in the
    collected paste, beside TP8's gloo error, it is not even that."""
    assert_info_suspect(pasted_findings(TP13, tmp_path, 8, 16, NOW), 13)


def test_controls_find_nothing(tmp_path):
    """DeepSeek-v4.1-Flash-DGX-Sparks#14 and pytorch#15592 as collected: no finding, as pasted or laid out."""
    assert _gist(KERNEL_ENOMEM, tmp_path / "a", None, None) == []
    assert _gist(KERNEL_ENOMEM, tmp_path / "b", 1, 3) == []
    assert _gist(GLOO_LOOPBACK, tmp_path / "c", None, None) == []
    assert _gist(GLOO_LOOPBACK, tmp_path / "d", 2, 4) == []
