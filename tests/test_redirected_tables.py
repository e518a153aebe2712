"""Session 70 (devB): `torchrun --redirects 3 --log-dir D` consoles hold only torchrun's own lines and the agents'
``ChildFailedError`` tables; every program line is in D's files. Each table's ``time`` is a whole second (torch's
``ProcessFailure.timestamp = int(time.time())``), taken by the poll that found the failure; the agent then SIGTERMs
the rest (``Sending process N closing signal SIGTERM``) and only after that logs ``failed (exitcode: …)``, which may
fall in the next second. Before, such an entry kept its whole second (up to a second early) against another node's
millisecond time, so ranks whose agents saw them fail 0.5-0.9 s apart read more than a second apart and the first
table's rank was named: a control (t69's every-rank config error, 2.13.0) and three victims (t58's barrier 2.14.1,
t70's barrier and size mismatch 2.13.0). Now an entry of the poll's second takes the teardown's first SIGTERM line's
time (parsers/log_failure_table.py ``_teardown_start``), else the agent's line's, as before: ranks failing the same way
within a second by their agents' clocks are not ordered (no rank named, the ranks' output said to be in the
``--log-dir`` folder); ranks a second or more apart, and a signal row, still name their rank."""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import REAL_INCIDENTS_DIR, load_corpus, named_in_paste, naming_findings
from parser_kit import body_events, table_entry
from torch_runs_kit import findings_both_ways, load_runs

UTC = dt.timezone.utc

# --- the parser: SYNTHETIC lines in torch 2.13's agent format (no recorded run's text) -------------------------------
NOW = dt.datetime(2026, 12, 6, 21, 0, tzinfo=UTC)
SIGTERM = ("W1206 20:27:58.977000 31742 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 31840 "
           "closing signal SIGTERM")
AGENT = ("E1206 20:27:59.094000 31742 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
         "local_rank: 1 (pid: 31842) of binary: /opt/venv/bin/python3")
RULE = "=" * 60


def _entry(index: int, rank: int, when: str, code: int, pid: int) -> list[str]:
    return table_entry(index, rank, rank - 2, "node-1", when, code, pid)


def _table(root_time: str = "2026-12-06_20:27:58") -> list[str]:
    return ["/workspace/train.py FAILED", RULE, "Failures:", *_entry(1, 2, "2026-12-06_20:27:58", -15, 31840), "-" * 60,
            "Root Cause (first observed failure):", *_entry(0, 3, root_time, 1, 31842), RULE]


def _times(lines: list[str]) -> dict[int, dt.datetime]:
    return {e["rank"]: e["ts"] for e in body_events(lines, NOW) if e["kind"] == "torchrun_failure" and e["subkind"] != "agent"}


SECOND = dt.datetime(2026, 12, 6, 20, 27, 58, tzinfo=UTC)
TEARDOWN = dt.datetime(2026, 12, 6, 20, 27, 58, 977000, tzinfo=UTC)


def test_an_entry_whose_agent_line_fell_in_the_next_second_takes_the_teardown_s_start():
    assert _times([SIGTERM, AGENT, *_table()]) == {2: SECOND, 3: TEARDOWN}


def test_the_teardown_s_start_is_preferred_to_the_agent_s_later_line_in_the_same_second():
    agent = AGENT.replace("20:27:59.094", "20:27:58.990")
    assert _times([SIGTERM, agent, *_table()]) == {2: SECOND, 3: TEARDOWN}


@pytest.mark.parametrize("lines", [
    pytest.param([AGENT], id="no-sigterm-line"),
    pytest.param([SIGTERM.replace("20:27:58.977", "20:27:57.977"), AGENT], id="sigterm-of-another-second"),
])
def test_without_a_teardown_line_in_the_entry_s_second_it_keeps_its_whole_second(lines):
    assert _times([*lines, *_table()]) == {2: SECOND, 3: SECOND}


