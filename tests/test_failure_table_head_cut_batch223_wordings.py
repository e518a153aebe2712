"""A torchrun failure table whose head the log cut (real incidents batch 223, OFA-Sys/OFA#352: the excerpt begins inside
rank 3's entry, `exitcode  : 1`, above the `Root Cause (first observed failure)` rank 0 `Signal 6 (SIGABRT)`, and the
author's fix is a fairseq DDP setting every rank shares). torchrun lists the other failures by rank, ``[1]:``, ``[2]:``,
...; with the table's ``Failures:`` head gone, entries before the one shown may have been cut off: where its ``[N]:``
index, or (its header cut too) the local ranks below its own other than the Root Cause's, leave room for more entries
than the log shows above it, the exit shown is not known to be alone and names no one (a full table listing ranks 1-3
reads as ranks failing together). Where nothing can be above it, the exit still beats the same-second SIGABRT, and a
cut entry that is the SIGABRT victim leaves the Root Cause's exit the culprit (SOLO-222) (docs/rules.md, "Session 37:
batch 223"). Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 16, 0, tzinfo=dt.timezone.utc)
TB = "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
RULE = "=" * 60
DASH = "-" * 60


def _entry(
    rank: int, code: int, pid: int, header: int | None = None, time: bool = True
) -> list[str]:
    lines = [f"[{header}]:"] if header is not None else []
    if time:
        lines.append("  time      : 2024-05-03_09:41:12")
    lines += [
        "  host      : gpu-node-07",
        f"  rank      : {rank} (local_rank: {rank})",
        f"  exitcode  : {code} (pid: {pid})",
        "  error_file: <N/A>",
    ]
    lines.append(
        f"  traceback : Signal 6 (SIGABRT) received by PID {pid}" if code == -6 else TB
    )
    return lines


def _table(cut: list[str], root_rank: int, root_code: int) -> list[str]:
    return (
        cut
        + [DASH, "Root Cause (first observed failure):"]
        + _entry(root_rank, root_code, 5100, header=0)
        + [RULE]
    )


#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # OFA-352 as pasted: rank 3's entry cut at its head, Root Cause rank 0 SIGABRT: ranks 1-2 may be above
    "ofa-352-as-pasted": (corpus_lines("OFA-352-"), None),
    # eight ranks, the last entry alone below the cut: ranks 1-6 may be above
    "rank7-of-8-header-cut": (_table(_entry(7, 1, 5107), 0, -6), None),
    # the cut entry starts at its host line (no time line), as nnscaler-10's
    "rank3-host-first": (_table(_entry(3, 1, 5103, time=False), 0, -6), None),
    # its header kept, `[3]:`, but no `Failures:` line and no [1]/[2] above it
    "index3-nothing-above": (_table(_entry(3, 1, 5103, header=3), 0, -6), None),
    # contrasts: `[1]:` is the first of the other failures, nothing was cut above it: the exit beats the SIGABRT ...
    "index1-first-entry": (_table(_entry(3, 1, 5103, header=1), 0, -6), 3),
    # ... a cut entry of local rank 1 beside the Root Cause's local rank 0 has no rank below it that could be missing ...
    "rank1-header-cut-no-room": (_table(_entry(1, 1, 5101), 0, -6), 1),
    # ... and SOLO-222 as pasted: the cut entry is rank 1's SIGABRT, the Root Cause rank 0's exit 1 is the culprit
    "solo-222-as-pasted": (corpus_lines("SOLO-222-"), 0),
}
BATCHED = Batched("b223", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, None, NOW, world=None)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_exit_below_a_cut_table_head_is_not_known_alone(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
