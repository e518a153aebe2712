"""Readers of what Docker Compose, an Airflow task and a Discord thread hand a user (tests/chat_shapes.py: ``docker compose
logs`` with and without ``--timestamps`` and ``--no-log-prefix``, a KubernetesPodOperator's task log, a Discord paste),
each on a few lines of its format; a sample of recorded runs read in one analysis. The whole sweep:
``tests/tools/score_export_shapes.py --family chat``."""

from __future__ import annotations

import pytest

import chat_shapes
from k10s_forensics.parsers.log_airflow import airflow_text
from k10s_forensics.parsers.log_launcher_prefix import split_launcher

T = "2026-11-28T12:05:03.010223000Z"


def test_the_generator_is_deterministic_and_makes_every_shape():
    node = f"{T} [default0]:[rank0]: step 1\n{T} [default0]:[rank0]: KeyError: 'x'\n"
    assert chat_shapes.shapes([node, node], 1) == chat_shapes.shapes([node, node], 1)
    assert set(chat_shapes.shapes([node], 1)) == set(chat_shapes.SHAPES)


#: two containers of one service, each a node of two processes; ``trainer-1`` holds ranks 2 and 3 (Compose numbers
#: its containers as they start, not as the job ranks its nodes)
COMPOSE = ["trainer-2  | [default0]:[rank0]: step 4", "trainer-1  | [default0]:[rank2]: step 4",
           "trainer-1  | [default1]:[rank3]: KeyError: 'labels'", "trainer-2  | [default1]:[rank1]: step 4",
           "trainer-1  | E1128 12:05:03.300000 77 torch/distributed/elastic/multiprocessing/api.py:1] failed (exitcode: 1) "
           "local_rank: 1 (pid: 80) of binary: python"]


@pytest.mark.parametrize("lines", [
    COMPOSE,
    [line.replace("  | ", f"  | {T} ") for line in COMPOSE],  # --timestamps: the engine's time behind the bar
    [line.replace("trainer-", "train_trainer_") for line in COMPOSE],  # Compose v1's names
])
def test_compose_logs_are_split_by_container_in_the_order_of_their_ranks(lines):
    logs, how = split_launcher("compose.log", "\n".join(lines) + "\n")
    assert how.startswith("compose logs: one node per task (2: ")
    assert [t.split("\n")[0].rsplit("] ", 1)[-1][-6:] for _, t in logs] == ["step 4", "step 4"]
    assert ["[rank0]" in t and "[rank1]" in t for _, t in logs] == [True, False]
    assert ["KeyError" in t for _, t in logs] == [False, True]


def test_one_container_has_its_prefix_taken_off():
    logs, how = split_launcher("compose.log", "".join(f"trainer-1  | [default{i % 2}]:[rank{i % 2}]: step {i}\n" for i in range(4)))
    assert how == "compose logs: one task (trainer-1), its tag taken off"
    assert logs[0][1].split("\n")[0] == "[default0]:[rank0]: step 0"


@pytest.mark.parametrize("text", [
    "".join(f"epoch-{i}  | loss 0.{i}\n" for i in range(3)) + "".join(f"step {i} | lr 1e-4\n" for i in range(9)),  # a table, rarely tagged
    "".join(f"[default{i % 2}]:[rank{i % 2}]: step {i} | loss 0.1\n" for i in range(6)),  # a bar inside torch's lines
])
def test_a_bar_that_is_no_compose_prefix_leaves_the_log_whole(text):
    assert split_launcher("train.log", text) is None


KPO = ("[2026-11-28, 12:05:01 UTC] {taskinstance.py:2867} INFO - Starting attempt 1 of 1\n"
       "[2026-11-28, 12:05:01 UTC] {pod_manager.py:393} INFO - Pod train-master-0 has phase Running\n"
       "[2026-11-28, 12:05:02 UTC] {pod_manager.py:471} INFO - [base] [default1]:[rank1]: step 4\n"
       "[2026-11-28, 12:05:03 UTC] {pod_manager.py:471} INFO - [base] [default1]:[rank1]: KeyError: 'labels'\n"
       "[2026-11-28, 12:05:04 UTC] {taskinstance.py:3310} ERROR - Task failed with exception\n"
       "Traceback (most recent call last):\n"
       "airflow.exceptions.AirflowException: Pod train-master-0 returned a failure.\n")


@pytest.mark.parametrize("text,want", [
    (KPO, ["2026-11-28T12:05:02Z [default1]:[rank1]: step 4", "2026-11-28T12:05:03Z [default1]:[rank1]: KeyError: 'labels'"]),
    # the file as the worker wrote it: the time with milliseconds and an offset
    (KPO.replace("[2026-11-28, 12:05:02 UTC]", "[2026-11-28T12:05:02.281+0000]"),
     ["2026-11-28T12:05:02.281Z [default1]:[rank1]: step 4", "2026-11-28T12:05:03Z [default1]:[rank1]: KeyError: 'labels'"]),
    # container_logs=True: a sidecar's lines beside base's, base's kept
    (KPO + "[2026-11-28, 12:05:04 UTC] {pod_manager.py:471} INFO - [istio-proxy] Envoy proxy is ready\n",
     ["2026-11-28T12:05:02Z [default1]:[rank1]: step 4", "2026-11-28T12:05:03Z [default1]:[rank1]: KeyError: 'labels'"]),
    (KPO.replace("[base]", "[trainer]"), ["2026-11-28T12:05:02Z [default1]:[rank1]: step 4",
                                          "2026-11-28T12:05:03Z [default1]:[rank1]: KeyError: 'labels'"]),
])
def test_an_airflow_task_log_keeps_the_pods_lines_only(text, want):
    assert airflow_text(text) == "\n".join(want) + "\n"


@pytest.mark.parametrize("text", [
    "[base] [rank1]: KeyError: 1\n",  # no Airflow record
    "[2026-11-28, 12:05:01 UTC] {pod_manager.py:393} INFO - Pod train-master-0 has phase Running\n",  # no container line
    "\n".join([KPO.split("\n")[2]] + ["[rank1]: step"] * 4) + "\n",  # Airflow's records a few among other lines
])
def test_a_text_that_is_no_pod_operators_task_log_is_left(text):
    assert airflow_text(text) is None


#: one recorded run for each shape a reader was changed for (as generated, each named a wrong rank), read in one
#: analysis (tests/bundle_batch.py); every shape on a sample of runs: the scoring tool's sweep (--family chat)
SAMPLE = {"compose-logs": "2.14.1/t7-trun-4x1-cgroup-oom-rank3", "compose-logs-timestamps": "2.13.0/t10-trun-weights-only-rank3",
          "airflow-kpo-task-log": "2.14.1/t9-mpi-4-sigstop-rank2"}


@pytest.mark.slow
def test_a_recorded_run_reads_as_its_pod_logs_in_each_chat_shape(tmp_path):
    from torch_runs_kit import missed_shapes

    assert missed_shapes(chat_shapes.shapes, SAMPLE, tmp_path) == {}
