"""Restarts and teardown timing in torchrun's reports (docs/rules.md, "Session 68: restarts and teardown timing in
torchrun's reports"): readings that turned on how close in time two launcher reports fell.

* crashloop.sql's walk: two launcher reports of one rank in one log under two KNOWN pids are a restarted worker failing
  again, however close (the 10 s gate stays where a pid is unknown; one process's agent line and failure-table row,
  one pid, stay one failure whatever their clocks say).
* _incident_own.sql's attempt_victim_exit: a bare exit's own agent line above its failure table's row is no "other
  report of its agent" between a peer's death and it (the row stays that death's victim, so a SIGABRT reported 0.11 s
  before it on another node is not read as a teardown's abort).
* _incident_own.sql's kill_after_other: a bare exit that is itself another death's victim does not make a later
  SIGKILL the teardown's escalation (its death is the one to compare: the same rank's earlier SIGKILL).

Every node log here is SYNTHETIC (torchrun's formats as the recorded runs under tests/data/torch-runs print them;
times, pids and ranks made up), read through ``k10s import-logs`` and ``analyze`` as a user's node logs. Positives:
the three shapes of t65's and t66's 2.13.0 misses; contrasts: one process's two reports (one failure, no crash loop),
a victim's exit 1 after a real culprit's exception (still a victim), a SIGKILL seconds after another rank's own
exception (still the teardown's), every rank's exit alike on both attempts (no one named).
"""

from __future__ import annotations

import pytest

from k10s_forensics.analyze.runner import analyze
from torch_runs_kit import assert_reading, findings_of_texts, import_run, load_runs
from torchrun_node_kit import AGENT

DAY = "1207"
_HINT = "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def _glog(level: str, at: str, agent_pid: int, text: str, line: int) -> str:
    return f"{level}{DAY} {at}000 {agent_pid} {AGENT}:{line}] {text}"


def sigterm(at: str, pid: int, agent_pid: int = 9000) -> str:
    """The agent's SIGTERM of one worker (``at``: ``HH:MM:SS.fff``)."""
    return _glog("W", at, agent_pid, f"Sending process {pid} closing signal SIGTERM", 1028)


def failed(at: str, code: int, local: int, pid: int, agent_pid: int = 9000) -> str:
    """The agent's report of the first failed worker of an attempt."""
    return _glog("E", at, agent_pid, f"failed (exitcode: {code}) local_rank: {local} (pid: {pid}) of binary: /opt/venv/bin/python3",
                 1002)


def table(minute: str, root: tuple[int, int, int, int], others: list[tuple[int, int, int, int]]) -> list[str]:
    """torchrun's ChildFailedError table (``minute``: ``HH:MM:SS``); each entry (rank, local rank, exit code, pid)."""
    def entry(k: int, e: tuple[int, int, int, int]) -> list[str]:
        rank, local, code, pid = e
        sig = {-15: "  (SIGTERM)", -9: "  (SIGKILL)", -6: "  (SIGABRT)"}.get(code, "")
        return [f"[{k}]:", f"  time      : 2026-12-07_{minute}", "  host      : localhost",
                f"  rank      : {rank} (local_rank: {local})", f"  exitcode  : {code} (pid: {pid}){sig}", "  error_file: <N/A>", _HINT]
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "/workspace/train.py FAILED",
           "-" * 60, "Failures:"]
    for k, e in enumerate(others, 1):
        out += entry(k, e) + ["-" * 60]
    if not others:
        out += ["  <NO_OTHER_FAILURES>", "-" * 60]
    return out + ["Root Cause (first observed failure):"] + entry(0, root) + ["=" * 60]


def steps(locals_: list[int], n: int = 3) -> list[str]:
    return [f"[default{r}]:step {s}/10 loss 0.1{r}{s}" for s in range(n) for r in locals_]


def raised(local: int, error: str) -> list[str]:
    """A worker's uncaught exception under ``--tee 3``."""
    return [f"[default{local}]:Traceback (most recent call last):", f'[default{local}]:  File "/workspace/train.py", line 88, in <module>',
            f"[default{local}]:    main()", f'[default{local}]:  File "/workspace/train.py", line 61, in main',
            f"[default{local}]:    raise ValueError({error!r})", f"[default{local}]:ValueError: {error}"]


def text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


