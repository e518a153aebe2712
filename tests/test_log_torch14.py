"""What the fourteenth set of real launcher runs (tests/data/torch-runs, ``t14-*``) brought: torchelastic's timer
watchdog's ``Reaping worker_pid=[…]. Expired timers: […]`` (the agent killed a worker whose ``expires`` scope ran out,
then itself: no failure report follows) is read (k10s_forensics/parsers/log_classify.py), and the one rank of that pod
without a line of its own, which every other rank saw go, is named (never-joined; queries/_evidence_logs.sql); a
``KeyboardInterrupt`` one rank alone raised, whose SIGINT (-2) a torchrun agent reports while no agent got a signal
itself, is that rank's own failure, no Ctrl-C's teardown (queries/_incident.sql)."""

from __future__ import annotations

import pytest

from bundle_batch import findings_of, merge
from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from torch_runs_kit import CAPTURED, RUNS, plain


@pytest.mark.parametrize("line", [
    # torch 2.13.0 / 2.14.1 under LOGLEVEL=INFO (glog-style agent lines), as recorded
    "I1129 22:41:11.721000 3554 torch/distributed/elastic/timer/file_based_local_timer.py:320] Reaping worker_pid=[3570]. "
    "Expired timers: ['train_step']",
    # Python logging's default format (an agent configured by the user's logging.basicConfig)
    "INFO:torch.distributed.elastic.timer.file_based_local_timer:Reaping worker_pid=[3570]. Expired timers: ['train_step', 'fwd']",
    # the multiprocessing-queue LocalTimerServer (timer/api.py): its worker id is the worker's pid
    "INFO 2026-11-29 22:41:11,721 api.py:197] Reaping worker_id=[3570]. Expired timers: ['data']",
], ids=["file-timer-glog", "file-timer-logging", "local-timer"])
def test_the_timer_watchdog_s_reaping_is_read(line):
    ev = classify(line)
    assert [(e["kind"], e["pid"]) for e in ev] == [("timer_reaped", 3570)], ev


@pytest.mark.parametrize("line", [
    "I1129 22:41:11.721000 3554 file_based_local_timer.py:343] Successfully reaped worker=[3570] with signal=9",
    "I1129 22:41:11.721000 3554 file_based_local_timer.py:355] Terminating the server process=[3554] because of expired timers",
    "I1129 22:41:06.561000 3551 local_elastic_agent.py:263] FileTimerServer started",
], ids=["reaped", "terminating", "started"])
def test_the_timer_s_other_lines_are_no_reaping(line):
    assert not [e for e in classify(line) if e["kind"] == "timer_reaped"]


def _texts(run: str) -> list[str]:
    folder = RUNS / "2.13.0" / run
    return [plain((folder / f"node{i}.log").read_text(encoding="utf-8")) for i in (0, 1)]


def _without(texts: list[str], word: str) -> list[str]:
    return ["".join(line for line in t.splitlines(keepends=True) if word not in line) for t in texts]


def _variants() -> dict[str, list[str]]:
    """Real recordings (2.13.0), each changed in the one way the rule must see."""
    timer, sigint = _texts("t14-trun-file-timer-reaped-rank2"), _texts("t14-trun-sigint-rank1")
    assert "Reaping worker_pid=" in timer[1] and "[rank1]: KeyboardInterrupt" in sigint[0]
    agent_signalled = "torch.distributed.elastic.multiprocessing.api.SignalException: Process 3754 got signal: 2\n"
    return {
        # no reaping line (LOGLEVEL unset): node 1's agent vanished without a word, no rank is known to have hung
        "timer-unlogged": _without(timer, "Reaping worker_pid="),
        # the agent got the SIGINT itself (a Ctrl-C at its terminal) and passed it on: a teardown
        "sigint-agent": [sigint[0] + agent_signalled, sigint[1]],
        # two ranks interrupted: the job's Ctrl-C, no one rank's
        "sigint-two": [sigint[0].replace("[rank1]: KeyboardInterrupt", "[rank1]: KeyboardInterrupt\n[rank0]: KeyboardInterrupt"),
                       sigint[1]],
    }


def test_what_the_rules_need_to_see(tmp_path):
    """Without the reaping line nothing names node 1's silent rank; a SIGINT the agent got, or several ranks'
    KeyboardInterrupts, stay a teardown: no rank is named (the recordings as recorded name rank 2 and rank 1:
    tests/test_torch_runs.py)."""
    variants = _variants()
    bundles = []
    for i, texts in enumerate(variants.values()):
        sources = [LogSource(f"node{n}.log", t) for n, t in enumerate(texts)]
        bundles.append(import_logs(sources, tmp_path / str(i), job="train", namespace="team-a", now=CAPTURED, derive=False)[0])
    findings = analyze(merge(bundles, tmp_path / "merged"))["findings"]
    for i, name in enumerate(variants):
        named = [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(findings_of(findings, i))]
        assert named == [], (name, named)
