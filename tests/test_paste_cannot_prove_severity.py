"""What a paste cannot prove: an abort known by its exit status only, and a Python exception in a paste of one rank's
lines, are named at warning, not as confident culprits (docs/rules.md, "What a paste cannot prove", session 43). A -6 that only a launcher reports (torchrun's agent line or failure table, mp.spawn's
``ProcessExitedException``, mpirun's ``exited on signal 6``) still names its rank, at warning with confidence medium:
the NCCL watchdog's teardown of a rank that waited ends with the same status where its timeout line is not in the log
(the corpus's controls torchtune-2093, ms-swift-4340, accelerate-2960 are such victims). A line of the rank's own that
says its worker aborted (a DataLoader worker's ``killed by signal: Aborted``, read as the rank's python-exception
since session 69) is more than an exit status: critical beside
another rank's line, at warning in a paste of that rank's lines only (session 45, any failure so).
A Python exception in a paste that holds that rank's lines only (no other rank's line, no victim) is named at warning
too: the code every rank runs may have raised it on each (the corpus's controls datasets-8201, ColossalAI-6110 are
so); the same exception beside its launcher's SIGTERMs of the other workers stays critical. Real pastes of
tests/data/real-incidents and small variants, through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted
from incident_kit import corpus_lines

NOW = dt.datetime(2026, 12, 4, 6, 0, tzinfo=dt.timezone.utc)

# seven SIGTERMs, then `failed (exitcode: -6) local_rank: 4`
TORCHRUN = corpus_lines("transformers-28119-")
# a failure table alone: rank 1, -6, `Signal 6 (SIGABRT)`
TABLE = corpus_lines("Bridge-LLM-reasoning-1-")
# the same table shape: rank 1's abort was its watchdog's, a victim's
CONTROL = corpus_lines("ms-swift-4340-")
# mp.spawn: `process 1 terminated with signal SIGABRT`
SPAWN = corpus_lines("icefall-1764-")
# rank 4's DataLoader worker `killed by signal: Aborted.`
LOADER = corpus_lines("LlamaFactory-8043-")
# rank 9's lone traceback: every rank had fewer shards than ranks (a control)
LONE_CONTROL = corpus_lines("datasets-8201-")
# an IndexError, then torchrun's SIGTERMs of three workers and `failed (exitcode: 1) local_rank: 1`
TORN = corpus_lines("FastChat-1054-")
LONE = [
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "/opt/train.py", line 41, in <module>',
    "[rank3]:     batch = next(loader)",
    "[rank3]: ValueError: shard 17 has no samples",
]
MPIRUN = [
    "--------------------------------------------------------------------------",
    "mpirun noticed that process rank 2 with PID 31337 on node gpu07 exited on signal 6 (Aborted).",
    "--------------------------------------------------------------------------",
]

#: key: (the pasted lines, the rank named, the severity and confidence of its rank-failure finding)
CASES = {
    "torchrun-agent-line": (TORCHRUN, 4, "warning", "medium"),
    "torchrun-table-alone": (TABLE, 1, "warning", "medium"),
    "torchrun-table-alone-control": (CONTROL, 1, "warning", "medium"),
    "spawn-process-exit": (SPAWN, 1, "warning", "medium"),
    "mpirun-signal-6": (MPIRUN, 2, "warning", "medium"),
    # a line of the rank's own that says it aborted, in a paste of that rank's lines only (session 45)
    "loader-worker-aborted": (LOADER, 4, "warning", "medium"),
    # the contrast: that line beside the launcher's SIGTERM of another worker is that rank's failure, critical
    "loader-worker-aborted-beside-a-sigterm": (
        LOADER + ["[2026-12-04 05:00:02,100] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 101 "
                  "closing signal SIGTERM"], 4, "critical", "high"),
    "lone-rank-exception": (LONE, 3, "warning", "medium"),
    "lone-rank-exception-control": (LONE_CONTROL, 9, "warning", "medium"),
    # the contrast: the other workers' SIGTERMs are in the paste, so it holds more than that rank's lines
    "exception-then-sigterms": (TORN, 1, "critical", "high"),
    "lone-rank-exception-beside-a-sigterm": (
        LONE
        + [
            "[2026-12-04 05:00:02,100] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 101 "
            "closing signal SIGTERM"
        ],
        3,
        "critical",
        "high",
    ),
}
BATCHED = Batched("paste-cannot-prove", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


def _rank_failures(findings: list[dict]) -> list[dict]:
    return [
        f
        for f in findings
        if f["rule"] == "rank-failure" and f["cause"] in ("abort", "python-exception")
    ]


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_what_a_paste_cannot_prove_is_named_at_warning(key, tmp_path_factory):
    _, rank, severity, confidence = CASES[key]
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    got = [
        (f["ranks"], f["severity"], f["evidence"][0]["confidence"])
        for f in _rank_failures(findings)
    ]
    assert got == [([rank], severity, confidence)], [
        (f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings
    ]


@pytest.mark.parametrize("key", [k for k, v in CASES.items() if v[2] == "warning"])
def test_no_finding_of_an_abort_by_its_exit_status_is_critical(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    assert not [f for f in findings if f["severity"] == "critical" and f["ranks"]], (
        findings
    )


def test_the_finding_says_only_the_exit_status_is_in_the_logs(tmp_path_factory):
    (finding,) = _rank_failures(
        BATCHED.findings("torchrun-agent-line", tmp_path_factory, _make)
    )
    assert (
        "Only its exit status is in the logs (confidence medium)." in finding["summary"]
    )


def test_the_finding_says_the_paste_holds_one_rank_s_lines_only(tmp_path_factory):
    (finding,) = _rank_failures(
        BATCHED.findings("lone-rank-exception", tmp_path_factory, _make)
    )
    assert "The paste holds this rank's lines only" in finding["summary"]
    assert finding["evidence"][0]["medium_why"] == "lone-paste-exception"