# -- the crash loop: a restarted worker failing again within 10 s (t65's 2.13.0 shape: 2 x 2, --max-restarts 1) ----------
def _restarted_abort(again: str) -> list[str]:
    """Rank 3 (node 1's local rank 1) SIGABRTs on both attempts (at 09:43:50.896, then at ``again``.546, < 10 s later)."""
    node0 = [*steps([0, 1]), failed("09:43:50.960", 1, 0, 13198, 9001), *steps([0, 1]),
             failed(f"{again}.588", 1, 0, 13409, 9001), *table(again, (0, 0, 1, 13409), [(1, 1, 1, 13410)])]
    node1 = [*steps([0, 1]), sigterm("09:43:50.769", 13200), failed("09:43:50.896", -6, 1, 13201), *steps([0, 1]),
             sigterm(f"{again}.538", 13411), failed(f"{again}.546", -6, 1, 13412),
             *table(again, (3, 1, -6, 13412), [(2, 0, 1, 13411)])]
    return [text(node0), text(node1)]


def _one_abort_reported_twice() -> list[str]:
    """Contrast: no restart; rank 3's SIGABRT reported by its agent's line and by its table (one pid), the table printed
    9 s later by its clock: one failure, no crash loop."""
    node0 = [*steps([0, 1]), failed("09:43:50.960", 1, 0, 13198, 9001),
             *table("09:43:50", (0, 0, 1, 13198), [(1, 1, -15, 13199)])]
    node1 = [*steps([0, 1]), sigterm("09:43:50.769", 13200), failed("09:43:50.896", -6, 1, 13201),
             *table("09:43:59", (3, 1, -6, 13201), [(2, 0, -15, 13200)])]
    return [text(node0), text(node1)]


def _every_rank_alike_twice() -> list[str]:
    """Control: both attempts, every rank's bare exit 1 in the same second (pids differ, 9 s apart): no one."""
    def node(n: int, base: int) -> list[str]:
        a, b = base, base + 200
        return [*steps([0, 1]), failed("09:43:50.900", 1, 0, a, 9000 + n), *steps([0, 1]), failed("09:43:59.900", 1, 0, b, 9000 + n),
                *table("09:43:59", (2 * n, 0, 1, b), [(2 * n + 1, 1, 1, b + 1)])]
    return [text(node(0, 13100)), text(node(1, 13150))]


def _every_rank_alike_once() -> list[str]:
    """Control: no restart, every rank's bare exit 1; each node's table printed by a clock a second behind its agent's
    line (a pod's two processes, two pids, one pod: not one rank failing twice)."""
    def node(n: int, pid: int) -> list[str]:
        return [*steps([0, 1]), failed("09:41:50.161", 1, 0, pid, 9000 + n), *table("09:41:49", (2 * n, 0, 1, pid), [(2 * n + 1, 1, 1, pid + 6)])]
    return [text(node(0, 12837)), text(node(1, 12838))]


# -- a SIGABRT and another node's bare exit 1 0.11 s later (t66's 2.13.0 shape: 2 x 3, no restart) -----------------------
def _abort_then_bare_exit() -> list[str]:
    """Rank 2 (node 0's local rank 2) SIGABRTs; node 1's agent began its teardown before node 0's agent reported it and
    reports rank 5's bare exit 1 0.11 s after."""
    node0 = [*steps([0]), sigterm("09:42:13.531", 11064), sigterm("09:42:13.532", 11067), failed("09:42:13.704", -6, 2, 11068),
             *table("09:42:13", (2, 2, -6, 11068), [(0, 0, -15, 11064), (1, 1, -15, 11067)])]
    node1 = [*steps([0]), sigterm("09:42:13.663", 11065, 9001), sigterm("09:42:13.672", 11066, 9001),
             failed("09:42:13.816", 1, 2, 11071, 9001), *table("09:42:13", (5, 2, 1, 11071), [(3, 0, -15, 11065), (4, 1, -15, 11066)])]
    return [text(node0), text(node1)]


def _exception_then_bare_exit() -> list[str]:
    """Contrast: rank 2's own ValueError (exit 1), node 1's rank 5 a bare exit 1 0.11 s later: rank 5 is its victim."""
    node0 = [*steps([0, 1, 2]), *raised(2, "batch 17 has 7 features per sample; the model expects 8"),
             sigterm("09:42:13.531", 11064), sigterm("09:42:13.532", 11067), failed("09:42:13.704", 1, 2, 11068),
             *table("09:42:13", (2, 2, 1, 11068), [(0, 0, -15, 11064), (1, 1, -15, 11067)])]
    node1 = [*steps([0, 1, 2]), sigterm("09:42:13.663", 11065, 9001), sigterm("09:42:13.672", 11066, 9001),
             failed("09:42:13.816", 1, 2, 11071, 9001), *table("09:42:13", (5, 2, 1, 11071), [(3, 0, -15, 11065), (4, 1, -15, 11066)])]
    return [text(node0), text(node1)]


