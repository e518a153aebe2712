"""PaddlePaddle's launchers (parsers/log_launchers.py, real incidents batch 19): the new
``paddle.distributed.launch`` names its node's first failed worker by its index in the pod (the
local rank) with its exit status; the legacy launcher names the global ranks it found dead at one
poll, without a status (a strict subset of the world it states is named, the whole world is not);
glog's failure signal handler in a Paddle process says which signal ended its pid. Each wording is
read as its event; the rules then name (or do not name) the rank.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from incident_kit import named_in_paste
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)
CMD = "['/usr/bin/python3', '-u', 'tools/train.py', '-c', 'configs/ppyoloe/ppyoloe_crn_l_300e_coco.yml', '--eval']"


def _container(rank: int, status: str = "failed", code: int = 1, log: str = "log/workerlog.{}") -> str:
    return f"Container rank {rank} status {status} cmd {CMD} code {code} log {log.format(rank)}"


def _abort(ranks: str, n: int = 8) -> str:
    return f"ABORT!!! Out of all {n} trainers, the trainer process with rank={ranks} was aborted. Please check its log."


def _exits(line: str) -> list[tuple]:
    return [(e["subkind"], e.get("rank"), e.get("local_rank"), e.get("exit_code")) for e in classify(line)
            if e["kind"] == "process_exit"]


@pytest.mark.parametrize(("line", "local", "code"), [
    (_container(0), 0, 1),
    (_container(3, code=-9), 3, -9),
    (_container(7, code=-11, log="/workspace/output/log/default.gpuid.7.log"), 7, -11),
    (_container(1, code=2, log="None"), 1, 2),  # no log file configured
    ("[2024-03-05 10:11:12,345] [   ERROR] controller.py:121 - " + _container(2, code=-6), 2, -6),
])
def test_a_failed_container_is_its_local_rank_with_its_exit_status(line, local, code):
    assert _exits(line) == [("paddle_container", None, local, code)]


@pytest.mark.parametrize(("line", "ranks"), [
    (_abort("[3]"), [3]),
    ("2021-06-01 12:00:00 ERROR launch_utils.py:627 - " + _abort("[12]", 16), [12]),
    # several found ended at one poll (the list is Python's repr; Paddle's docs write it unspaced): one event each
    ("ERROR 2021-05-16 22:14:00,649 launch_utils.py:545] " + _abort("[1, 2, 3]", 4), [1, 2, 3]),
    ("ERROR 2019-12-12 04:02:41,061 launch.py:269] " + _abort("[2, 0]", 4), [0, 2]),  # Paddle 1.6's launch.py
    ("ERROR 2020-11-30 13:01:49,988 utils.py:413] " + _abort("[0, 1]", 2), [0, 1]),  # the fleet launcher's utils.py
    ('"' + _abort("[2,3]") + '".', [2, 3]),
])
def test_the_legacy_launchers_aborted_trainers_are_their_global_ranks(line, ranks):
    assert _exits(line) == [("paddle_abort", r, None, None) for r in ranks]


@pytest.mark.parametrize("line", [
    _container(0, status="running", code=-1),  # the launcher's debug print of a container still running
    _container(0, status="completed", code=0),
    _abort("[]"),  # the launcher's own error before any trainer ended
    "LAUNCH ERROR 2022-11-21 02:35:54,385 Container failed !!!",  # the header says no one
    "the Container rank 0 status is failed, see the docs",
])
def test_lines_that_name_no_failed_process(line):
    assert not [e for e in classify(line) if e.get("subkind") in ("paddle_container", "paddle_abort")]


@pytest.mark.parametrize("line", [_container(0), _abort("[3]")])
def test_the_prefilter_lets_each_wording_through(line):
    assert re.search(PREFILTER_EVENT, line)


def _named(tmp_path, text: str, nproc: int | None, world: int | None):
    return named_in_paste(tmp_path, text, nproc, world, NOW)


NEW = ("LAUNCH INFO 2022-11-21 02:35:54,384 Pod failed\n"
       "LAUNCH ERROR 2022-11-21 02:35:54,385 Container failed !!!\n"
       "{container}\n"
       "LAUNCH INFO 2022-11-21 02:35:54,385 ------------------------- ERROR LOG DETAIL -------------------------\n")


@pytest.mark.parametrize(("text", "culprit", "cause"), [
    (NEW.format(container=_container(2)), [2], "python-exception"),
    (NEW.format(container=_container(5, code=-9)), [5], "host-oom-kill"),
    (NEW.format(container=_container(1, code=-11)), [1], "segfault"),
    (_abort("[3]", 4) + "\n", [3], "exit-unknown"),
])
def test_the_rank_paddles_launcher_names_is_the_culprit(tmp_path, text, culprit, cause):
    assert _named(tmp_path, text, 8, 8) == [("rank-failure", cause, culprit)]


GLOG = "W1212 04:02:33.403934 24044 init.cc:205] *** SIGSEGV (@0x0) received by PID 24044 (TID 0x7f6406bd7740) from PID 0; stack trace: ***\n"


@pytest.mark.parametrize(("text", "culprit", "cause"), [
    # a strict subset of the world the line states ended at one poll, the others polled alive: that subset, and the one
    # process's own fatal signal above it (its pid, no rank) says how
    (GLOG + "ERROR 2019-12-12 04:02:41,061 launch.py:269] " + _abort("[1, 3]", 4) + "\n", [1, 3], "segfault"),
    (_abort("[0, 1, 2, 3]", 4) + "\n", None, None),  # the whole world: every process alike, no single culprit
    # a node's every trainer (its launcher polls only its own), the other node unseen: one node alike, no proof its peers lived
    ("[node1] " + _abort("[4, 5, 6, 7]", 8) + "\n", None, None),
])
def test_trainers_aborted_at_one_poll_are_named_only_as_part_of_the_world(tmp_path, text, culprit, cause):
    assert _named(tmp_path, text, 4, 8) == ([("rank-failure", cause, culprit)] if culprit else [])


@pytest.mark.parametrize(("line", "pid", "code"), [
    ("W1212 04:02:33.403934 24044 init.cc:205] *** SIGSEGV (@0x0) received by PID 24044 (TID 0x7f6406bd7740) from PID 0; "
     "stack trace: ***", 24044, -11),  # glog's failure signal handler (Paddle 1.x)
    ("  [SignalInfo: *** SIGSEGV (@0x0) received by PID 18581 (TID 0x7f103bc4a700) from PID 0 ***]", 18581, -11),  # Paddle 2.x
    ("[SignalInfo: *** SIGBUS (@0x7f5e2c000000) received by PID 4278 (TID 0x7f5e) from PID 0 ***]", 4278, -7),
    ("*** SIGABRT (@0x3e800001c5b) received by PID 7259 (TID 0x7f8a) from PID 7259; stack trace: ***", 7259, -6),
    ("*** SIGFPE (@0x7f1b5c0d3e4a) received by PID 311 (TID 0x7f1b) from PID 1543814730; stack trace: ***", 311, -8),
    ("*** SIGSEGV (@0x0) received by PID xxxxxx (TID 0x7f6406bd7740) from PID xxxxxx; stack trace: ***", None, -11),  # redacted
])
def test_glogs_fatal_signal_is_its_pids_exit_on_that_signal(line, pid, code):
    assert [(e["subkind"], e.get("pid"), e["exit_code"]) for e in classify(line)] == [("glog_signal", pid, code)]


@pytest.mark.parametrize("line", [
    "  [SignalInfo: *** SIGTERM (@0x3fe) received by PID 1164 (TID 0x7f6cf1fc6700) from PID 1022 ***]",  # its launcher's teardown
    "W1212 04:02:33.400863 24044 init.cc:205] *** Aborted at 1576123353 (unix time) try \"date -d @1576123353\" ***",
    "Signal 6 (SIGABRT) received by PID 4242",  # torch elastic's failure table (log_failure_table.py)
])
def test_lines_that_are_no_glog_fault_of_their_own(line):
    assert not [e for e in classify(line) if e.get("subkind") == "glog_signal"]