# --- the recorded runs, both ways (tests/torch_runs_kit.py) -------------------------------------------------------------
#: ranks exiting alike within a second by their agents' clocks: no rank named (read before: the first table's rank)
ALIKE = {
    "2.13.0/t69-trun-2x2-config-every-rank-step6-train-w2-error-logging-norank-redirects": "control; was rank 1 (exit-2)",
    "2.14.1/t58-trun-2x2-monitored-barrier-rank1-step1-lightning-redirects": "truth rank 1; was rank 3 (0.90 s)",
    "2.13.0/t70-trun-2x3-monitored-barrier-rank3-step4-eval-w0-exception-lightning-redirects": "truth rank 3; was rank 4 (0.93 s)",
    "2.13.0/t70-standalone-1x6-size-mismatch-rank1-step6-ckpt-rank0-w2-error-rank0only-redirects": "truth rank 1; was rank 3",
    "2.13.0/t48-trun-2x2-torch-save-nodir-rank0-redirects": "truth rank 0; 0.51 s apart, the clock error had named it",
}
#: ranks a second or more apart, or a signal row: still named (rank, cause)
ORDERED = {
    "2.13.0/t41-trun-2x2-pickle-gather-rank3-redirects": ([3], "python-exception"),  # 1.43 s
    "2.13.0/t53-trun-2x3-nan-fpe-rank4-redirects": ([4], "python-exception"),  # 1.44 s
    "2.13.0/torchrun-exception-redirects-logdir": ([3], "python-exception"),  # 1.48 s
    "2.14.1/t47-trun-2x2-metrics-thread-exit-rank3-redirects": ([3], "python-exception"),
    "2.13.0/t67-trun-2x3-raise-rank4-step1-train-w0-error-lightning-redirects": ([4], "exit-2"),  # 1.77 s
    "2.14.1/t70-trun-2x3-sigkill-rank5-step8-ckpt-shards-w0-print-exc-norank-redirects": ([5], "host-oom-kill"),
    "2.13.0/t69-static-2x3-abort-rank1-init-w0-error-deepspeed-redirects": ([1], "abort"),
    "2.14.1/t69-trun-2x3-segfault-rank3-shutdown-w0-error-logging-RANK-redirects": ([3], "segfault"),
}
#: one table's one non-signal row, no rank's own line in the job: still named (the shape right readings have too), now
#: with its status and where the output went (``exit_tables_status`` of the one culprit)
LONE = {
    "2.13.0/t65-standalone-1x6-size-mismatch-rank4-step3-train-w2-uncaught-logging-norank-redirects": (2, 1),  # truth 4
}  # (t42 node1-killed 2.13.0, a control whose node 1 log is empty, names no rank since session 71: test_node_silent.py)
#: one rank named by its table beside other lines of the incident or the job (the other node's agent's store errors
#: after its store host left; --tee 1's tagged output): the wording as before (the condition stays narrow)
LONE_BESIDE_LINES = ["2.14.1/t44-trun-2x2-bcast-unpicklable-rank0-redirects", "2.13.0/t23-trun-2x2-logdir-redirects3-tee1-keyerror-rank1",
                     "2.13.0/t61-trun-2x3-missing-shard-rank0-shutdown-w2-error-deepspeed-redirects"]
ELSEWHERE = "No rank's own output is in these logs"
_RUNS = [r for r in load_runs() if r.id in {**ALIKE, **ORDERED, **LONE} or r.id in LONE_BESIDE_LINES]


@pytest.fixture(scope="module")
def readings(tmp_path_factory) -> dict[str, dict[str, list]]:
    return findings_both_ways(_RUNS, tmp_path_factory.mktemp("redirected"))


@pytest.mark.parametrize("way", ["import", "podlog"])
@pytest.mark.parametrize("rid", sorted(ALIKE))
def test_ranks_alike_within_a_second_of_their_agents_name_no_rank(readings, way, rid):
    findings = readings[way][rid]
    assert not naming_findings(findings), [(f["rule"], f["severity"], f["ranks"]) for f in findings]
    said = [f for f in findings if f["rule"] == "rank-failure"]
    assert said and "no single culprit" in said[0]["summary"] and "--log-dir" in said[0]["summary"], said


@pytest.mark.parametrize("way", ["import", "podlog"])
@pytest.mark.parametrize("rid", sorted(ORDERED))
def test_ranks_a_second_apart_or_a_signal_row_still_name_the_rank(readings, way, rid):
    ranks, cause = ORDERED[rid]
    named = [(f["ranks"], f["cause"]) for f in naming_findings(readings[way][rid])]
    assert (ranks, cause) in named and all(set(r) & set(ranks) for r, _ in named), named


@pytest.mark.parametrize("way", ["import", "podlog"])
@pytest.mark.parametrize("rid", sorted(LONE))
def test_a_lone_table_row_says_only_its_status_and_where_the_output_went(readings, way, rid):
    rank, status = LONE[rid]
    [f] = [f for f in readings[way][rid] if f["rule"] == "rank-failure"]
    assert (f["ranks"], f["severity"]) == ([rank], "warning"), f["summary"]  # the decision unchanged
    assert f"exited with status {status}." in f["summary"] and ELSEWHERE in f["summary"] and "--log-dir" in f["summary"]
    assert "raised a Python exception" not in f["summary"]


@pytest.mark.parametrize("way", ["import", "podlog"])
@pytest.mark.parametrize("rid", LONE_BESIDE_LINES)
def test_a_lone_table_row_beside_other_lines_keeps_its_wording(readings, way, rid):
    [f] = [f for f in readings[way][rid] if f["rule"] == "rank-failure"]
    assert f["ranks"] and ELSEWHERE not in f["summary"] and "Only its exit status is in the logs" in f["summary"]


# --- real pastes (tests/data/real-incidents) of the same shape: tables only ---------------------------------------------
_CORPUS = {c.incident: c for c in load_corpus(REAL_INCIDENTS_DIR)}


@pytest.mark.parametrize("slug,want", [
    # two agents' tables, rank 4's 51 s before ranks 0 and 3 (exit 1 all): ordered, rank 4
    ("accelerate-1519-slurm-two-agents-rank4-first", [4]),
    # one table, ranks 0 and 1 exit 1 in the same second: a control
    ("DiffBIR-179-train-stage2-two-ranks-exit1-same-second-root-cause-rank0-control", []),
])
def test_real_tables_only_pastes(tmp_path, slug, want):
    case = _CORPUS[slug]
    text = (REAL_INCIDENTS_DIR / slug / "log.txt").read_text(encoding="utf-8")
    named = named_in_paste(tmp_path, text, case.nproc_per_node, case.world_size, dt.datetime(2026, 12, 7, tzinfo=UTC))
    assert bool(named) == bool(want) and all(r == want for _, _, r in named), named
