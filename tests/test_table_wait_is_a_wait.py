"""A rank whose only own error is a wait is a waiter, wherever that error is quoted (docs/rules.md, "Session 72: a
waiter's quoted timeout in a failure table is a wait").

torch's ``@record`` failure table quotes each failed worker's error file in its ``traceback :`` field; since session 71
that exception is the rank's own (parsers/log_failure_table.py). A waiting rank's field is its wait: gloo's ``Timed out
waiting 3000ms for recv operation to complete``. Its exit status (``exitcode : 1``, even under "Root Cause (first
observed failure)") is that wait's, as the failure lines already read it (queries/_failure_line.sql ``torn_down``: the
rank's only exceptions are teardowns), so nccl-hang's own first-failure tier does not name it 'rank-failed'. A rank
known only by a bare exit status that a shown rank's timed-out wait explains (``wait_exit_alike``,
queries/_incident_own.sql: ``k10s_wait_exit_alike``) is one more wait's exit: nccl-hang names it neither 'rank-failed'
nor 'never-joined' (it reported its end; it may have waited as the others did).

Contrasts: a field whose exception is the rank's own failure (a ``KeyError``, the DataLoader worker's SIGBUS) names its
rank; a bare exit the waits' own clocks put before any wait ran out is a first failure, named.

The recorded run is real (tests/data/torch-runs, t72's loader SIGBUS of rank 4, its own lines filtered out); every
variant is SYNTHETIC (marked): one table entry of the recorded node log changed.
"""

from __future__ import annotations

import pytest

from test_table_time_of_a_wait import _NO_ERROR_FILE, _bare, _entry, _findings, _named, _run, _wait_earlier
from torch_runs_kit import plain


def _field_error(text: str, rank: int, error: str) -> str:
    """SYNTHETIC: ``rank``'s table entry's traceback field ending in ``error`` instead of its own exception line."""
    start, end, lines = _entry(text, rank)
    last = max(i for i in range(start, end) if lines[i].startswith("  ") and not lines[i].startswith("    "))
    assert "traceback" not in lines[last] and ": " in lines[last], lines[last]
    lines[last] = "  " + error
    return "\n".join(lines)


def _bare_stamped(text: str) -> str:
    """SYNTHETIC: ``_bare`` of a node log as the API stamps it (each line's stamp kept)."""
    lines = text.split("\n")
    start, end, shown = _entry("\n".join(plain(line) for line in lines), 4)
    tb = next(i for i in range(start, end) if shown[i].startswith("  traceback : "))
    lines[tb:end] = [lines[tb][:len(lines[tb]) - len(shown[tb])] + _NO_ERROR_FILE]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def nodes() -> tuple[str, str]:
    node0, node1 = (plain(t) for t in _run("2.13.0").stamped())
    return node0, node1


def test_a_root_cause_whose_field_is_a_recv_timeout_is_no_rank_failed(tmp_path, nodes):
    # the recorded run imported plain: node 0's "Root Cause (first observed failure)" is rank 0's exit 1, its field gloo's
    # recv timeout: a waiter; rank 4 (its field the loader's SIGBUS) is the one named, by every finding
    findings = _findings(tmp_path, list(nodes))
    assert ("nccl-hang", "rank-failed", [4]) in _named(findings)
    assert all(ranks == [4] for _, _, ranks in _named(findings)), _named(findings)


def test_a_bare_exit_after_the_wait_is_neither_rank_failed_nor_never_joined(tmp_path, nodes):
    # SYNTHETIC: rank 4's entry without its error file, the waiting rank's a second before it: 5 ranks' own errors are
    # waits, rank 4's exit the wait's alike: no rank named (it was 'never-joined' rank 4)
    findings = _findings(tmp_path, [_wait_earlier(nodes[0]), _bare(nodes[1])])
    assert _named(findings) == []
    hang = [f for f in findings if f["rule"] == "nccl-hang"]
    assert hang and all(f["severity"] == "info" and not f["ranks"] for f in hang), hang


def test_contrast_a_root_cause_whose_field_is_a_key_error_is_named(tmp_path, nodes):
    # SYNTHETIC: rank 0's field its own KeyError (no wait), rank 4 bare: rank 0 failed, named
    node0 = _field_error(nodes[0], 0, "KeyError: 'val_loss'")
    named = _named(_findings(tmp_path, [node0, _bare(nodes[1])]))
    assert named and all(ranks == [0] for _, _, ranks in named), named


def test_contrast_a_bare_rank_s_key_error_after_the_wait_is_named(tmp_path, nodes):
    # SYNTHETIC: rank 4's field its own KeyError (no error file taken away), the wait a second earlier: rank 4 named
    node1 = _field_error(nodes[1], 4, "KeyError: 'val_loss'")
    named = _named(_findings(tmp_path, [_wait_earlier(nodes[0]), node1]))
    assert ("rank-failure", "python-exception", [4]) in named, named
    assert all(ranks == [4] for _, _, ranks in named), named


def test_contrast_a_bare_exit_before_the_stamped_waits_is_named(tmp_path):
    # SYNTHETIC: the API's stamps on every line, rank 4's entry without its error file: its exit 1 (16:00:49) came before
    # any wait ran out (16:00:52, 16:00:53): it failed first, named (its cause unknown: an exit status)
    node0, node1 = _run("2.13.0").stamped()
    named = _named(_findings(tmp_path, [node0, _bare_stamped(node1)]))
    assert ("nccl-hang", "rank-failed", [4]) in named, named
    assert all(ranks == [4] for _, _, ranks in named), named