# -- a SIGKILL on both attempts, a victim's bare exit 2 one second after the first (t66's 2.13.0 shape: 3 x 2) -----------
def _sigkill_twice_with_victim() -> list[str]:
    """Rank 1 (node 0's local rank 1) SIGKILLed on both attempts, 15.5 s apart; in attempt 0 node 2's agent reported its
    rank 4's bare exit 2 0.96 s after the first SIGKILL; in attempt 1 nodes 1 and 2 only SIGTERMed theirs (their agents
    then lost the store: no report)."""
    node0 = [*steps([0, 1]), sigterm("09:43:39.981", 12820), failed("09:43:40.216", -9, 1, 12823), *steps([0, 1]),
             sigterm("09:43:55.503", 13251), failed("09:43:55.741", -9, 1, 13252),
             *table("09:43:55", (1, 1, -9, 13252), [(0, 0, -15, 13251)])]
    node1 = [*steps([0, 1]), sigterm("09:43:41.120", 12819, 9001), sigterm("09:43:41.121", 12822, 9001), *steps([0, 1]),
             sigterm("09:43:56.640", 13253, 9001), sigterm("09:43:56.648", 13259, 9001)]
    node2 = [*steps([0, 1]), sigterm("09:43:40.902", 12824, 9002), failed("09:43:41.174", 2, 0, 12821, 9002), *steps([0, 1]),
             sigterm("09:43:56.586", 13254, 9002), sigterm("09:43:56.586", 13262, 9002)]
    return [text(node0), text(node1), text(node2)]


def _kill_after_exception() -> list[str]:
    """Contrast: rank 2's own ValueError (exit 1); node 1's table has rank 5 SIGKILLed 7 s later (the teardown's
    escalation past its grace period): rank 2, not rank 5."""
    node0 = [*steps([0, 1, 2]), *raised(2, "batch 17 has 7 features per sample; the model expects 8"),
             sigterm("09:42:13.531", 11064), sigterm("09:42:13.532", 11067), failed("09:42:13.704", 1, 2, 11068),
             *table("09:42:13", (2, 2, 1, 11068), [(0, 0, -15, 11064), (1, 1, -15, 11067)])]
    node1 = [*steps([0, 1, 2]), sigterm("09:42:13.663", 11065, 9001), sigterm("09:42:13.672", 11066, 9001),
             failed("09:42:20.816", -9, 2, 11071, 9001),
             *table("09:42:20", (5, 2, -9, 11071), [(3, 0, -15, 11065), (4, 1, -15, 11066)])]
    return [text(node0), text(node1)]


#: name: (node logs, the ranks named (none: a control), the cause)
CASES = {
    "restarted-abort-9s": (_restarted_abort("09:44:00"), [3], "abort"),
    "restarted-abort-5s": (_restarted_abort("09:43:56"), [3], "abort"),
    "one-abort-reported-twice": (_one_abort_reported_twice(), [3], "abort"),
    "every-rank-alike-twice": (_every_rank_alike_twice(), [], None),
    "every-rank-alike-once": (_every_rank_alike_once(), [], None),
    "abort-then-bare-exit": (_abort_then_bare_exit(), [2], "abort"),
    "exception-then-bare-exit": (_exception_then_bare_exit(), [2], "python-exception"),
    "sigkill-twice-with-victim": (_sigkill_twice_with_victim(), [1], "host-oom-kill"),
    "kill-after-exception": (_kill_after_exception(), [2], "python-exception"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_reading(tmp_path, name):
    texts, want, cause = CASES[name]
    assert_reading(findings_of_texts(tmp_path, texts), want, cause)


def test_one_process_reported_twice_is_no_crash_loop(tmp_path):
    """The agent's line and the table's row of one process (one pid), their clocks 9 s apart: one failure."""
    loops = [f for f in findings_of_texts(tmp_path, _one_abort_reported_twice()) if f["rule"] == "crashloop"]
    assert all(f["severity"] != "critical" for f in loops), [(f["severity"], f["summary"]) for f in loops]


def test_restarted_worker_is_a_crash_loop(tmp_path):
    """Two pids of rank 3's SIGABRT in node 1's log, 9.65 s apart by the agent's clock, closer than crashloop.sql's
    10 s gate: the crash loop names rank 3."""
    loops = [f for f in findings_of_texts(tmp_path, _restarted_abort("09:44:00")) if f["rule"] == "crashloop"]
    assert any(f["severity"] == "critical" and f["ranks"] == [3] for f in loops), [(f["severity"], f["summary"]) for f in loops]


def test_a_pods_two_ranks_are_not_a_restart(tmp_path):
    """The recorded t53 every-rank control (2.13.0, tests/data/torch-runs): each node's two ranks exit 1 alike, their rows
    given their pod (log_alike), one pod's two pids; not a crash loop of the first rank outside the incident's window."""
    run = next(r for r in load_runs() if r.id == "2.13.0/t53-trun-2x2-lr-high-every-rank-tee")
    assert_reading(analyze(import_run(run, tmp_path))["findings"], [], None)
