"""Session 30's leftovers (docs/rules.md, "Session 30: one signal in every process"): every process of a job reporting
the same fatal signal by its own handler (Open MPI's ``[host:pid] Signal: Bus error (7)``, real incidents batch 114,
horovod/horovod#2053), with no rank failing first, is said as a common-mode failure with its cause and no rank; a job
where only some processes took it, or took different signals, or a rank failed on its own, is not. Batched
(tests/bundle_batch.py): one analysis for every case. And the watchdog compare's rank alone on an earlier SeqNum in a
collective of another size or op (real incidents batch 115, 2U1/Qwen-VL-Series-Finetune#17) is a collective mismatch
(``seq-mismatch``), not a desync (tests/test_hang_evidence.py's kit: one small analysis a case).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from _analyze_kit import gang
from bundle_batch import Batched
from test_hang_evidence import _run, _timeouts
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)


def _ompi(rank: int, pid: int, name: str, signo: int, stamp: str = "") -> list[str]:
    head = f"{stamp}[1,{rank}]<stderr>:[b44a5a6092b3:{pid:05d}] "
    return [head + "*** Process received signal ***", head + f"Signal: {name} ({signo})",
            head + "Signal code: Non-existant physical address (2)", head + "Failing at address: 0x7fe0f613e000"]


def _all(name: str, signo: int, world: int = 4, stamps: list[str] | None = None) -> str:
    return "\n".join(ln for r in range(world) for ln in _ompi(r, 118 + r, name, signo, (stamps or [""] * world)[r]))


T = "2026-11-30T10:00:{:02d}.000000Z "
CASES = {
    # (text, world): (cause, severity) of the one no-rank finding, or None: no such finding
    "every-rank-sigbus-no-clock": ((_all("Bus error", 7), 4), ("sigbus", "warning")),
    "every-rank-segfault-no-clock": ((_all("Segmentation fault", 11), 4), ("segfault", "warning")),
    "every-rank-sigbus-within-seconds": ((_all("Bus error", 7, stamps=[T.format(s) for s in (1, 2, 2, 3)]), 4), ("sigbus", "warning")),
    # spread over minutes: not one moment
    "every-rank-sigbus-minutes-apart": ((_all("Bus error", 7, 2, stamps=["2026-11-30T10:00:01.000000Z ", "2026-11-30T10:09:01.000000Z "]), 2), None),
    # two of four processes: not every one
    "two-of-four": ((_all("Bus error", 7, 2), 4), None),
    # two signals: not one cause
    "two-signals": (("\n".join(_ompi(0, 118, "Bus error", 7) + _ompi(1, 119, "Segmentation fault", 11)), 2), None),
}
KEYS = list(CASES)
BATCHED = Batched("leftovers-s30", KEYS)


def _make(key: str, folder: Path):
    (text, world) = CASES[key][0]
    bundle, _ = import_logs([LogSource("log.txt", text)], folder, nproc_per_node=world, world_size=world, nodes=1,
                            job="train", namespace="team-a", now=NOW, derive=False)
    return bundle


@pytest.mark.parametrize("key", BATCHED.params(KEYS, name=str))
def test_one_signal_in_every_process_is_said_with_no_rank(key, tmp_path_factory):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    alike = [f for f in findings if f["rule"] == "rank-failure" and not f["ranks"] and "same signal" in f["title"]]
    assert not [f for f in findings if f["ranks"] and f["severity"] in ("warning", "critical")]  # nobody is named
    want = CASES[key][1]
    assert [(f["cause"], f["severity"]) for f in alike] == ([want] if want else [])
    if want:
        assert "none failed first" in alike[0]["summary"] and "no single culprit" in alike[0]["summary"]
        assert ("within 2 s" if "within-seconds" in key else "without a clock") in alike[0]["summary"]


@pytest.mark.parametrize(("own", "want"), [
    # an earlier SeqNum in an all-reduce of another size (real incidents batch 115): the others completed that SeqNum,
    # paired with another call of theirs: a collective mismatch (session 30)
    (dict(seq=896, numel_in=544997376, numel_out=544997376), ("seq-mismatch", "collective-mismatch", "medium")),
    # an earlier SeqNum of another OpType: the same
    (dict(seq=896, op="BROADCAST", numel_in=2560, numel_out=2560), ("seq-mismatch", "collective-mismatch", "medium")),
    # an earlier SeqNum of the same op and size: nothing says its call differed: a desync (a rank behind)
    (dict(seq=896, numel_in=2560, numel_out=2560), ("desync", "desync", "medium")),
    # a later SeqNum of another op (the simulator's nccl-hang desync): ahead of the others, a desync said low
    (dict(seq=901, op="BROADCAST", numel_in=2560, numel_out=2560), ("desync", "desync", "low")),
])
def test_watchdog_compare_earlier_seqnum_of_another_size_is_a_collective_mismatch(tmp_path, own, want):
    g = gang(pods=2, per_pod=3)
    g["log_events"] = _timeouts(g, [1, 2, 3, 4, 5], numel_in=2560, numel_out=2560) + _timeouts(g, [0], **own)
    ev, hang = _run(tmp_path, g)
    assert [(e["evidence"], e["culprit_ranks"]) for e in ev] == [("watchdog-compare", [0])]
    assert (ev[0]["detail"].split(":")[0], hang[0]["cause"], ev[0]["confidence"]) == want
    if want[0] == "seq-mismatch":
        assert "an earlier collective of another type or size" in hang[0]["summary"]
