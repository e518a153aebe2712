"""PaddlePaddle's launchers (parsers/log_launchers.py, real incidents batch 19): the new
``paddle.distributed.launch`` names its node's first failed worker by its index in the pod (the
local rank) with its exit status; the legacy launcher names the global ranks it found dead at one
poll, without a status. Each wording is read as its event; the rules then name (or do not name)
the rank.
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


@pytest.mark.parametrize(("line", "rank"), [
    (_abort("[3]"), 3),
    ("2021-06-01 12:00:00 ERROR launch_utils.py:627 - " + _abort("[12]", 16), 12),
])
def test_the_legacy_launchers_one_aborted_trainer_is_its_global_rank(line, rank):
    assert _exits(line) == [("paddle_abort", rank, None, None)]


@pytest.mark.parametrize("line", [
    _container(0, status="running", code=-1),  # the launcher's debug print of a container still running
    _container(0, status="completed", code=0),
    _abort("[1, 3]"),  # two found dead at one poll: they failed together
    _abort("[]"),
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


def test_two_trainers_aborted_at_one_poll_name_no_one(tmp_path):
    assert _named(tmp_path, _abort("[1, 3]", 4) + "\n", 4, 4) == []
