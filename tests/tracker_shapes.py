"""What an experiment tracker's console, a log dashboard's CSV report and a cloud console's log viewer hand a user, made
from one recorded run (tests/data/torch-runs): the tenth family beside ``export_shapes``, ``launcher_shapes``,
``job_shapes``, ``session_shapes``, ``store_shapes``, ``platform_shapes``, ``console_shapes``, ``chat_shapes`` and
``viewer_shapes``. ``shapes(node_texts, nproc)`` gives, per shape, the files a user would hand to ``k10s import-logs``
(``[(relative path, text)]``). Deterministic. Pods, container, namespace as ``export_shapes`` names them. Formats (each
from the tool's source, docs or users' pastes; searched, not copied):

* ClearML's console of the job's task copied from the web UI (one task per node, each node's agent pulled its own
  clone: the user copies the master's): clearml-agent's header (``task <id> pulled from <queue id> by worker
  <host>:gpu0,1``, its configuration dump cut short, ``Executing task id [<id>]:`` and the repository's fields,
  ``Environment setup completed successfully``, ``Starting Task Execution:``), the SDK's ``ClearML results page:
  https://app.clear.ml/projects/<id>/experiments/<id>/output/log`` line, then the master node's own output as it
  printed it (the web console shows no kubelet time): one node's log only;
* OpenSearch Dashboards' Discover saved search (``@timestamp``, ``kubernetes.pod_name``, ``log`` selected) exported
  with Reporting's *Generate CSV*: a header of the field names, json-2-csv's quoting (a value quoted only where it
  holds a comma, a quote or a line break), the search's sort, the newest first, the time in Dashboards' ``dateFormat``
  (``Nov 28, 2026 @ 13:05:03.281``) and the viewer's zone (UTC+1);
* a Google Cloud console copy of a Vertex AI custom job's logs (Logs Explorer opened from the job's *View logs*, the rows
  selected and copied): each row the severity icon's text (``error``, ``info``), the time in the viewer's zone with its
  abbreviation (``2026-11-28 13:05:03.281 CET``), the replica's summary chip (``workerpool0-0`` for the chief,
  ``workerpool1-<i>`` for the workers), the message; tab-separated, the newest last (the explorer's default order).
"""

from __future__ import annotations

import csv
import datetime as dt
import io

from export_shapes import _dt, _hex, entries, pod_name
from launcher_shapes import _join
from store_shapes import _stream

#: the viewer's zone (Central European Time in November: UTC+1)
VIEWER = dt.timezone(dt.timedelta(hours=1))


def _task_id(es) -> str:
    return _hex("".join(line for _, _, line in es[:8]), 32)


def clearml_console(es) -> str:
    task, queue = _task_id(es), _hex("gpu-queue", 32)
    head = [f"task {task} pulled from {queue} by worker gpu-node-0:gpu0,1",
            "Current configuration (clearml_agent v1.9.2, location: /tmp/.clearml_agent.8g1hs2uk.cfg):",
            "----------------------", "api.version = 1.5", "api.verify_certificate = true", "api.web_server = https://app.clear.ml",
            "", f"Executing task id [{task}]:", "repository = https://github.com/team-a/llm-train.git", "branch = main",
            "version_num = 3f1c2a9", "tag = ", "docker_cmd = nvcr.io/nvidia/pytorch:24.05-py3", "entry_point = train.py",
            "working_dir = .", "", "Environment setup completed successfully", "", "Starting Task Execution:", "",
            f"ClearML results page: https://app.clear.ml/projects/{_hex('llm', 32)}/experiments/{task}/output/log"]
    return _join(head + [line for _, n, line in es if n == 0])


def _dashboards_time(t: str) -> str:
    d = _dt(t).astimezone(VIEWER)
    return d.strftime("%b ") + f"{d.day}, {d.year} @ " + d.strftime("%H:%M:%S.") + f"{d.microsecond // 1000:03d}"


def opensearch_csv(es) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    w.writerow(["@timestamp", "kubernetes.pod_name", "log"])
    newest = sorted(enumerate(es), key=lambda ie: (_dt(ie[1][0]), ie[0]), reverse=True)
    w.writerows([_dashboards_time(t), pod_name(n), line] for _, (t, n, line) in newest)
    return buf.getvalue()


def _replica(node: int) -> str:
    return "workerpool0-0" if node == 0 else f"workerpool1-{node - 1}"


def vertex_console(es) -> str:
    def row(t: str, n: int, line: str) -> str:
        d = _dt(t).astimezone(VIEWER)
        stamp = d.strftime("%Y-%m-%d %H:%M:%S.") + f"{d.microsecond // 1000:03d} CET"
        return f"{'error' if _stream(line) == 'stderr' else 'info'}\t{stamp}\t{_replica(n)}\t{line}"
    return _join(row(t, n, line) for t, n, line in es)


SHAPES = ("clearml-console", "opensearch-report-csv", "vertex-console-copy")


def shapes(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first)."""
    es = entries(node_texts)
    return {"clearml-console": [("clearml-console.txt", clearml_console(es))],
            "opensearch-report-csv": [("on-demand-report.csv", opensearch_csv(es))],
            "vertex-console-copy": [("vertex-logs.txt", vertex_console(es))]}


__all__ = ["SHAPES", "shapes"]
