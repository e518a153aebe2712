"""Session 60's three reading defects (docs/rules.md, "Session 60: clipped rank prefixes, the newer watchdog wording,
absent fields in summaries"), through the real importer and analyze:

1. torchrun's ``[rankN]: `` tag whose ``[`` (or ``[r``) a copy lost at the line's start (``rank4]: ``, ``ank1]: ``;
   batch 370's DiffSynth-Studio#411) is that rank's tag; the same characters mid-line, glued to the text, or after
   another word are no tag.
2. torch >= 2.4's ``Exception (either an error or timeout) detected by watchdog at work: W`` is that rank's wait on
   work W, as ``Timeout at NCCL work: W`` is (batch 374's axolotl#2267: two ranks stuck on the first collective, a
   control that stays unnamed).
3. A summary never prints "None" for an absent field: a watchdog line without OpType or Timeout(ms) reads
   ``on SeqNum 1 (collective not named)``, ``(---: its length not logged)``.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.analyze.render import to_json, to_markdown, to_text
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_normalize import normalize

NOW = dt.datetime(2026, 12, 6, 8, 0, tzinfo=dt.timezone.utc)

WAN_OOM = corpus_lines("DiffSynth-Studio-411-")
ORPO_HANG = corpus_lines("axolotl-2267-")


def gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def _tail(tag: str, error: str = "ValueError: expected 3 channels, got 4") -> list[str]:
    return [f"{tag}Traceback (most recent call last):",
            f'{tag}  File "/workspace/train.py", line 88, in <module>',
            f"{tag}{error}"]


@pytest.mark.parametrize(("line", "rank"), [
    ("rank4]: torch.OutOfMemoryError: CUDA out of memory.", 4),
    ("ank1]: Traceback (most recent call last):", 1),
    ("2025-03-05 10:00:01 rank3]: ValueError: x", 3),
    ("[rank2]: ValueError: x", 2),
    # no tag: mid-line, glued to the text, another word's tail, indented
    ("step 3 rank4]: ValueError: x", None),
    ("rank4]:ValueError: x", None),
    ("Bank1]: ValueError: x", None),
    ("tank1]: ValueError: x", None),
    ("  rank5]: ValueError: x", None),
])
def test_a_clipped_torchrun_tag_is_read_only_at_the_line_start(line, rank):
    assert normalize(line).rank == rank


@pytest.mark.parametrize("nproc", [None, 8])
def test_the_bracketless_oom_names_its_rank(tmp_path, nproc):
    """DiffSynth-Studio#411 as collected: rank 4's lone OOM names rank 4 (warning, cuda-oom), as ``[rank4]:`` does."""
    assert gist(naming_findings(pasted_findings(WAN_OOM, tmp_path, nproc, nproc, NOW))) == [
        ("oom-cascade", "warning", "cuda-oom", [4])]


@pytest.mark.parametrize("tag", ["rank1]: ", "ank1]: "])
def test_a_clipped_tag_reads_as_the_bracketed_one(tmp_path, tag):
    """A lone traceback under a clipped tag reads as under ``[rank1]: ``: the same findings, the same rank."""
    clipped = gist(pasted_findings(_tail(tag), tmp_path / "a", 4, 4, NOW))
    assert clipped == gist(pasted_findings(_tail("[rank1]: "), tmp_path / "b", 4, 4, NOW))
    assert any(f[3] == [1] for f in clipped), clipped


def test_a_clipped_tag_mid_line_names_no_one(tmp_path):
    """``rank1]: `` behind other text is no tag: the untagged traceback names no rank."""
    named = naming_findings(pasted_findings(_tail("step 3 rank1]: "), tmp_path, 4, 4, NOW))
    assert named == [], gist(named)


def _timeout(rank: int, work: int, newer: bool) -> str:
    pg = "[PG ID 0 PG GUID 0(default_pg) Rank %d]" % rank
    said = (f"Exception (either an error or timeout) detected by watchdog at work: {work}" if newer
            else f"Timeout at NCCL work: {work}")
    return (f"[rank{rank}]:E1206 07:00:0{rank}.123456 {1000 + rank} ProcessGroupNCCL.cpp:1785] {pg} {said}, "
            f"last enqueued NCCL work: {work}, last completed NCCL work: {work - 1}.")


@pytest.mark.parametrize(("waiters", "world"), [((0, 1), 2), ((0, 1, 2), 4), ((1,), 2)])
def test_the_newer_watchdog_wording_reads_as_timeout_at_work(tmp_path, waiters, world):
    """The same ranks' waits on work 7 in either wording read alike (whoever they name, at whatever severity)."""
    newer = gist(pasted_findings([_timeout(r, 7, True) for r in waiters], tmp_path / "a", world, world, NOW))
    older = gist(pasted_findings([_timeout(r, 7, False) for r in waiters], tmp_path / "b", world, world, NOW))
    assert newer == older
    assert any(f[0] == "nccl-hang" for f in newer), newer


@pytest.mark.parametrize("nproc", [None, 2])
def test_orpo_two_ranks_on_the_first_collective_stay_unnamed(tmp_path, nproc):
    """axolotl#2267: rank 0's watchdog exception and rank 1's timeout, both on work 1: two waiters, no culprit."""
    findings = pasted_findings(ORPO_HANG, tmp_path, nproc, nproc, NOW)
    assert gist(findings) == [("nccl-hang", "info", "no-single-culprit", [])]
    assert findings[0]["summary"].startswith("2 ranks hit NCCL watchdog timeout"), findings[0]["summary"]


@pytest.mark.parametrize("newer", [True, False])
def test_no_summary_prints_none_for_an_absent_field(tmp_path, newer):
    """Watchdog lines without OpType or Timeout(ms): the text, markdown and JSON summaries say what is absent."""
    analysis = analyze(pasted([_timeout(r, 1, newer) for r in (0, 1)], tmp_path, 2, NOW, world=2))
    hang = [f for f in analysis["findings"] if f["rule"] == "nccl-hang"]
    assert hang and "SeqNum 1 (collective not named)" in hang[0]["summary"], hang
    assert "its length not logged" in hang[0]["summary"]
    for shown in (to_text(analysis, color=False), to_markdown(analysis), to_json(analysis)):
        assert "None" not in shown, shown
