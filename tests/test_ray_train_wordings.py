"""Ray Train's trainer on a worker of its group that died (real incidents batch 22, ray-47461):
``(TorchTrainer pid=89392) Worker 0 has failed.`` — the worker's index in its group, which is its world
rank. How it ended is not said (the raylet's ``Worker exit type: SYSTEM_ERROR`` beside it, when pasted,
says it was killed from outside): the rank is named, its cause ``exit-unknown`` unless that report
places the death on the same rank.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from incident_kit import named_in_paste
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.timezone.utc)


def _failed(line: str) -> list[int]:
    return [e["rank"] for e in classify(line) if e.get("subkind") == "ray_train_worker_failed"]


@pytest.mark.parametrize(("line", "rank"), [
    ("(TorchTrainer pid=89392) Worker 0 has failed.", 0),
    ("(TorchTrainer pid=89392) Worker 0 has failed." + " " * 97, 0),  # a progress bar's redraw after it
    ("\x1b[2m\x1b[36m(TorchTrainer pid=1)\x1b[0m Worker 3 has failed.", 3),  # Ray's colours
    ("(RayTrainWorker pid=1942, ip=100.97.252.234) Worker 1 has failed.", 1),
    ("2023-01-17 17:21:35,472\tINFO utils.py:35 -- Worker 12 has failed.", 12),  # the driver's own logger
    ("Worker 7 has failed.", 7),
])
def test_the_failed_worker_is_its_world_rank(line, rank):
    assert _failed(line) == [rank]
    assert re.search(PREFILTER_EVENT, line)


@pytest.mark.parametrize("line", [
    "Worker 0 has failed. Restarting from the last checkpoint",  # not the report's own line
    "Worker group has failed.",
    "the worker 0 has failed.",
    "Worker 0 has failed to start: no GPU",
    "MyWorker 3 has failed.",
])
def test_other_sentences_name_no_worker(line):
    assert _failed(line) == []


def _named(tmp_path, text: str, nproc: int | None, world: int | None):
    return named_in_paste(tmp_path, text, nproc, world, NOW)


@pytest.mark.parametrize(("rank", "nproc", "world"), [(2, 4, 4), (0, 4, 4), (5, 4, 8), (3, 1, 4)])
def test_the_reported_worker_is_named_how_unknown(tmp_path, rank, nproc, world):
    text = f"(TorchTrainer pid=1) Worker {rank} has failed.\n"
    assert _named(tmp_path, text, nproc, world) == [("rank-failure", "exit-unknown", [rank])]


def test_two_workers_reported_together_name_no_one(tmp_path):
    text = "(TorchTrainer pid=1) Worker 0 has failed.\n(TorchTrainer pid=1) Worker 1 has failed.\n"
    assert _named(tmp_path, text, 4, 4) == []


RAYLET = ("(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the "
          "problem, check the logs for the dead worker. Worker PID: 89513 Worker exit type: SYSTEM_ERROR Worker exit detail: "
          "Worker unexpectedly exits with a connection error code 2. End of file.")


def test_beside_the_raylets_report_in_a_pod_of_many_ranks_the_rank_is_named(tmp_path):
    """The raylet's dead pid belongs to no rank the paste names: the trainer's report alone places the failure."""
    assert _named(tmp_path, RAYLET + "\n(TorchTrainer pid=89392) Worker 0 has failed.\n", 4, 4) == [("rank-failure", "exit-unknown", [0])]
