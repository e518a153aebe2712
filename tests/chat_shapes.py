"""What Docker Compose, an Airflow task and a Discord thread hand a user, made from one recorded run
(tests/data/torch-runs): the eighth family beside ``export_shapes``, ``launcher_shapes``, ``job_shapes``,
``session_shapes``, ``store_shapes``, ``platform_shapes`` and ``console_shapes``. ``shapes(node_texts, nproc)`` gives,
per shape, the files a user would hand to ``k10s import-logs`` (``[(relative path, text)]``). Deterministic. Pods,
container, namespace as ``export_shapes`` names them. Formats (each from the tool's docs, source or users' pastes in its
issues; searched, not copied):

* ``docker compose logs`` of a job run as one scaled service (``trainer``, one container a node): Compose v2 prefixes
  each line with the container's name without the project (``trainer-1``), padded to the widest name, then ``| ``;
  without ``-f`` the containers' logs come one after the other (``trainer-1``'s, then ``trainer-2``'s);
* ``docker compose logs -f --timestamps``: the containers' lines interleaved as they come, the engine's RFC 3339 nano
  time after the prefix (``trainer-2  | 2026-11-28T12:05:03.010223000Z <line>``);
* ``docker compose logs -f --timestamps --no-log-prefix``: the same lines with no prefix, the time alone in front:
  nothing on a line says which container wrote it;
* an Airflow task log of the KubernetesPodOperator that ran the job's master pod (``apache-airflow-providers-cncf-
  kubernetes``' ``pod_manager``: each container line logged as ``[base] <line>``, the UI's ``[YYYY-MM-DD, HH:MM:SS
  UTC] {file.py:lineno} LEVEL - message`` time, the operator's own lines around the pod's): one pod's log only;
* a Discord thread: each message headed ``<name> — Today at 10:42 PM``, a line of prose, then the ``kubectl logs
  --prefix`` output in a fenced code block; a message holds at most 2000 characters, so the log is cut into as many
  messages as it takes (each with its own fences), at line ends.
"""

from __future__ import annotations

from export_shapes import _dt, entries, pod_name
from export_shapes import CONTAINER, NS
from launcher_shapes import _join

SERVICE = "trainer"
#: Discord's limit on one message's characters
DISCORD_MAX = 2000


def _container(node: int) -> str:
    return f"{SERVICE}-{node + 1}"


def _prefix(node: int, nodes: int) -> str:
    width = max(len(_container(n)) for n in range(nodes))
    return _container(node).ljust(width + 1) + " | "


def compose_logs(es, nodes: int) -> str:
    return _join(_prefix(n, nodes) + line for node in range(nodes) for _, n, line in es if n == node)


def compose_follow(es, nodes: int, prefix: bool = True) -> str:
    return _join((_prefix(n, nodes) if prefix else "") + f"{t} {line}" for t, n, line in es)


def _airflow_time(t: str) -> str:
    return _dt(t).strftime("[%Y-%m-%d, %H:%M:%S UTC]")


def airflow(es) -> str:
    rows = [(t, line) for t, n, line in es if n == 0]
    first, last = (rows[0][0], rows[-1][0]) if rows else ("2026-11-28T12:00:00.000000Z",) * 2
    pod = pod_name(0)
    head = [f"{_airflow_time(first)} {{taskinstance.py:2614}} INFO - Dependencies all met for dep_context=requeueable deps "
            f"ti=<TaskInstance: train_llm.train manual__2026-11-28T12:00:00+00:00 [queued]>",
            f"{_airflow_time(first)} {{taskinstance.py:2867}} INFO - Starting attempt 1 of 1",
            f"{_airflow_time(first)} {{pod.py:1133}} INFO - Building pod {pod} with labels: {{'dag_id': 'train_llm', "
            f"'task_id': 'train', 'kubernetes_pod_operator': 'True', 'try_number': '1'}}",
            f"{_airflow_time(first)} {{pod_manager.py:393}} INFO - Pod {pod} has phase Pending",
            f"{_airflow_time(first)} {{pod_manager.py:393}} INFO - Pod {pod} has phase Running"]
    body = [f"{_airflow_time(t)} {{pod_manager.py:471}} INFO - [base] {line}" for t, line in rows]
    tail = [f"{_airflow_time(last)} {{pod_manager.py:611}} INFO - Pod {pod} has phase Failed",
            f"{_airflow_time(last)} {{pod.py:1095}} INFO - Deleting pod: {pod}",
            f"{_airflow_time(last)} {{taskinstance.py:3310}} ERROR - Task failed with exception",
            "Traceback (most recent call last):",
            '  File "/home/airflow/.local/lib/python3.12/site-packages/airflow/providers/cncf/kubernetes/operators/pod.py", '
            "line 660, in execute_sync",
            "    self.cleanup(",
            f"airflow.exceptions.AirflowException: Pod {pod} returned a failure.",
            f"{_airflow_time(last)} {{taskinstance.py:1225}} INFO - Marking task as FAILED. dag_id=train_llm, task_id=train",
            f"{_airflow_time(last)} {{local_task_job_runner.py:266}} INFO - Task exited with return code 1"]
    return _join(head + body + tail)


def discord(es) -> str:
    lines = [f"[pod/{pod_name(n)}/{CONTAINER}] {line}" for _, n, line in es]
    messages, cur = [], []
    for line in lines:
        if cur and sum(len(x) + 1 for x in cur) + len(line) + 8 > DISCORD_MAX - 80:
            messages.append(cur)
            cur = []
        cur.append(line[:DISCORD_MAX - 100])
    messages.append(cur)
    out = []
    for i, part in enumerate(messages):
        words = f"kubectl logs of the {NS} job, part {i + 1} of {len(messages)}" + (" — which rank died first?" if i == len(messages) - 1 else "")
        out += [f"Dana Kim — Today at 10:{42 + i % 17:02d} PM", words, "```", *part, "```", ""]
    return _join(out)


SHAPES = ("compose-logs", "compose-logs-timestamps", "compose-no-log-prefix", "airflow-kpo-task-log", "discord-paste")


def shapes(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first)."""
    es, nodes = entries(node_texts), len(node_texts)
    return {
        "compose-logs": [("compose.log", compose_logs(es, nodes))], "compose-logs-timestamps": [("compose.log", compose_follow(es, nodes))],
        "compose-no-log-prefix": [("compose.log", compose_follow(es, nodes, prefix=False))],
        "airflow-kpo-task-log": [("attempt=1.log", airflow(es))], "discord-paste": [("discord.txt", discord(es))],
    }


__all__ = ["SHAPES", "shapes"]
