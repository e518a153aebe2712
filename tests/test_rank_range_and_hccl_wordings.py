"""Three wordings of real incidents batch 26 (docs/rules.md "Real incidents batch 26"): a paste that wrote the
identical lines of several ranks once, with a rank range (parsers/log_rank_ranges.py); HCCL's report of a rank
whose heartbeat was lost (Ascend, parsers/log_launchers.py and log_rank_mentions.py); a torch build without the
backend the code calls, a failure every process shares (queries/_incident_common_mode.sql ``common_mode``). Each wording
variant is a case; the shapes that must stay as they are are cases too.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_paste import repair_paste
from k10s_forensics.parsers.log_rank_mentions import named_ranks
from k10s_forensics.parsers.log_rank_ranges import MAX_SPAN, expand_rank_ranges

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.timezone.utc)
WATCHDOG = "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=70003, OpType=ALLREDUCE, ...)"
AGENT = "E0608 19:04:45.368000 102926 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: {local} (pid: 102930) of binary: /usr/bin/python"
LOST = ("[ERROR] HCCL(835695,all_reduce_test):2025-10-23-17:28:06.049.385 [task_exception_handler.cc:610][835695]Cluster Exception "
        "Location[IP/ID]:[127.10.0.1/{rank}], Arrival Time:[Thu Oct 23 17:25:58 2025], Discoverer:[127.10.0.1/2], ExceptionType:[{what}], "
        "Possible Reason:1. Process has exited, 2. Network Disconnected")


def _named(tmp_path, text: str, **layout) -> list[tuple]:
    bundle, _ = import_logs([LogSource("paste.txt", text)], tmp_path / "b", job="train", namespace="team-a", now=NOW, **layout)
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]


# ---- a rank range ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "want"), [
    (f"[Rank 1-3] {WATCHDOG}", [f"[Rank {r}] {WATCHDOG}" for r in (1, 2, 3)]),  # pcdiff's post-mortem
    ('[rank9-11]: Similar failures', ["[rank9]: Similar failures", "[rank10]: Similar failures", "[rank11]: Similar failures"]),
    (f"[Ranks 4\u20135] {WATCHDOG}", [f"[Rank 4] {WATCHDOG}", f"[Rank 5] {WATCHDOG}"]),  # plural, an en dash
    (f"[E ProcessGroupNCCL.cpp:737] [rank 0..1] {WATCHDOG}", [f"[E ProcessGroupNCCL.cpp:737] [rank {r}] {WATCHDOG}" for r in (0, 1)]),
    (f"[RANK 2 - 3] {WATCHDOG}", [f"[RANK 2] {WATCHDOG}", f"[RANK 3] {WATCHDOG}"]),
])
def test_a_rank_range_is_written_out_once_per_rank(line, want):
    assert expand_rank_ranges([line, "ran for 600000 milliseconds before timing out."]) == (
        [*want, "ran for 600000 milliseconds before timing out."], "rank ranges written out (1 lines)")


@pytest.mark.parametrize("line", [
    f"[Rank 3] {WATCHDOG}",  # one rank
    f"[PG 0 Rank 2] {WATCHDOG}",  # a process group's prefix
    f"[Rank 1, 3] {WATCHDOG}",  # a list is no range
    f"[Rank 7-1] {WATCHDOG}",  # backwards
    f"[Rank 2-2] {WATCHDOG}",  # one rank written as a range
    f"[Rank 0-{MAX_SPAN}] {WATCHDOG}",  # wider than a paste condenses
    "train[1-3].log written",  # no rank word
])
def test_what_is_no_rank_range_stays(line):
    assert expand_rank_ranges([line]) == ([line], None)


def test_the_paste_repair_writes_a_range_out():
    got = repair_paste(f"```\n[Rank 1-2] {WATCHDOG}\n```\n")
    assert got.text.split("\n")[:2] == [f"[Rank 1] {WATCHDOG}", f"[Rank 2] {WATCHDOG}"]
    assert "rank ranges written out (1 lines)" in got.notes


def test_ranks_1_to_7_waiting_name_the_absent_rank_0(tmp_path):
    text = f"```\n[Rank 1-7] {WATCHDOG}\nran for 600000 milliseconds before timing out.\n```\n"
    assert _named(tmp_path, text, nproc_per_node=8, world_size=8) == [("nccl-hang", "never-joined", [0])]


# ---- HCCL: a rank whose heartbeat was lost -------------------------------------------------------------

@pytest.mark.parametrize(("line", "rank"), [
    (LOST.format(rank=1, what="Heartbeat Lost Occurred"), 1),
    ("Cluster Exception Location[IP/ID]:[10.0.0.7/3], Discoverer:[10.0.0.7/0], ExceptionType:[Heartbeat Lost Occurred]", 3),
    ("Cluster Exception Location[IP/ID]:[90.90.92.240/13], Arrival Time:[Thu Nov 28 11:56:34 2024], Discoverer:[90.90.92.240/0], "
     "ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited, 2. Network Disconnected", 13),
    ("[INFO] HCCL(686,python):2025-10-23-07:52:59.191.363 [heartbeat.cc:951] [8970][HCCL_TRACE]rank [127.10.0.1/1]: "
     "rank [127.10.0.1/9] status[LOST] by rank [127.10.0.1/1]", 9),  # the heartbeat trace
])
def test_hccl_names_the_rank_whose_heartbeat_was_lost(line, rank):
    got = [(e["kind"], e["subkind"], e["rank"], e["exit_code"]) for e in classify(line)]
    assert got == [("process_exit", "hccl_heartbeat_lost", rank, None)]


@pytest.mark.parametrize("what", ["Stuck Occurred", "Error cqe Occurred"])  # a hang; the network: no dead process
def test_hccl_s_other_exception_types_name_no_dead_process(what):
    assert [e for e in classify(LOST.format(rank=1, what=what)) if e["kind"] == "process_exit"] == []


def test_hccl_s_ip_id_notation_names_ranks_of_the_world():
    assert named_ranks(LOST.format(rank=5, what="Heartbeat Lost Occurred")) == [5, 2]
    assert named_ranks("rank [127.10.0.1/1]: rank [127.10.0.1/9] status[LOST] by rank [127.10.0.1/1]") == [1, 9, 1]
    assert named_ranks("Reason: The Notify register has not received the Notify record from remote rank [unknown].") == []


def test_a_lost_heartbeat_names_that_rank(tmp_path):
    text = "\n".join(["EI0002: [PID: 7277] 2024-11-28-11:59:30.645.648 The wait execution of the Notify register times out.",
                      LOST.format(rank=1, what="Heartbeat Lost Occurred"), ""])
    assert _named(tmp_path, text) == [("rank-failure", "rank-dead", [1])]  # declared dead by its peers (session 18)


# ---- a torch build without the backend -------------------------------------------------------------

@pytest.mark.parametrize("error", [
    "AssertionError: Torch not compiled with CUDA enabled",  # ALCF Aurora (XPU) in batch 26
    "RuntimeError: Distributed package doesn't have NCCL built in",
])
def test_a_torch_build_without_the_backend_is_every_process_s(tmp_path, error):
    text = "\n".join(["[rank0]: Traceback (most recent call last):", '[rank0]:   File "/w/train.py", line 387, in main',
                      "[rank0]:     pred = model(input_ids)", f"[rank0]: {error}", AGENT.format(local=0), ""])
    assert _named(tmp_path, text, nproc_per_node=4) == []


def test_a_rank_s_own_assertion_is_still_named(tmp_path):
    text = "\n".join(["[rank1]: Traceback (most recent call last):", '[rank1]:   File "/w/train.py", line 40, in step',
                      "[rank1]:     assert torch.isfinite(loss)", "[rank1]: AssertionError: loss is not finite", AGENT.format(local=1), ""])
    assert _named(tmp_path, text, nproc_per_node=4) == [("rank-failure", "python-exception", [1])]
