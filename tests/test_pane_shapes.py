"""Readers of what a cluster UI's log pane or download hands a user (tests/pane_shapes.py: the Kubernetes Dashboard's
``logs-from-<container>-in-<pod>.txt`` with and without its timestamps, Lens's pod log pane copied with its timestamps,
a Kubeflow Pipelines v2 step's log pane, a Databricks TorchDistributor driver's output): the formats on a few lines; a sample of recorded runs read in one analysis.
The whole sweep: ``tests/tools/score_export_shapes.py --family pane``."""

from __future__ import annotations

import pytest

import pane_shapes
from k10s_forensics.parsers.log_agents import agent_layout, interleaved

T = "2026-11-28T12:05:03.010223000Z"
_AGENT = "E1128 12:05:0{s}.000000 22363 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 9 closing signal SIGTERM"
_KFP = "I1128 12:05:0{s}.582509      27 launcher_v2.go:181] publish success."


def test_the_generator_is_deterministic_and_makes_every_shape():
    node = f"{T} [default0]:[rank0]: step 1\n{T} [default0]:[rank0]: KeyError: 'x'\n"
    assert pane_shapes.shapes([node, node], 1) == pane_shapes.shapes([node, node], 1)
    made = pane_shapes.shapes([node, node], 1)
    assert set(made) == set(pane_shapes.SHAPES)
    assert [rel for rel, _ in made["dashboard-log-download"]] == ["logs-from-pytorch-in-train-master-0.txt", "logs-from-pytorch-in-train-worker-0.txt"]
    assert made["lens-pane-timestamps"][0][1].startswith("2026-11-28T13:05:03+01:00 [default0]:[rank0]: step 1\n")
    assert made["dashboard-log-download-timestamps"][0][1].startswith(f"{T} [default0]")
    assert "The task output is included below: [default0]:[rank0]: step 1\n" in made["databricks-driver"][0][1]


@pytest.mark.parametrize("lines,layout", [
    # the KFP launcher's Go glog lines (a pid padded to seven columns, no torch path) between one torchrun agent's: one node
    ([_AGENT.format(s=1), _KFP.format(s=2), _AGENT.format(s=3), _KFP.format(s=4)], None),
    ([_KFP.format(s=1), _AGENT.format(s=2), _KFP.format(s=3)], None),
])
def test_a_kfp_launchers_glog_lines_are_no_torchrun_agent(lines, layout):
    lines = [f"[rank{r}]: step 4" for r in range(4)] + lines
    assert interleaved(lines) is False
    assert agent_layout(lines, 4) == layout


#: the task's error as the Spark driver prints it (PySpark's ``PythonException`` around TorchDistributor's ``RuntimeError``)
_DRIVER = ["PythonException: ", "  An exception was thrown from the Python worker. Please see the stack trace below.",
           "Traceback (most recent call last):",
           '  File "/databricks/spark/python/pyspark/ml/torch/distributor.py", line 585, in _run_training_on_pytorch_file',
           '  File "/databricks/spark/python/pyspark/ml/torch/distributor.py", line 547, in _execute_command', "    raise RuntimeError(",
           "RuntimeError: Command ['python', '-m', 'pyspark.ml.torch.torch_run_process_wrapper', '--nnodes=2', '--node_rank=1'] failed "
           "with return code 1. The last 100 lines of the task output are included below: [default0]:[rank2]: step 4"]


@pytest.mark.parametrize("lines,kinds", [
    (_DRIVER, []),  # the driver's relay and the distributor's own exception: no rank's
    # the same error raised in the script's own code: its exception
    ([_DRIVER[2], '  File "/Workspace/Users/dana/train.py", line 3, in <module>', "    main()", "RuntimeError: boom"], [("python_exception", None)]),
    (["Py4JJavaError: An error occurred while calling o412.collectToPython."], []),
    (["pyspark.errors.exceptions.captured.PythonException: "], []),
])
def test_a_spark_drivers_relay_of_a_task_error_is_no_ranks_exception(lines, kinds):
    import datetime as dt

    from parser_kit import body_events

    events = body_events(lines, dt.datetime(2026, 11, 30, tzinfo=dt.timezone.utc), prefiltered=False)
    assert [(e["kind"], e.get("rank")) for e in events] == kinds


def _with_reversed_download(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str]]]:
    made = pane_shapes.shapes(node_texts, nproc)
    return {**made, "dashboard-downloads-worker-first": made["dashboard-log-download"][::-1]}


#: recorded runs read in one analysis (tests/bundle_batch.py): the culprit on a worker node in the Dashboard's downloads
#: handed worker first (each file is one pod, whatever their order), on the master in a one-pod pane (KFP's; Lens's and the
#: Dashboard's with timestamps: the sweep);
#: a common-mode control through the Databricks driver (as generated, its relayed task error named the task's ranks)
SAMPLE = {"dashboard-downloads-worker-first": "2.13.0/t10-trun-weights-only-rank3",
          "kfp-step-log": "2.13.0/t17-trun-persistent-loader-rank1",
          "databricks-driver": "2.14.1/t7-trun-common-mode-dataset"}


@pytest.mark.slow
def test_a_recorded_run_reads_as_its_pod_logs_in_each_pane_shape(tmp_path):
    from torch_runs_kit import missed_shapes

    assert missed_shapes(_with_reversed_download, SAMPLE, tmp_path) == {}
