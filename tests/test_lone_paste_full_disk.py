"""A full disk or quota in a paste of one rank's lines only (docs/rules.md, "Session 59: a full disk in a lone paste"):
``OSError: [Errno 28] No space left on device``, ``[Errno 122] Disk quota exceeded`` name no culprit; the rank is a
suspect, said at info (batch 369's ms-swift#3551 named rank 4 at warning: the node's dataset-cache disk filled up).
Contrasts: the rank's own ``ValueError`` alone stays a warning naming it; the full disk on one rank while the others'
lines show them running on names that rank (one node's disk); a plain ``OSError`` of another errno stays the rank's.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)


def _tail(rank: int, error: str) -> list[str]:
    return [f"[rank{rank}]: Traceback (most recent call last):",
            f'[rank{rank}]:   File "/usr/lib/python3/site-packages/fsspec/implementations/local.py", line 425, in write',
            f"[rank{rank}]: {error}"]


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


@pytest.mark.parametrize("error", ["OSError: [Errno 28] No space left on device",
                                   "OSError: [Errno 122] Disk quota exceeded: '/scratch/ckpt/step_100/model.pt'",
                                   "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 3200 vs 3112: "
                                   "No space left on device"])
@pytest.mark.parametrize("nproc", [None, 8])
def test_a_lone_rank_s_full_disk_is_a_suspect_only(tmp_path, error, nproc):
    findings = pasted_findings(_tail(4, error), tmp_path, nproc, nproc, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert [(f["severity"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"] == [("info", [4])]


@pytest.mark.parametrize("error", ["ValueError: expected 3 channels, got 4",
                                   "PermissionError: [Errno 13] Permission denied: '/scratch/ckpt'"])
def test_a_lone_rank_s_own_error_still_names_it(tmp_path, error):
    named = naming_findings(pasted_findings(_tail(4, error), tmp_path, 8, 8, NOW))
    assert [(f["severity"], f["ranks"]) for f in named] == [("warning", [4])], _gist(named)


def test_the_full_disk_of_one_rank_while_the_others_run_on_names_it(tmp_path):
    lines = [f"[rank{r}]: step 10 loss 0.5" for r in range(4)] + _tail(2, "OSError: [Errno 28] No space left on device")
    lines += [f"[rank{r}]: step 11 loss 0.4" for r in (0, 1, 3)]
    lines += [f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by "
              f"peer [10.0.0.2]:45678" for r in (0, 1, 3)]
    named = naming_findings(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert {r for f in named for r in f["ranks"]} == {2}, _gist(named)
