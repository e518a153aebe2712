"""Batch 94's native-crash shapes (tests/data/real-incidents, ``"batch": 94``, family ``native-crashes``): a process's
own report of the fatal signal it took, and whose death it is (docs/rules.md, "Session 27: batch 94").

The variants seen in the threads searched for the batch:

* Abseil's failure signal handler (``absl::InstallFailureSignalHandler``: NCCL hosts, Ray's workers, TensorFlow/XLA):
  ``*** SIGSEGV received at time=1775734074 on cpu 19 ***`` bare, or behind Ray's ``(RayWorkerWrapper pid=N)`` prefix
  and again behind its ``logging.cc:440:`` (the same crash); the other fatal signals in the same words (SIGBUS,
  SIGABRT, SIGFPE, SIGILL). Its ``PC: @ … fn()`` and ``@`` frame lines are the same crash, no event;
* a two-rank job whose one surviving rank's desync report says ``[1] finished collective #N, but didn't join
  collective #N+1`` after its watchdog timed out, with a process's fatal-signal banner on no line of the reporter's:
  the rank that did not join died of that signal (nccl-2213); without a death, or with the signal on the reporter's
  own line, the two-rank report stays weak (said, not charged: docs/rules.md, "Session 19: controls");
* a process known only by its Ray pid taking the signal in NCCL's enqueue path (vllm-6783): no rank to name.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings
from k10s_forensics.parsers.log_absl import absl_signal
from k10s_forensics.parsers.log_failures import fatal_signal

NOW = dt.datetime(2026, 12, 1, 6, 0, tzinfo=dt.timezone.utc)

SPARK = corpus_log("nccl-2213-dgx-spark-unranked-sigsegv-rank0-timeout-names-rank1")
RAY = corpus_log("vllm-6783-ray-worker-pid-sigsegv-ncclallreduce-no-rank-control")
BANNER = "*** SIGSEGV received at time=1775734074 on cpu 19 ***"
WATCHDOG = ("[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1155874, OpType=ALLREDUCE, "
            "NumelIn=9445376, NumelOut=9445376, Timeout(ms)=1800000) ran for 1800002 milliseconds before timing out.")
DESYNC = "[1] finished collective #1155873, but didn't join collective #1155874"


@pytest.mark.parametrize("line, code", [
    (BANNER, -11),
    ("*** SIGBUS received at time=1700000000 on cpu 3 ***", -7),
    ("*** SIGABRT received at time=1700000000 on cpu 0 ***", -6),
    ("*** SIGFPE received at time=1700000000 on cpu 12 ***", -8),
    ("*** SIGILL received at time=1700000000 on cpu 7 ***", -4),
    ("[2024-07-25 10:46:00,050 E 24036 24036] logging.cc:440: *** SIGSEGV received at time=1721904360 on cpu 140 ***", -11),
])
def test_absls_banner_is_the_signal_its_process_took(line, code):
    name = line.split("*** ")[1].split()[0]
    assert absl_signal(line) == {"kind": "native_signal", "subkind": "absl", "exit_code": code, "error_message": name}
    assert fatal_signal(line)["subkind"] == "absl"


@pytest.mark.parametrize("line", [
    "PC: @     0xe1e2567f5014  (unknown)  ncclLocalOpAppend()",
    "*** SIGTERM received at time=1700000000 on cpu 2 ***",  # its launcher's teardown, no fault of its own
    "the SIGSEGV received at time of the crash was not logged",
])
def test_the_banners_frames_and_other_signals_are_no_death(line):
    assert absl_signal(line) is None


def _spark(head: list[str]) -> str:
    return "\n".join(head + ["", WATCHDOG, "", DESYNC]) + "\n"


BUILD = {
    "spark": lambda: SPARK,
    "spark-bus-error": lambda: _spark(["*** SIGBUS received at time=1775734074 on cpu 19 ***"]),
    "spark-no-death": lambda: _spark(["Connected all rings, use ring PXN 0 GDR 0"]),
    "spark-reporters-own": lambda: _spark(["[rank0]: Fatal Python error: Segmentation fault"]),
    "ray-worker": lambda: RAY,
}
#: the named rank and the signal it died of
CULPRITS = {"spark": (1, "segfault"), "spark-bus-error": (1, "sigbus")}
CONTROLS = ["spark-no-death", "ray-worker"]
BATCHED = Batched("native-crashes-batch94", list(CULPRITS) + CONTROLS + ["spark-reporters-own"])


def _make(key: str, folder: Path) -> object:
    return pasted(BUILD[key](), folder, 1, NOW, None if key == "ray-worker" else 2)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS, name=str))
def test_the_rank_that_did_not_join_died_of_the_signal_on_no_other_ranks_line(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, *CULPRITS[key])


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS, name=str))
def test_a_two_rank_report_without_that_death_or_a_pid_only_crash_names_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


@pytest.mark.parametrize("key", BATCHED.params(["spark-reporters-own"], name=str))
def test_a_signal_on_the_reporters_own_line_does_not_make_the_other_rank_dead(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert not [f for f in named if 1 in f["ranks"]], [(f["rule"], f["cause"], f["ranks"]) for f in named]
