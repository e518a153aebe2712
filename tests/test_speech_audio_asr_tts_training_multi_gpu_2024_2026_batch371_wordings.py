"""Speech and audio model training on several GPUs or nodes (real incidents batch 371), pinned as read. Three
controls, collected blind. Two were read right as collected: the one line
``RuntimeError: DDP expects same model across all ranks, but Rank 2 has 363 params, while rank 0 has inconsistent 0
params.`` (SWivid/F5-TTS#1008: F5-TTS v1 on several nodes, the maintainer's fix the inter-node NCCL variables and
accelerate's ``same_network``; every rank builds the same model) is a collective-mismatch warning of no rank, as
pasted or laid out as nodes of 4 GPUs; icefall's zipformer under ``mp.spawn`` (k2-fsa/icefall#1390: both processes'
``(0/2)`` / ``(1/2)`` INFO lines up to ``Using DDP`` and the parent's spawn traceback ending in
``raise ProcessExitedException(``, twice, the author bisecting it to torch 2.1.0 for every process alike) is no
finding at all, as pasted or as its 2 processes: the excerpt cut the exception line, and with the line completed
as torch words it (``process 1 terminated with signal SIGABRT``) rank 1 is named (abort). The third (NOT_YET as
collected, batch 371): espnet2's parent traceback ending ``Exception: process 1 terminated with signal SIGKILL``
(espnet/espnet#1801: 8 GPUs on one 256G host, every process loading the same 37.7M-line scp/shape files until host
RAM ran out, the author's own diagnosis) names rank 1 as killed by the host's OOM killer (warning, medium), as pasted
or as 8 GPUs. Scored 2/3 both ways as collected. Contrasts: the F5-TTS line tagged ``[rank2]:`` alone names rank 2,
tagged by all four ranks of a node names no one; icefall's lines with an untagged ``terminate called after throwing``
name no one; espnet's ``process 1 terminated with exit code 1`` names rank 1 (python-exception); a bare ``Killed``
names no one; two spawn SIGKILL lines (processes 1 and 5) still name rank 1 alone, now critical, high. Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 8, 0, tzinfo=dt.timezone.utc)

DDP_SHAPE_CHECK = corpus_lines("F5-TTS-1008-")
ZIPFORMER_TORCH21 = corpus_lines("icefall-1390-")
SCP_HOST_OOM = corpus_lines("espnet-1801-")

#: the shape-check line printed by rank 2 alone, with torch's rank tag
DDP_SHAPE_CHECK_RANK2 = ["[rank2]: " + DDP_SHAPE_CHECK[0]]
#: the same line printed by each of a node's four ranks
DDP_SHAPE_CHECK_EVERY_RANK = [f"[rank{r}]: " + DDP_SHAPE_CHECK[0] for r in range(4)]
#: block 1 with the exception line the excerpt cut, completed as torch words it
ZIPFORMER_SPAWN_SIGABRT = ZIPFORMER_TORCH21[:16] + [
    "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGABRT",
]
#: both blocks and the untagged C++ terminate line block 2 goes on to (cut by the excerpt)
ZIPFORMER_TERMINATE = ZIPFORMER_TORCH21 + ["terminate called after throwing an instance of 'c10::Error'"]
#: process 1 exiting with a status, not a signal
SCP_PROCESS1_EXIT1 = [line.replace("signal SIGKILL", "exit code 1") for line in SCP_HOST_OOM]
#: two processes SIGKILLed (the host OOM killer taking two victims)
SCP_TWO_KILLED = SCP_HOST_OOM[:-2] + [
    "Exception: process 1 terminated with signal SIGKILL",
    "Exception: process 5 terminated with signal SIGKILL",
    SCP_HOST_OOM[-1],
]
#: the shell's bare ``Killed`` with no process named
BARE_KILLED = ["Killed"]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "ddp-shape-check-as-pasted": (DDP_SHAPE_CHECK, None, None, None, None),
    "ddp-shape-check-nodes-of-four": (DDP_SHAPE_CHECK, 4, 8, None, None),
    "zipformer-torch21-as-pasted": (ZIPFORMER_TORCH21, None, None, None, None),
    "zipformer-torch21-two-processes": (ZIPFORMER_TORCH21, 2, 2, None, None),
    # NOT_YET as collected (batch 371): rank 1 named, the truth is no one
    "scp-host-oom-as-pasted": (SCP_HOST_OOM, None, None, 1, "host-oom-kill"),
    "scp-host-oom-eight-gpus": (SCP_HOST_OOM, 8, 8, 1, "host-oom-kill"),
    # variants that must not name anyone
    "ddp-shape-check-every-rank-names-none": (DDP_SHAPE_CHECK_EVERY_RANK, 4, 4, None, None),
    "zipformer-terminate-untagged-names-none": (ZIPFORMER_TERMINATE, 2, 2, None, None),
    "bare-killed-names-none": (BARE_KILLED, 8, 8, None, None),
    # contrasts that name a rank
    "ddp-shape-check-rank2-names-rank2": (DDP_SHAPE_CHECK_RANK2, 4, 8, 2, "collective-mismatch"),
    "zipformer-spawn-sigabrt-names-rank1": (ZIPFORMER_SPAWN_SIGABRT, 2, 2, 1, "abort"),
    "scp-process1-exit-code-names-rank1": (SCP_PROCESS1_EXIT1, 8, 8, 1, "python-exception"),
    # pinned as read: two killed processes still name the first alone
    "scp-two-killed-names-rank1": (SCP_TWO_KILLED, 8, 8, 1, "host-oom-kill"),
}
BATCHED = Batched("b371", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_speech_training_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_lone_ddp_shape_check_is_a_rankless_collective_mismatch(tmp_path):
    """F5-TTS#1008 as collected: one warning, collective-mismatch, no rank — the message names rank 2 and an
    'inconsistent' rank 0, but neither is the rank that printed it."""
    assert _gist(DDP_SHAPE_CHECK, tmp_path / "a", None, None) == [("rank-failure", "warning", "collective-mismatch", [])]
    assert _gist(DDP_SHAPE_CHECK, tmp_path / "b", 4, 8) == [("rank-failure", "warning", "collective-mismatch", [])]


def test_zipformer_spawn_traceback_without_its_exception_line_is_nothing(tmp_path):
    """icefall#1390 as collected: two processes' INFO lines and the parent's spawn frames, no exception line (the
    excerpt cut it): no finding at all, so no rank is blamed for a torch-version crash every process hits."""
    assert _gist(ZIPFORMER_TORCH21, tmp_path / "a", None, None) == []
    assert _gist(ZIPFORMER_TORCH21, tmp_path / "b", 2, 2) == []


def test_zipformer_completed_exit_line_names_process1(tmp_path):
    """The line the excerpt cut, completed as torch words it: spawn's ``process 1 terminated with signal SIGABRT``
    names rank 1 (abort, warning) — the trap the thread warns of (the author: torch 2.1.0, every process alike)."""
    assert _gist(ZIPFORMER_SPAWN_SIGABRT, tmp_path, 2, 2) == [("rank-failure", "warning", "abort", [1])]


def test_spawn_sigkill_names_process1_as_host_oom(tmp_path):
    """espnet#1801 as collected (NOT_YET): the parent's lone ``process 1 terminated with signal SIGKILL`` names rank 1
    as killed by the host's OOM killer, warning, medium; the author's diagnosis is the 8 processes' common data
    loading exhausting the host's RAM, the SIGKILL one victim among identical ranks."""
    findings = pasted_findings(SCP_HOST_OOM, tmp_path, 8, 8, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "host-oom-kill", [1])
    ]
    assert findings[0]["confidence"] == "medium"


def test_two_spawn_sigkills_still_name_the_first_alone(tmp_path):
    """Pinned as read: with processes 1 and 5 both SIGKILLed the finding still names rank 1 alone, and louder
    (critical, high); two victims of one host's OOM killer point at the host, not at the first."""
    findings = pasted_findings(SCP_TWO_KILLED, tmp_path, 8, 8, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "critical", "host-oom-kill", [1])
    ]
    assert findings[0]["confidence"] == "high"
