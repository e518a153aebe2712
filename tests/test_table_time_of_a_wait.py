"""A shown rank's gloo wait timing out, its line without a clock, takes the time of its rank's failure-table entry whose
``traceback :`` field ends in the same exception (docs/rules.md, "Session 71: a wait's time from its failure table";
queries/_incident_own.sql ``wait_at``, read by ``wait_exit_alike``).

A rank known only by its launcher's report (its own lines filtered out) that exits within a minute after a shown rank of
another node timed out waiting (``Timed out waiting 3000ms for recv operation to complete``) is that wait's, no failure
of its own (``wait_exit_alike``, twenty-third and fifty-first sets). Where the wait's line had no clock (node logs as
plain ``kubectl logs`` gives them: the `[rankN]:` traceback carries none), the reading stood whatever the order, so the
rank that failed first was dropped as one more wait: the seventy-second set's loader SIGBUS of rank 4 read 'no single
culprit' imported and rank 4 as captured pod logs (the API's timestamps). With torch's ``@record`` the agent's table
quotes the waiting rank's error file, its time the error's (``time : 2026-12-07_16:00:52``); that clock now orders the
wait against the hidden rank's exit. No table entry of the same exception (no error file), no clock: as before.

The recorded runs are real (tests/data/torch-runs); the variants are SYNTHETIC (marked): one table time or one table
traceback of the recorded node log changed.
"""

from __future__ import annotations

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from torch_runs_kit import CAPTURED, load_runs, plain

_RUN = "t72-trun-2x3-loader-sigbus-rank4-step5-train-w2-record-logging-slash-filter2"  # truth rank 4, sigbus
_NO_ERROR_FILE = "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def _run(version: str):
    return next(r for r in load_runs() if r.id == f"{version}/{_RUN}")


def _entry(text: str, rank: int) -> tuple[int, int, list[str]]:
    """The lines of node 0's failure-table entry of ``rank`` (its `[i]:` line to the blank line after its exception)."""
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("  rank      : ") and line[14:].startswith(f"{rank} "))
    start = max(i for i in range(at) if lines[i].startswith("["))
    end = next(i for i in range(at, len(lines)) if not lines[i].strip())
    return start, end, lines


def _wait_earlier(text: str) -> str:
    """SYNTHETIC: rank 2's table entry (its gloo wait's error file) timed 16:00:48, before rank 4's exit (16:00:49)."""
    start, end, lines = _entry(text, 2)
    lines[start:end] = [line.replace("time      : 2026-12-07_16:00:52", "time      : 2026-12-07_16:00:48")
                        for line in lines[start:end]]
    assert "\n".join(lines) != text
    return "\n".join(lines)


def _no_error_file(text: str, rank: int = 2) -> str:
    """SYNTHETIC: ``rank``'s table entry without its error file's traceback (no @record: torch's pointer line instead)."""
    start, end, lines = _entry(text, rank)
    tb = next(i for i in range(start, end) if lines[i].startswith("  traceback : "))
    lines[tb:end] = [_NO_ERROR_FILE]
    return "\n".join(lines)


def _findings(tmp, texts: list[str]) -> list[dict]:
    bundle, _ = import_logs([LogSource(f"node{i}.log", t) for i, t in enumerate(texts)], tmp / "b", job="train",
                            namespace="team-a", now=CAPTURED)
    return analyze(bundle)["findings"]


def _named(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"]) for f in findings if f["severity"] in ("critical", "warning") and f["ranks"]]


@pytest.mark.parametrize("version", ["2.13.0", "2.14.1"])
def test_the_recorded_loader_run_imported_without_stamps_names_rank_4(tmp_path, version):
    # was: 'no single culprit' (nccl-hang, info, no rank): rank 4's table row dropped as one more wait's exit
    findings = _findings(tmp_path, [plain(t) for t in _run(version).stamped()])
    assert ("rank-failure", "sigbus", [4]) in _named(findings)
    assert all(ranks == [4] for _, _, ranks in _named(findings)), _named(findings)


@pytest.mark.parametrize("stamped", [0, 1])
def test_one_node_stamped_the_other_not_names_rank_4(tmp_path, stamped):
    texts = [t if i == stamped else plain(t) for i, t in enumerate(_run("2.13.0").stamped())]
    findings = _findings(tmp_path, texts)
    assert ("rank-failure", "sigbus", [4]) in _named(findings)
    assert all(4 in ranks for _, _, ranks in _named(findings)), _named(findings)


def _bare(text: str) -> str:
    """SYNTHETIC: rank 4's own table entry (node 1's) without its error file (its exit status the only word of it): since session 71
    a table field's exception is the rank's own (docs/rules.md "Session 71: a failure table's traceback field is the
    rank's own error"), so rank 4's quoted loader SIGBUS would name it whatever the wait's time."""
    return _no_error_file(text, 4)


def test_contrast_the_table_times_the_wait_before_the_exit_names_no_rank(tmp_path):
    # read right since session 72 (docs/rules.md "Session 72: a waiter's quoted timeout in a failure table is a wait")
    # SYNTHETIC: the waiting rank's error file written a second before rank 4's bare exit: its exit is the wait's
    node0, node1 = (plain(t) for t in _run("2.13.0").stamped())
    assert _named(_findings(tmp_path, [_wait_earlier(node0), _bare(node1)])) == []


def test_contrast_no_error_file_gives_the_wait_no_clock_names_no_rank(tmp_path):
    # read right since session 72 (docs/rules.md "Session 72: a waiter's quoted timeout in a failure table is a wait")
    # SYNTHETIC: no table entry quotes the waiting rank's exception: nothing times its unstamped wait beside rank 4's
    # bare exit
    node0, node1 = (plain(t) for t in _run("2.13.0").stamped())
    assert _named(_findings(tmp_path, [_no_error_file(node0), _bare(node1)])) == []


def test_rank_4s_own_field_names_it_even_after_an_earlier_wait(tmp_path):
    # SYNTHETIC: the waiting rank's error file a second before rank 4's, rank 4's own field its DataLoader worker's SIGBUS:
    # the rank whose own error is no wait is named (its stall is what the peer waited for)
    node0, node1 = (plain(t) for t in _run("2.13.0").stamped())
    assert ("rank-failure", "sigbus", [4]) in _named(_findings(tmp_path, [_wait_earlier(node0), node1]))
