"""Session 71 (devC): a victim's exit 1 named beside a crash-looping culprit's SIGABRT.

t73's every-attempt run (``--max-restarts 1 --tee 3 --local-ranks-filter 0``): rank 3 (node 1's local rank 1, its lines
filtered out) ``os.abort()``s at the same step on both attempts; the ranks shown (0, 2) print gloo's ``Connection closed
by peer`` and exit 1, rank 1 (node 0's hidden local rank 1) exits 1 too. Three readings made a victim's exit 1 the
failure: (1) under ``--tee`` the workers' tracebacks fall between the agent's ``Sending process N closing signal SIGTERM``
and its ``failed (exitcode: …)`` line, so a table entry did not take its teardown's start (parsers/log_failure_table.py
``_teardown_start`` now reads through the workers' lines); (2) ``abort_after_other`` (queries/_incident_own.sql) dropped
the abort for a failure of the attempt torchrun had restarted from, and for the hidden rank's bare exit 1 at the abort's
own whole-second clock, one more exit like the shown victims'; (3) the crash loop (queries/crashloop.sql ``firsts``) took
the earlier of two agents' reports 4 ms apart, a bare exit, over the signal death."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from incident_kit import naming_findings
from parser_kit import body_events, table_entry
from torch_runs_kit import findings_both_ways, findings_of_texts, load_runs, plain

UTC = dt.timezone.utc
NOW = dt.datetime(2026, 12, 7, 18, 0, tzinfo=UTC)

# --- the parser: SYNTHETIC lines in torch 2.13's agent format, a worker's tee'd traceback inside the teardown ----------
SIGTERM = ("W1207 17:29:58.977000 29547 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 29575 "
           "closing signal SIGTERM")
WORKER = ["[default0]:Traceback (most recent call last):",
          '[default0]:  File "/workspace/train.py", line 101, in _checkpoint',
          "[default0]:    dist.barrier()",
          "[default0]:RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection "
          "closed by peer [127.0.0.1]:17099. This is typically caused by a remote worker crashing."]
AGENT = ("E1207 17:29:59.094000 29547 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -6) "
         "local_rank: 1 (pid: 29576) of binary: /opt/venv/bin/python3")
OTHER_AGENT = AGENT.replace("17:29:59.094", "17:29:58.990").replace("29576", "29570")
RULE = "=" * 60
SECOND = dt.datetime(2026, 12, 7, 17, 29, 58, tzinfo=UTC)
TEARDOWN = dt.datetime(2026, 12, 7, 17, 29, 58, 977000, tzinfo=UTC)


def _table() -> list[str]:
    return ["/workspace/train.py FAILED", RULE, "Failures:", *table_entry(1, 2, 0, "node-1", "2026-12-07_17:29:58", -15, 29575),
            "-" * 60, "Root Cause (first observed failure):",
            *table_entry(0, 3, 1, "node-1", "2026-12-07_17:29:58", -6, 29576), RULE]


def _times(lines: list[str]) -> dict[int, dt.datetime]:
    return {e["rank"]: e["ts"] for e in body_events(lines, NOW, prefiltered=False)
            if e["kind"] == "torchrun_failure" and e["subkind"] != "agent"}


def test_a_worker_s_tee_d_traceback_inside_the_teardown_does_not_hide_its_start():
    assert _times([SIGTERM, *WORKER, AGENT, *_table()])[3] == TEARDOWN


def test_another_agent_report_between_ends_the_teardown():
    # an agent's report of another process between the SIGTERM line and this one's: not this teardown's start
    assert _times([SIGTERM, *WORKER, OTHER_AGENT, AGENT, *_table()])[3] == SECOND


def test_an_earlier_teardown_s_sigterm_above_the_workers_lines_is_not_this_one_s():
    # a restart's SIGTERM line (no failure report of its own), the new attempt's worker lines, then this teardown's
    earlier = SIGTERM.replace("17:29:58.977", "17:29:58.100").replace("29575", "29560")
    assert _times([earlier, *WORKER, SIGTERM, AGENT, *_table()])[3] == TEARDOWN


# --- the recorded runs, both ways ------------------------------------------------------------------------------------
EVERY = "t73-trun-2x2-restarts1-abort-rank3-step6-ckpt-rank0-w0-print-exc-deepspeed-filter0"
#: read right before and after: the sets' real aborts, restarted or beside another node's exit 1 within a second (t65)
KEPT = {
    "2.13.0/t65-trun-2x2-restarts1-abort-rank3-step3-eval-w0-print-exc-lightning-redirects": [3],
    "2.14.1/t65-trun-2x2-restarts1-abort-rank3-step3-eval-w0-print-exc-lightning-redirects": [3],
    "2.13.0/t56-trun-3x2-restarts1-abort-rank0-step8-redirects": [0],
    "2.14.1/t69-trun-2x2-restarts1-abort-rank1-init-w2-exception-logging-paren-redirects": [1],
    "2.13.0/t73-trun-2x2-abort-rank0-step4-eval-w0-record-rank0only-tee": [0],
    "2.14.1/t60-standalone-1x6-restarts1-abort-rank1-step3-print-exc-norank-filter2": [1],
}
_RUNS = [r for r in load_runs() if r.name == EVERY or r.id in KEPT]


@pytest.fixture(scope="module")
def readings(tmp_path_factory):
    return findings_both_ways(_RUNS, tmp_path_factory.mktemp("abort-tie"))


@pytest.mark.parametrize("way", ["import", "podlog"])
@pytest.mark.parametrize("version", ["2.13.0", "2.14.1"])
def test_the_every_attempt_abort_is_the_crash_loop_s_and_no_victim_is_named(readings, way, version):
    findings = readings[way][f"{version}/{EVERY}"]
    named = [(f["rule"], f["severity"], f["ranks"], f["cause"]) for f in naming_findings(findings)]
    assert ("crashloop", "critical", [3], "abort") in named, named
    assert any(rule == "rank-failure" and ranks == [3] and cause == "abort" for rule, _, ranks, cause in named), named
    assert all(ranks == [3] for _, _, ranks, _ in named), named  # rank 1's exit 1 (a victim's) named nowhere


@pytest.mark.parametrize("way", ["import", "podlog"])
@pytest.mark.parametrize("rid", sorted(KEPT))
def test_the_sets_real_aborts_still_read_right(readings, way, rid):
    named = [(f["ranks"], f["cause"]) for f in naming_findings(readings[way][rid])]
    assert (KEPT[rid], "abort") in named and all(r == KEPT[rid] for r, _ in named), named


# --- SYNTHETIC contrast: the recorded run with node 1's agent clock moved 0.5 s later ---------------------------------
_GLOG = re.compile(r"^([IWE]\d{4} \d\d:\d\d:)(\d\d\.\d{6})", re.M)


def _later(text: str, seconds: float) -> str:
    return _GLOG.sub(lambda m: f"{m.group(1)}{float(m.group(2)) + seconds:09.6f}", text)


def test_a_bare_exit_reported_more_than_a_poll_before_the_abort_keeps_its_place(tmp_path):
    """SYNTHETIC (marked): t73 2.13.0's every-attempt run, node 1's glog clock 0.5 s later (no second rolls over):
    attempt 0's abort now comes 0.5 s after rank 1's exit 1, more than one agent poll; the crash loop no longer reads the
    abort as every attempt's (the tie is one poll wide, not a second)."""
    [run] = [r for r in _RUNS if r.id == f"2.13.0/{EVERY}"]
    node0, node1 = (plain(t) for t in run.stamped())
    findings = findings_of_texts(tmp_path, [node0, _later(node1, 0.5)])
    loop = [f for f in findings if f["rule"] == "crashloop"]
    assert loop and not (loop[0]["ranks"] == [3] and loop[0]["severity"] == "critical"), [(f["ranks"], f["severity"]) for f in loop]
