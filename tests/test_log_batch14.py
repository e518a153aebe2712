"""Wordings found by real incidents batch 14 (docs/rules.md "Real incidents batch 14"):

* a torch elastic failure-table entry whose rows lost their line breaks, and markdown its underscores,
  on the way through a rendered page or a screenshot's text (``rank2 (local rank: 2)exitcode: -9 (pid:
  36071)error file: <N/A>``) is still the entry: its rank and exit status;
* Ray's dead-actor report read behind the prefix of the process that printed it (verl's driver actor,
  ``(TaskRunner pid=892962) \\tname: gxgUtgWorkerDict_0:1``): the worker group's rank;
* c10d's store client timing out on another rank's key (``[c10d] waitForInput: socket … timed out after
  1800000ms``) is that rank waiting, like a watchdog timeout: its traceback, cut before the exception,
  does not make it a culprit.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from incident_kit import naming_findings
from parser_kit import body_events
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 11, 29, 4, 0, tzinfo=dt.timezone.utc)


def _named(tmp_path, text: str, nproc: int | None = None, world: int | None = None):
    bundle, _ = import_logs([LogSource("log.txt", text)], tmp_path / "b", nproc_per_node=nproc, world_size=world,
                            job="train", namespace="team-a", now=NOW)
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]


def _events(lines: list[str]) -> list[dict]:
    """The log parser's events of a body: only the lines the prefilter passes reach it, as in a rebuild."""
    return body_events(lines, NOW)


# ---- a failure table flattened onto one line -------------------------------------------------
FLAT_TABLE = [
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
    "train.py FAILED",
    "Failures:",
    "<NO OTHER FAILURES>",
    "Root Cause (first observed failure) :",
    "[0]:",
    "time",
    "host",
    "2023-09-14 01:45:50",
    "node-a",
    "{rank_line}",
    "traceback : signal 9 (SIGKILL) received by PID 36071",
]


@pytest.mark.parametrize(("rank_line", "rank", "local", "code"), [
    ("rank2 (local rank: 2)exitcode: -9 (pid: 36071)error file: <N/A>", 2, 2, -9),  # underscores eaten, rows fused
    ("rank : 5 (local_rank: 1)exitcode : -11 (pid: 36071)error_file: <N/A>", 5, 1, -11),  # fused, underscores kept
    ("rank: 3 (local rank: 3) exitcode: 1 (pid: xxxxx) error file: <N/A>", 3, 3, 1),  # spaced, pid masked
])
def test_a_flattened_table_entry_is_the_entry(rank_line, rank, local, code):
    lines = [line.format(rank_line=rank_line) for line in FLAT_TABLE]
    failures = [e for e in _events(lines) if e["kind"] == "torchrun_failure"]
    assert [(e["subkind"], e["rank"], e["local_rank"], e["exit_code"]) for e in failures] == [("root_cause", rank, local, code)]


@pytest.mark.parametrize("line", [
    "rank2 (local rank: 2) finished",  # no exit status: no entry
    "rank 2 exitcode: -9 (pid: 36071)",  # no local rank: not an entry's rows
    "the rank (local rank: 2) exitcode was unknown",  # prose
])
def test_a_line_short_of_a_whole_entry_is_none(line):
    assert not [e for e in _events(["Root Cause (first observed failure):", "[0]:", line]) if e["kind"] == "torchrun_failure"]


def test_a_flattened_table_names_its_rank_and_cause(tmp_path):
    text = "\n".join(line.format(rank_line="rank2 (local rank: 2)exitcode: -9 (pid: 36071)error file: <N/A>") for line in FLAT_TABLE)
    assert _named(tmp_path, text + "\n", 4, 4) == [("rank-failure", "warning", "host-oom-kill", [2])]  # the paste is that rank's only


def test_the_table_with_its_underscores_is_read_as_before():
    lines = ["Root Cause (first observed failure):", "[0]:", "  time      : 2025-05-08_19:12:35", "  host      : h",
             "  rank      : 1 (local_rank: 1)", "  exitcode  : 1 (pid: 2938243)", "  error_file: <N/A>"]
    failures = [e for e in _events(lines) if e["kind"] == "torchrun_failure"]
    assert [(e["rank"], e["local_rank"], e["exit_code"], e["pid"]) for e in failures] == [(1, 1, 1, 2938243)]


# ---- Ray's dead-actor report behind a Ray prefix -----------------------------------------------
DIED = "{p}ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task."


