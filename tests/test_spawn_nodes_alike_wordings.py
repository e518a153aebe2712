"""srun's node launchers whose mp.spawn reports name one exception (queries/_incident_common_mode.sql ``spawn_nodes_alike``,
docs/rules.md "Real incidents batch 41"): where mp.spawn reports in a log body, srun's tasks are node launchers
(detectron2's ``launch`` on each machine); two or more of them exiting on their own, two or more spawn reports
and every raised exception the same is every node failing alike — no rank named. A different exception per node,
or one node's launcher only (a job run twice), still names the process."""

from __future__ import annotations

import pytest

from torch_runs_kit import findings_of_texts, named

PARENT = """Traceback (most recent call last):
  File "/repo/train_net.py", line 334, in <module>
    launch(
  File "/usr/lib/python3.9/site-packages/torch/multiprocessing/spawn.py", line 150, in join
    raise ProcessRaisedException(msg, error_index, failed_process.pid)
torch.multiprocessing.spawn.ProcessRaisedException: 

-- Process {proc} terminated with the following error:
Traceback (most recent call last):
  File "/usr/lib/python3.9/site-packages/torch/multiprocessing/spawn.py", line 59, in _wrap
    fn(i, *args)
  File "/repo/extra/atss.py", line 413, in inference
    boxes = self.inference_single_feature_map(
{error}
"""
#: a node's own TypeError (not a signature mismatch, which is every rank's since session 56)
TYPE_ERROR = "TypeError: 'NoneType' object is not subscriptable"
KEY_ERROR = "KeyError: 'image_sizes'"


def _paste(*reports: tuple[int, str, str]) -> str:
    """Each node's spawn report then srun's line for that node's task (``(process, error, srun line)``)."""
    return "".join(PARENT.format(proc=proc, error=error) + "\n" + srun + "\n" for proc, error, srun in reports) + "\nJob done.\n"


@pytest.mark.parametrize("reports", [
    [(3, TYPE_ERROR, "srun: error: gn22: task 0: Exited with exit code 1"),
     (3, TYPE_ERROR, "srun: error: gn30: task 1: Exited with exit code 1")],
    [(1, TYPE_ERROR, "srun: error: gpu07: task 1: Exited with exit code 1"),
     (1, TYPE_ERROR, "srun: error: gpu03: task 0: Exited with exit code 1"),
     (1, TYPE_ERROR, "srun: error: gpu05: task 2: Exited with exit code 1")],
    [(2, TYPE_ERROR, "srun: error: node-a: tasks 0-1: Exited with exit code 1"),
     (2, TYPE_ERROR, "")],
], ids=["same-process-two-nodes", "three-nodes", "srun-task-range"])
def test_every_node_launcher_reporting_one_exception_names_no_rank(tmp_path, reports):
    assert named(findings_of_texts(tmp_path, [_paste(*reports)])) == []


def test_a_different_exception_per_node_still_names_the_process(tmp_path):
    text = _paste((3, TYPE_ERROR, "srun: error: gn22: task 0: Exited with exit code 1"),
                  (3, KEY_ERROR, "srun: error: gn30: task 1: Exited with exit code 1"))
    assert named(findings_of_texts(tmp_path, [text])) != []


def test_one_node_launcher_run_twice_still_names_the_process(tmp_path):
    text = _paste((3, TYPE_ERROR, "srun: error: gn22: task 0: Exited with exit code 1"),
                  (3, TYPE_ERROR, "srun: error: gn22: task 0: Exited with exit code 1"))
    assert ("python-exception", [3]) in named(findings_of_texts(tmp_path, [text]))
