"""A paste that ends on a waiter's own timeout line (session 62): when the others' watchdog timeouts are pasted, one rank
of the job is in no line of the paste, and the paste simply ends on a waiting rank's own timeout line (nothing after
it: no teardown line, no launcher's report, no closing fence), the list of waiters may go on past the paste's end: the
"absent" rank's line may just be cut. nccl-hang still says the absent rank, at info (a suspect, not a culprit), with
``medium_why`` ``paste-ends-on-wait`` (the corpus's controls STEERER-20 and profam-286 are such pastes; no culprit of the
corpus ends so). Contrasts: the same paste with a teardown line after it, with a closing fence, with a line of the absent
rank's own, and as the pod log of a captured job. The parser's ``log_tail`` event (parsers/log_tail.py) and the
importer's ``k10s.io/imported-end: closed`` label carry it (docs/rules.md, "Session 62: a paste that ends on a waiter's
own timeout line").
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bundle_batch import Batched, pasted
from incident_kit import corpus_lines
from k10s_forensics.parsers import logs
from k10s_forensics.parsers.log_tail import closed_by_markup
from k10s_forensics.store.bundle import write_raw_table
from log_helpers import derive, log_row, with_api_prefix

NOW = dt.datetime(2026, 12, 6, 12, 0, tzinfo=dt.timezone.utc)


def _wait(rank: int) -> str:
    return (f"[rank{rank}]:[E ProcessGroupNCCL.cpp:607] [Rank {rank}] Watchdog caught collective operation timeout: "
            f"WorkNCCL(SeqNum=212, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 60003{rank} "
            "milliseconds before timing out.")


#: ranks 1-3 time out in SeqNum 212; rank 0 is in no line, and the paste ends on rank 3's own timeout line
WAITS = ["Epoch 3:  41%|████      | 410/1000 [12:01<17:18,  1.76s/it]", _wait(1), _wait(2), _wait(3)]
#: the teardown line a watchdog prints after its timeout (untagged, as the corpus's art-10 ends)
TEARDOWN = ("[E ProcessGroupNCCL.cpp:406] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
            "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. To avoid this inconsistency, we "
            "are taking the entire process down.")
#: a line of rank 0's own (its communicator's init): rank 0 is in the paste and never timed out
RANK0_OWN = ("gpu-vm:4711:4711 [0] NCCL INFO comm 0x55d1c0e0 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 1000 commId "
             "0x8c2f1e7d6a5b4c3d - Init COMPLETE")

#: key: (the pasted lines, nproc, severity, medium_why, as a captured pod's log)
CASES = {
    "ends-on-wait": (WAITS, 4, "info", "paste-ends-on-wait", False),
    # a control of the corpus: three ranks' 1.x watchdog lines, wrapped at the terminal's width, the paste ends on the last
    "steerer-20-wrapped": (corpus_lines("STEERER-20-"), None, "info", "paste-ends-on-wait", False),
    "profam-286": (corpus_lines("profam-286-"), None, "info", "paste-ends-on-wait", False),
    # contrasts: something follows the last wait, the author closed the block, rank 0 speaks, a captured pod's log
    "teardown-after": (WAITS + [TEARDOWN], 4, "warning", "absent-from-paste", False),
    "closing-fence": (["```"] + WAITS + ["```"], 4, "warning", "absent-from-paste", False),
    "details-closed": (["<details>", "<summary>log</summary>", ""] + WAITS + ["</details>"], 4, "warning", "absent-from-paste", False),
    "rank0-own-line": ([RANK0_OWN] + WAITS, 4, "critical", None, False),
    "captured-pod-log": (WAITS, 4, "critical", None, True),
    # culprits of the corpus: a wrapped last wait followed by a closing fence; a paste that ends on a later line of a
    # waiter's report (rank 2's `Timeout at NCCL work: 15037, …` after the three catch lines), not on a catch line
    "pcdiff-fenced": (corpus_lines("pcdiff-nccl-fix-notes-"), None, "warning", "absent-from-paste", False),
    "torchtune-1165-timeout-at-work": (corpus_lines("torchtune-1165-"), 4, "warning", "absent-from-paste", False),
}
RANK = {"steerer-20-wrapped": 2}
BATCHED = Batched("paste-ends-on-wait", list(CASES))


def _captured(bundle_path: Path) -> None:
    """The imported pods as a capture lists them: no ``k10s.io/imported`` annotation (their spec is the pod's own)."""
    rows = pq.read_table(bundle_path / "raw" / "objects.parquet").to_pylist()
    for row in rows:
        body = json.loads(row["body"])
        body["metadata"].pop("annotations", None)
        row["body"] = json.dumps(body)
    write_raw_table(bundle_path, "objects", rows)


def _make(key: str, folder: Path):
    lines, nproc, *_, live = CASES[key]
    bundle = pasted(with_api_prefix("\n".join(lines)).split("\n") if live else lines, folder, nproc, NOW, world=nproc)
    if live:
        _captured(bundle.path)
    return bundle


def _hang(key: str, tmp_path_factory) -> dict:
    (finding,) = [f for f in BATCHED.findings(key, tmp_path_factory, _make) if f["rule"] == "nccl-hang"]
    return finding


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_an_absent_rank_of_a_paste_ending_on_a_wait_is_a_suspect_only(key, tmp_path_factory):
    _, _, severity, why, _ = CASES[key]
    finding = _hang(key, tmp_path_factory)
    assert (finding["ranks"], finding["cause"], finding["severity"]) == ([RANK.get(key, 0)], "never-joined", severity)
    assert finding["evidence"][0].get("medium_why") == why


def test_the_finding_says_the_list_of_waiters_may_go_on(tmp_path_factory):
    summary = _hang("ends-on-wait", tmp_path_factory)["summary"]
    assert "ends on a waiting rank's own timeout line" in summary and "suspect, not a culprit" in summary
    assert "ends on a waiting rank" not in _hang("teardown-after", tmp_path_factory)["summary"]


def _tails(tmp_path, body: str) -> list[tuple]:
    ctx, _ = derive(tmp_path, logs, logs=[log_row(body)])
    return sorted((e["line_no"], e["rank"], e["line"][:30]) for e in ctx.table("log_events").to_pylist() if e["kind"] == "log_tail")


@pytest.mark.parametrize("body, want", [
    ("\n".join(WAITS) + "\n\n", [(4, 3, "[rank3]:[E ProcessGroupNCCL.cp")]),
    (with_api_prefix("\n".join(WAITS)), [(4, 3, "[rank3]:[E ProcessGroupNCCL.cp")]),  # a captured pod's log: the same
    # the watchdog's sentence's end wrapped onto a line of its own: the tail of rank 3's line
    ("\n".join(WAITS[:-1] + [_wait(3).split(" ran for ")[0], "ran for 600033 milliseconds before timing out."]),
     [(5, 3, "ran for 600033 milliseconds be")]),
    ("\n".join(WAITS + [TEARDOWN]), []),  # the teardown line after it
    ("\n".join(WAITS + ["Any idea what causes this?"]), []),
    ("\n".join([_wait(1), "Epoch 3:  42%|████      | 420/1000"]), []),
    ("\n".join(WAITS + ["[rank3]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 3] Timeout at NCCL work: 212, last enqueued NCCL "
                        "work: 212, last completed NCCL work: 211."]), []),  # a later line of the waiter's report
], ids=["ends-on-wait", "captured", "wrapped-tail", "teardown-after", "prose-after", "progress-after", "timeout-at-work"])
def test_the_parser_marks_a_body_ending_on_a_waiter_s_timeout_line(tmp_path, body, want):
    assert _tails(tmp_path, body) == want


@pytest.mark.parametrize("text, closed", [
    ("a\n```\n", True), ("a\n~~~\n\n", True), ("a\n</details>", True), ("a\n[/code]", True), ("a\n{code}", True),
    ("> a\n> ```", True), ("```\na", False), ("a\nran for 600000 milliseconds before timing out.", False),
])
def test_a_paste_closed_by_markup(text, closed):
    assert closed_by_markup(text) is closed
