"""What ``stern``'s JSON outputs, Rancher's pod log download and srun's per-node files hand a user, made from one recorded run
(tests/data/torch-runs): the thirteenth family beside ``export_shapes``, ``launcher_shapes``, ``job_shapes``,
``session_shapes``, ``store_shapes``, ``platform_shapes``, ``console_shapes``, ``chat_shapes``, ``viewer_shapes``,
``tracker_shapes``, ``pane_shapes`` and ``follow_shapes``. ``shapes(node_texts, nproc)`` gives, per shape, the files a
user would hand to ``k10s import-logs`` (``[(relative path, text)]``). Deterministic. Pods, container, namespace as
``export_shapes`` names them. Formats (each from the tool's source; searched, not copied):

* ``stern train --output json > stern.json`` (stern/stern ``cmd/cmd.go``: the predefined template ``{{json .}}`` of
  the ``Log`` it fills per line in ``stern/tail.go``): one object per line, ``{"message", "nodeName", "namespace",
  "podName", "containerName"}`` in the struct's order, Go's ``encoding/json`` escaping (``<``, ``>``, ``&`` as
  ``\\u003c`` …, no ASCII escaping of other characters), the pods' lines interleaved as they come;
* ``stern train --output ppextjson > stern.json`` (same source): every line a pretty-printed object over five lines,
  ``{`` / ``  "pod": "<pod>",`` / ``  "container": "<container>",`` / ``  "message": <message>`` / ``}``, the message
  through the ``extjson`` function: a line that is valid JSON on its own (a bare number, ``null``, a JSON log record)
  written as it is, any other as a Go JSON string; the objects one after another, not in an array; colour ``auto``
  writes no escape codes into a file;
* Rancher's pod log window, its download button (rancher/dashboard ``ContainerLogs.vue``: ``<pod>_<container>.log``,
  the pod log API with ``previous`` and ``pretty`` but no ``timestamps``): one file per pod, the container's lines as the
  kubelet keeps them, no time. (The window's time column is ``user-select: none``: a copy of the window is the lines
  alone, the one-pod log already read.)
* Slurm's ``srun --ntasks-per-node=1 --output=%N-%t.out torchrun …`` (srun(1), "filename pattern": ``%N`` the short
  host name, ``%t`` the task id): one file per node, ``<host>-<task>.out``, the lines as torchrun wrote them. srun numbers
  its tasks in the allocation's host order, while torchrun's c10d rendezvous gives the node ranks in the order the
  agents joined: here the reverse, so the files' name order is not the ranks' (task 0 on ``nid001200`` ran the last
  node's ranks).
"""

from __future__ import annotations

import json

from export_shapes import CONTAINER, NS, entries, pod_name
from launcher_shapes import _join

#: the node each pod ran on, as the scheduler named it
_NODE = "gpu-node-{}"


def go_json(text: str) -> str:
    """A string as Go's ``json.Marshal`` writes it (HTML-safe escapes, non-ASCII kept)."""
    out = json.dumps(text, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return out.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\\b", "\\u0008").replace("\\f", "\\u000c")


def _valid_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return text.strip() == text and bool(text)


def stern_json(es) -> str:
    return _join("{" + f'"message":{go_json(line)},"nodeName":{go_json(_NODE.format(n))},"namespace":{go_json(NS)},'
                 f'"podName":{go_json(pod_name(n))},"containerName":{go_json(CONTAINER)}' + "}" for _, n, line in es)


def stern_ppextjson(es) -> str:
    def message(line: str) -> str:
        return line if _valid_json(line) else go_json(line)
    return _join(f'{{\n  "pod": "{pod_name(n)}",\n  "container": "{CONTAINER}",\n  "message": {message(line)}\n}}' for _, n, line in es)


def rancher_download(es) -> list[tuple[str, str]]:
    nodes = sorted({n for _, n, _ in es})
    return [(f"{pod_name(n)}_{CONTAINER}.log", _join(line for _, m, line in es if m == n)) for n in nodes]


def srun_node_task_files(es) -> list[tuple[str, str]]:
    nodes = sorted({n for _, n, _ in es})
    task = {n: len(nodes) - 1 - i for i, n in enumerate(nodes)}
    return sorted((f"nid{1200 + 8 * task[n]:06d}-{task[n]}.out", _join(line for _, m, line in es if m == n)) for n in nodes)


SHAPES = ("stern-json", "stern-ppextjson", "rancher-log-download", "srun-output-host-task")


def shapes(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first)."""
    es = entries(node_texts)
    return {"stern-json": [("stern.json", stern_json(es))], "stern-ppextjson": [("stern-pp.json", stern_ppextjson(es))],
            "rancher-log-download": rancher_download(es), "srun-output-host-task": srun_node_task_files(es)}


__all__ = ["SHAPES", "shapes"]