@pytest.mark.parametrize("prefix", ["", "(TaskRunner pid=892962) ", "(main_task pid=90508, ip=10.0.0.3) "])
def test_the_dead_actors_name_behind_a_ray_prefix_names_the_rank(prefix):
    lines = [DIED.format(p=prefix), prefix + "\tclass_name: create_colocated_worker_cls.<locals>.WorkerDict",
             prefix + "\tpid: 909447", prefix + "\tname: gxgUtgWorkerDict_0:1"]
    died = [e for e in _events(lines) if e.get("subkind") == "ray_actor_died"]
    assert [(e["rank"], e["error_message"]) for e in died] == [(1, "Ray actor gxgUtgWorkerDict_0:1 died")]


@pytest.mark.parametrize("name_line", [
    "(TaskRunner pid=892962) \tname: gxgUtgWorkerDict_1:1",  # another placement group: its first rank is unknown
    "(TaskRunner pid=892962) name: some actor_0:1 extra",  # not one name
])
def test_other_names_name_no_rank(name_line):
    assert not [e for e in _events([DIED.format(p="(TaskRunner pid=892962) "), name_line]) if e.get("subkind") == "ray_actor_died"]


def test_a_name_field_without_a_death_report_names_no_one():
    assert not [e for e in _events(["(TaskRunner pid=892962) \tname: gxgUtgWorkerDict_0:1"]) if e.get("subkind") == "ray_actor_died"]


# ---- c10d's store wait timing out ------------------------------------------------------------
SOCKET_POLL = ("[rank3]:[W322 04:37:53.828432094 socket.cpp:464] [c10d] waitForInput: poll for socket SocketImpl(fd=80, "
               "addr=[localhost]:59170, remote=[localhost]:29500) returned 0, likely a timeout")
SOCKET_TIMEOUT = ("[rank3]:[W322 04:37:53.829048214 socket.cpp:489] [c10d] waitForInput: socket SocketImpl(fd=80, "
                  "addr=[localhost]:59170, remote=[localhost]:29500) timed out after 1800000ms")
POOLFD = "[rank5]:[W socket.cpp:432] [c10d] While waitForInput, poolFD failed with (errno: 0 - Success)."


@pytest.mark.parametrize(("line", "rank"), [(SOCKET_TIMEOUT, 3), (POOLFD, 5)])
def test_a_store_wait_timeout_is_the_ranks_wait(line, rank):
    assert re.search(PREFILTER_EVENT, line)
    assert [(e["kind"], e["subkind"], e["rank"], e["error_type"]) for e in classify(line)] == [
        ("python_exception", "teardown", rank, "c10d store timeout")]


@pytest.mark.parametrize("line", [
    SOCKET_POLL,  # the poll's own line: the timeout line after it is the event
    "[rank5]:[W socket.cpp:432] [c10d] While waitForInput, poolFD failed with (errno: 104 - Connection reset by peer).",
    "waitForInput: socket timed out after 10ms",  # not c10d's
])
def test_other_socket_lines_are_no_store_timeout(line):
    assert not [e for e in classify(line) if e.get("error_type") == "c10d store timeout"]


TRACEBACK = ["[rank3]: Traceback (most recent call last):", '[rank3]:   File "/ms-swift/swift/cli/rlhf.py", line 5, in <module>',
             "[rank3]:     rlhf_main()"]


def test_a_waiters_cut_traceback_names_no_culprit(tmp_path):
    assert _named(tmp_path, "\n".join([SOCKET_POLL, SOCKET_TIMEOUT, *TRACEBACK]) + "\n") == []


def test_a_cut_traceback_alone_makes_its_rank_a_suspect(tmp_path):
    """Without the wait before it, a rank's traceback cut before its exception is that rank raising — as a suspect at
    info since session 27 (docs/rules.md, "Session 27: a cut traceback alone"), no culprit."""
    bundle, _ = import_logs([LogSource("log.txt", "\n".join(TRACEBACK) + "\n")], tmp_path / "b", job="train",
                            namespace="team-a", now=NOW)
    findings = analyze(bundle)["findings"]
    assert naming_findings(findings) == []
    assert [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings if f["ranks"]] == [
        ("rank-failure", "info", "python-exception", [3])]


# ---- a line wrapped right after ``key=`` -------------------------------------------------------
def test_a_line_cut_after_key_equals_is_one_line_again():
    """A terminal cut ``addr=`` | ``[localhost]:59170``: the tail starts like a ``[host]`` record, but a
    ``key=`` at the cut has its value on the next line (log_paste.py)."""
    from k10s_forensics.parsers.log_paste import repair_paste
    from paste_damage import wrap
    long = "INFO:root:loaded shard " + ", ".join(f"model-{i:05d}-of-00042.safetensors" for i in range(6))
    text = "\n".join(["Loading checkpoint shards: 100%", SOCKET_TIMEOUT, "INFO:root:epoch 3 started", long, ""])
    damaged = wrap(text, 100, False)
    assert "addr=\n[localhost]" in damaged
    assert repair_paste(damaged).text == text
