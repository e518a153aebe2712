"""Cloud ML Engine / AI Platform Training's logs (parsers: ``log_export_consoles.logs_viewer``, ``log_exports``,
``log_pod_prefix.CMLE_TASK``, ``log_failures``; real incidents batch 49): an entry copied from the Cloud console's
Logs Viewer is read between its two braces, its task label (``ml.googleapis.com/task_name``) the pod of its message;
a job of worker tasks only lays each task out at its TF_CONFIG index (``worker-replica-3`` is rank 3); the runner's
``Command '['python', '-m', …]' returned non-zero exit status -9`` is that process's exit status."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_archive import PER_PROCESS
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_exports import read_export, split_export
from k10s_forensics.parsers.log_pod_prefix import node_ranks

MESSAGE = "Command '['python', '-m', u'trainer.task', '--job-dir', u'gs://b/j']' returned non-zero exit status -9"


def _entry(task: str, message: str = MESSAGE, payload: str = "jsonPayload") -> str:
    body = (f'  message:  "{message}"   \n  pathname:  "/runcloudml.py"   \n }}\n' if payload == "jsonPayload"
            else "")
    head = (f" jsonPayload: {{\n  levelname:  \"ERROR\"   \n{body}" if payload == "jsonPayload"
            else f' textPayload:  "{message}"  \n')
    return ("{\n" + ' insertId:  "tfdl1gg1hisuso"  \n' + head + " labels: {\n"
            '  compute.googleapis.com/resource_name:  "cmle-training-worker-7bc72ccf46-0-qz5zj"   \n'
            f'  ml.googleapis.com/task_name:  "{task}"   \n }}\n'
            f' logName:  "projects/p/logs/{task}"  \n resource: {{\n  labels: {{…}}   \n  type:  "ml_job"   \n }}\n'
            ' severity:  "ERROR"  \n timestamp:  "2018-04-30T15:17:18.307528972Z"  \n}\n')


@pytest.mark.parametrize(("text", "pods"), [
    (_entry("worker-replica-0"), ["worker-replica-0"]),
    (_entry("worker-replica-2", payload="textPayload"), ["worker-replica-2"]),
    ("the job failed:\n" + _entry("worker-replica-1") + _entry("master-replica-0", "Module completed"), ["worker-replica-1", "master-replica-0"]),
])
def test_a_logs_viewer_entry_is_its_message_on_its_task(text, pods):
    what, records = read_export(text)
    assert what == "Cloud Logging entries (Logs Viewer)"
    assert [r.pod for r in records if not isinstance(r, str)] == pods
    assert [r.text for r in records if not isinstance(r, str)][0] == MESSAGE


@pytest.mark.parametrize("text", [
    '{\n insertId:  "x"  \n labels: {\n  a: {\n}\n',  # an object never closed: the entry is not certain
    ' insertId:  "x"  \n textPayload:  "y"  \n',  # no braces: no entry
    '{\n insertId:  "x"  \n some prose in between\n}\n',  # a line that is no field
])
def test_what_is_no_certain_entry_is_not_read_as_one(text):
    found = read_export(text)
    assert found is None or not [r for r in found[1] if not isinstance(r, str)]


@pytest.mark.parametrize(("pods", "ranks"), [
    (["master-replica-0", "worker-replica-0", "worker-replica-1"], [0, 1, 2]),  # a Kubeflow TFJob's master-0, worker-i: i + 1
    (["worker-replica-10", "worker-replica-2"], [10, 2]),  # workers only: the index
    (["ps-replica-0", "worker-replica-0"], [0, 1]),  # a parameter server: no rank of its own, the order
])
def test_cmle_tasks_are_numbered_as_kubeflows_pods(pods, ranks):
    assert node_ranks(pods) == ranks


def test_worker_tasks_alone_are_one_process_each_at_their_index():
    logs, _, how = split_export([("entry.txt", _entry("worker-replica-3"))], "imported")
    assert how.startswith(PER_PROCESS) and len(logs) == 4
    assert [bool(body) for _, body in logs] == [False, False, False, True] and logs[3][1].endswith(MESSAGE)


@pytest.mark.parametrize(("line", "code"), [
    (MESSAGE, -9),
    ('  message:  "' + MESSAGE.replace("-9", "1") + '"   ', 1),
    ("E  master-replica-0 Command '['python3', '-m', 'object_detection.train', '--train_dir=gs://v']' returned non-zero exit "
     "status 1  master-replica-0", 1),
    ("Command '['/usr/bin/python3.7', '-m', 'trainer.task']' returned non-zero exit status -11", -11),
])
def test_the_runners_command_exit_is_its_process_exit(line, code):
    assert [(e["subkind"], e["exit_code"]) for e in classify(line) if e["kind"] == "process_exit"] == [("runner_command", code)]


@pytest.mark.parametrize("line", [
    "Command '['ninja', '-v']' returned non-zero exit status 1.",  # a build tool's, in a traceback: not a training process
    "subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=3']' returned non-zero exit status 1.",
])
def test_other_commands_are_not_the_runners(line):
    assert not [e for e in classify(line) if e.get("subkind") == "runner_command"]
