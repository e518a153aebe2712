"""What log consoles that show the newest line first, ML platforms' own log commands and OpenShift's inspect hand a
user, made from one recorded run (tests/data/torch-runs): the seventh family beside ``export_shapes``,
``launcher_shapes``, ``job_shapes``, ``session_shapes``, ``store_shapes`` and ``platform_shapes``. ``shapes(node_texts,
nproc)`` gives, per shape, the files a user would hand to ``k10s import-logs`` (``[(relative path, text)]``).
Deterministic. Pods, container, namespace as ``export_shapes`` names them. Formats (each from the tool's docs, source or
users' pastes in its issues; searched, not copied):

* Google Cloud Logging's Logs Explorer, the rows selected and copied: newest first (the query's default order), each
  row its timestamp as the console shows it (``2026-11-28 12:05:03.281 UTC``) and the entry's text; the severity is an
  icon and copies as nothing, and a ``k8s_container`` entry's summary names no pod;
* the message column alone, newest first, as a user copies it from Kibana Discover or Grafana Explore (Loki) with the
  time hidden: nothing on a line but the program's text, nothing that orders it;
* CloudWatch Logs Insights' results table copied from the console (tab-separated, a ``#`` column, the query's fields
  ``@timestamp`` ``YYYY-MM-DD HH:MM:SS.mmm``, ``@message``, ``@logStream``; ``sort @timestamp desc``): Container
  Insights' Fluent Bit writes each line as its JSON record (``log``, ``stream``, ``kubernetes``), the stream
  ``<pod>_<namespace>_<container>-<container id>.log`` behind the node's name;
* Determined ``det trial logs <id>`` (users' pastes in determined-ai/determined issues): ``[<RFC 3339 µs>Z] <container
  id, 8 hex> [rank=<R>] || <line>`` for a worker's line (the launcher wraps each worker with ``wrap_rank``, so torchrun's
  own ``[default<i>]:`` tags are gone; a recorded line with no tag names its worker only by torch's ``[rank<R>]:``),
  ``[<time>] <container id> || <line>`` for what the container wrote itself (torchrun's agent, an untagged worker
  line), and the master's ``[<time>]          || INFO: Scheduling Trial …`` lines; the containers' lines
  interleaved in time;
* Run:ai ``runai training pytorch logs train`` (run-ai/docs ``runai_training_*_logs``: "--pod … default: master (0-0)"),
  as ``runai workspace logs`` reads its one pod: the master pod's log only, plain, saved to a file;
* OpenShift: ``oc logs`` is kubectl's output (the other families have it); ``oc adm inspect ns/team-a`` (what ``oc adm
  must-gather`` runs per namespace) writes each container's log with the kubelet's time to
  ``inspect.local.<n>/namespaces/<ns>/pods/<pod>/<container>/<container>/logs/current.log``.
"""

from __future__ import annotations

import json
import re

from export_shapes import CONTAINER, NS, _dt, _hex, _k8s, entries, pod_name
from launcher_shapes import _join

_DEFAULT = re.compile(r"^\[default(\d{1,3})\]:")
_RANK = re.compile(r"^\[rank(\d{1,7})\]:")


def _newest_first(es):
    """(time, node, line) newest first; lines of one instant keep their written order reversed, as the console lists them."""
    return list(reversed(es))


def _console_time(t: str) -> str:
    d = _dt(t)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + f"{d.microsecond // 1000:03d}"


def logs_explorer(es) -> str:
    return _join(f"{_console_time(t)} UTC\t{line}" for t, _, line in _newest_first(es))


def messages_only(es) -> str:
    return _join(line for _, _, line in _newest_first(es))


def _stream_name(node: int) -> str:
    return f"{pod_name(node)}_{NS}_{CONTAINER}-{_hex(pod_name(node) + 'c', 64)}.log"


def cloudwatch_table(es) -> str:
    rows = ["#\t@timestamp\t@message\t@logStream"]
    for i, (t, n, line) in enumerate(_newest_first(es), 1):
        record = json.dumps({"log": line, "stream": "stderr", "time": t, "kubernetes": _k8s(n)}, separators=(",", ":"))
        rows.append(f"{i}\t{_console_time(t)}\t{record}\tip-10-0-0-{n + 2}.ec2.internal-application.var.log.containers.{_stream_name(n)}")
    return _join(rows)


def determined(es, nproc: int) -> str:
    first = es[0][0] if es else "2026-11-28T12:00:00.000000000Z"

    def stamp(t: str) -> str:
        return f"[{t[:26]}Z]"

    out = [f"{stamp(first)}          || INFO: Scheduling Trial 139 (Experiment 138) (id: 138.4cae5cf7.1)",
           f"{stamp(first)}          || INFO: Trial 139 (Experiment 138) was assigned to an agent"]
    for t, n, line in es:
        cid = _hex(pod_name(n) + "det", 8)
        m, torch_tag = _DEFAULT.match(line), _RANK.search(line)
        rank = n * nproc + int(m.group(1)) if m else int(torch_tag.group(1)) if torch_tag else None
        body = line[m.end():] if m else line
        out.append(f"{stamp(t)} {cid} [rank={rank}] || {body}" if rank is not None else f"{stamp(t)} {cid} || {body}")
    return _join(out)


def runai(es) -> str:
    return _join(line for _, n, line in es if n == 0)


def oc_inspect(es, nodes: int) -> list[tuple[str, str]]:
    return [(f"inspect.local.5151487/namespaces/{NS}/pods/{pod_name(node)}/{CONTAINER}/{CONTAINER}/logs/current.log",
             _join(f"{t} {line}" for t, n, line in es if n == node)) for node in range(nodes)]


SHAPES = ("logs-explorer-newest-first", "messages-newest-first", "cloudwatch-insights-table", "determined-trial-logs", "runai-logs",
          "oc-adm-inspect")


def shapes(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str]]]:
    """Every shape of ``SHAPES`` for the node logs ``node_texts`` (node 0 first)."""
    es, nodes = entries(node_texts), len(node_texts)
    return {
        "logs-explorer-newest-first": [("logs-explorer.txt", logs_explorer(es))], "messages-newest-first": [("messages.txt", messages_only(es))],
        "cloudwatch-insights-table": [("insights.tsv", cloudwatch_table(es))], "determined-trial-logs": [("trial-139.log", determined(es, nproc))],
        "runai-logs": [("train.log", runai(es))], "oc-adm-inspect": oc_inspect(es, nodes),
    }


__all__ = ["SHAPES", "shapes"]
