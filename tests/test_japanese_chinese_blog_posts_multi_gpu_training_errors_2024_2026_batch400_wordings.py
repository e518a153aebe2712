"""Japanese/Chinese write-ups of multi-GPU training errors, 2024-2026 (real incidents batch 400), pinned as read. Two
controls, collected blind from Chinese-language GitHub Q&A threads (the blog/Q&A page corpus gave no console paste with
a settled answer in about 70 searches). Both were read right as collected: torchrun's ``finetune_hf.py FAILED`` table
with rank 1 ``exitcode  : 1 (pid: 282)`` under ``Failures:`` and rank 0 ``exitcode  : 1 (pid: 281)`` under ``Root Cause
(first observed failure):``, same host, same second, no traceback (zai-org/ChatGLM3#800: the author's dataset path was
wrong, a configuration error every worker hits alike) is a python-exception warning of no rank, as pasted or as its 2
local ranks; a tqdm bar with the agent's ``api.py:741] Received Signals.SIGHUP death signal, shutting down workers``
glued to it and four ``Sending process ... closing signal SIGHUP`` lines (ymcui/Chinese-LLaMA-Alpaca-3#47: the launcher
hung up under nohup, the author: 'ddp和nohup 貌似存在一些不兼容问题') gives no finding, as pasted or as 5 workers.
Scored 2/2 both ways as collected. Contrasts: the same FileNotFoundError on both ranks or untagged, or the SIGHUP lines
without the agent's line, name no one; rank 1's table entry at ``exitcode  : -9`` names rank 1 (host-oom-kill); the
error tagged ``[rank1]:`` alone names rank 1 (python-exception); the Root Cause entry alone (``<NO_OTHER_FAILURES>``)
names rank 0 (python-exception, warning, medium); a worker's own ``failed (exitcode: -9) local_rank: 2`` with SIGTERMs
to the rest in place of the agent's SIGHUP names rank 2 (host-oom-kill). Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

TABLE = corpus_lines("ChatGLM3-800-")
SIGHUP = corpus_lines("Chinese-LLaMA-Alpaca-3-47-")

MISSING = "FileNotFoundError: [Errno 2] No such file or directory: 'data/AdvertiseGen_fix/train.json'"
#: the dataset-path error both workers would print, tagged by each, before the table
TABLE_ERROR_BOTH = [f"[rank0]: {MISSING}", f"[rank1]: {MISSING}"] + TABLE
#: the same error once, untagged (the console without per-rank prefixes)
TABLE_ERROR_UNTAGGED = [MISSING] + TABLE
#: the same error tagged by rank 1 alone, after the table
TABLE_ERROR_RANK1 = TABLE + [f"[rank1]: {MISSING}"]
#: rank 1's entry with a SIGKILL's exit instead of 1
TABLE_RANK1_SIGKILL = [line.replace("exitcode  : 1 (pid: 282)", "exitcode  : -9 (pid: 282)") for line in TABLE]
#: the Root Cause entry alone, torchrun's table when only one worker failed
TABLE_ROOT_CAUSE_ALONE = TABLE[:3] + ["  <NO_OTHER_FAILURES>"] + TABLE[11:]
#: the SIGHUP lines without the agent's own line (the bar kept, the agent's report cut off it)
SIGHUP_WITHOUT_AGENT = [SIGHUP[0], SIGHUP[1], SIGHUP[2].split("W0519")[0]] + SIGHUP[3:]
#: a worker SIGKILLed on its own: the agent SIGTERMs the other three and reports local rank 2's -9
WORKER_SIGKILL = (
    [SIGHUP[2].split("W0519")[0]]
    + [line.replace("closing signal SIGHUP", "closing signal SIGTERM") for line in SIGHUP[3:] if "589451" not in line]
    + [
        "E0519 07:08:17.209025 139677327284032 torch/distributed/elastic/multiprocessing/api.py:869] failed "
        "(exitcode: -9) local_rank: 2 (pid: 589451) of binary: /usr/bin/python3"
    ]
)

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "dataset-path-table-as-pasted": (TABLE, None, None, None, None),
    "dataset-path-table-two-processes": (TABLE, 2, 2, None, None),
    "nohup-sighup-as-pasted": (SIGHUP, None, None, None, None),
    "nohup-sighup-five-workers": (SIGHUP, 5, 5, None, None),
    # variants that must not name anyone
    "dataset-path-error-both-ranks-names-none": (TABLE_ERROR_BOTH, 2, 2, None, None),
    "dataset-path-error-untagged-names-none": (TABLE_ERROR_UNTAGGED, 2, 2, None, None),
    "sighup-without-agent-line-names-none": (SIGHUP_WITHOUT_AGENT, 5, 5, None, None),
    # contrasts that must name a rank
    "rank1-exit-minus-9-names-rank1": (TABLE_RANK1_SIGKILL, 2, 2, 1, "host-oom-kill"),
    "dataset-path-error-rank1-only-names-rank1": (TABLE_ERROR_RANK1, 2, 2, 1, "python-exception"),
    "root-cause-alone-names-rank0": (TABLE_ROOT_CAUSE_ALONE, 2, 2, 0, "python-exception"),
    "worker-sigkill-not-agent-sighup-names-rank2": (WORKER_SIGKILL, 5, 5, 2, "host-oom-kill"),
}
BATCHED = Batched("b400", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_japanese_chinese_write_up_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_two_exit_1_entries_in_one_second_are_a_rankless_python_exception(tmp_path):
    """ChatGLM3#800 as collected: torchrun's ``Root Cause (first observed failure)`` heading over rank 0 does not make
    rank 0 the culprit when rank 1 exited 1 in the same second with no signal; the exit status alone gives the cause."""
    assert _gist(TABLE, tmp_path / "a", None, None) == [("rank-failure", "warning", "python-exception", [])]
    assert _gist(TABLE, tmp_path / "b", 2, 2) == [("rank-failure", "warning", "python-exception", [])]


def test_agent_sighup_glued_to_a_progress_bar_is_no_finding(tmp_path):
    """Chinese-LLaMA-Alpaca-3#47 as collected: the agent's own SIGHUP (a hung-up launcher) and the SIGHUP it forwards to
    every worker pid are nobody's failure, even glued to a tqdm bar and with the block's tail cut off."""
    assert _gist(SIGHUP, tmp_path / "a", None, None) == []
    assert _gist(SIGHUP, tmp_path / "b", 5, 5) == []


def test_root_cause_alone_is_a_medium_warning(tmp_path):
    """The contrast: with ``<NO_OTHER_FAILURES>`` the one exit-1 entry names rank 0 at warning, medium (an exit status,
    no error line), not critical."""
    findings = pasted_findings(TABLE_ROOT_CAUSE_ALONE, tmp_path, 2, 2, NOW)
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings] == [
        ("rank-failure", "warning", "python-exception", [0])
    ]
    assert findings[0]["confidence"] == "medium"
